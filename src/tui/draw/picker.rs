//! The tree picker overlay (prefix `w`): one row per terminal the filter keeps, with its
//! number in the list, state, provider and conversation title; the cursor's row reversed.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, provider_label, state_span};
use crate::tui::app::picker::Picker;
use crate::tui::app::App;

pub fn draw_picker(f: &mut Frame, app: &App, p: &Picker) {
    let listed = app.listed();
    let picked = app.picked(p);
    let mut lines: Vec<Line<'static>> = picked
        .iter()
        .enumerate()
        .map(|(row, t)| {
            let n = listed
                .iter()
                .position(|l| l.info.name == t.info.name)
                .unwrap_or(row);
            let mut style = Style::default();
            if row == p.at {
                style = style.add_modifier(Modifier::REVERSED);
            }
            let title = t.title().unwrap_or_default();
            Line::from(vec![
                Span::styled(format!(" {n} {:<20} ", t.info.name), style),
                state_span(t),
                Span::raw(format!("  {:<12} {title}", provider_label(t))),
            ])
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::from(" no terminal matches"));
    }
    let area = centered(f.area(), 90, lines.len() as u16 + 2);
    f.render_widget(Clear, area);
    let title = if p.typing || !p.filter.is_empty() {
        format!(" pick a terminal · filter: {}_ ", p.filter)
    } else {
        " pick a terminal ".to_string()
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    f.render_widget(Paragraph::new(lines).block(block), area);
}
