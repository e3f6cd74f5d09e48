//! The standing instructions overlay: the focused terminal's lines numbered as `baton
//! instructions` numbers them, the selected one marked, and under them the keys, the y/n of a
//! removal or the one-line editor of an edit or an addition.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::centered;
use crate::tui::app::standing::{Standing, Step};
use crate::tui::app::App;

/// What the status line says while the overlay is open.
pub(super) fn hint(o: &Standing) -> String {
    match &o.step {
        Step::Browse => "↑↓ j/k select · e edit · a add · d remove · any other key closes".into(),
        Step::ConfirmRemove => "y removes it · any other key keeps it".into(),
        Step::Edit { .. } => "Enter saves · Esc cancels · C-u clears".into(),
    }
}

/// The line under the list: the keys, the question, or the editor with its cursor.
fn footer(o: &Standing) -> Line<'static> {
    let key = Style::default().fg(Color::Cyan);
    match &o.step {
        Step::Browse => Line::styled(" e edit · a add · d remove · Esc close", key),
        Step::ConfirmRemove => Line::styled(
            format!(" remove instruction {}? y/n", o.selected + 1),
            Style::default().fg(Color::Yellow),
        ),
        Step::Edit { number, text } => {
            let what = match number {
                Some(n) => format!(" edit {n}: "),
                None => " add: ".to_string(),
            };
            Line::from(vec![
                Span::styled(what, key),
                Span::raw(text.clone()),
                Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
            ])
        }
    }
}

pub(super) fn draw_instructions(f: &mut Frame, app: &App, o: &Standing) {
    let Some(t) = app.focused() else {
        return;
    };
    let selected = o.selected.min(t.info.instructions.len().saturating_sub(1));
    let mut lines: Vec<Line<'static>> = t
        .info
        .instructions
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut style = Style::default();
            let adding = matches!(o.step, Step::Edit { number: None, .. });
            if i == selected && !adding {
                style = style.add_modifier(Modifier::REVERSED);
            }
            Line::from(vec![
                Span::styled(format!(" {:>2}. ", i + 1), Style::default().fg(Color::Cyan)),
                Span::styled(text.clone(), style),
            ])
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::from(
            " none yet: rules you type (\"always…\", \"never…\") are kept here",
        ));
    }
    lines.push(Line::default());
    lines.push(footer(o));
    let area = centered(f.area(), 100, lines.len() as u16 + 2);
    f.render_widget(Clear, area);
    let title = format!(" standing instructions of {} ", t.info.name);
    let block = Block::default().borders(Borders::ALL).title(title);
    f.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(ratatui::widgets::Wrap { trim: false }),
        area,
    );
}
