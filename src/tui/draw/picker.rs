//! The tree picker overlay (prefix `w`): one row per terminal the filter keeps, with its
//! number in the list, state, provider and conversation title; the cursor's row reversed.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use super::{centered, provider_label, state_span};
use crate::tui::app::picker::Picker;
use crate::tui::app::App;
use crate::tui::transcript::lines::str_width;

pub fn draw_picker(f: &mut Frame, app: &App, p: &Picker) {
    let listed = app.listed();
    let picked = app.picked(p);
    let numbers: Vec<String> = (picked.iter().enumerate())
        .map(|(row, t)| {
            let n = listed.iter().position(|l| l.info.name == t.info.name);
            n.unwrap_or(row).to_string()
        })
        .collect();
    // Each column as wide as its widest cell (a long name, `provider/model`), in columns.
    let widest = |cells: &mut dyn Iterator<Item = String>| cells.map(|c| str_width(&c)).max();
    let n_w = widest(&mut numbers.iter().cloned()).unwrap_or(1);
    let name_w = widest(&mut picked.iter().map(|t| t.info.name.clone())).map_or(20, |w| w.max(20));
    let state_w = widest(&mut picked.iter().map(|t| state_span(t).content.into_owned()));
    let prov_w = widest(&mut picked.iter().map(|t| provider_label(t))).map_or(12, |w| w.max(12));
    let mut lines: Vec<Line<'static>> = (picked.iter().zip(&numbers).enumerate())
        .map(|(row, (t, n))| {
            let mut style = Style::default();
            if row == p.at {
                style = style.add_modifier(Modifier::REVERSED);
            }
            let title = t.title().unwrap_or_default();
            let state = state_span(t);
            let state_pad = state_w
                .unwrap_or(0)
                .saturating_sub(str_width(&state.content));
            Line::from(vec![
                Span::styled(
                    format!(
                        " {} {} ",
                        pad(n, n_w, true),
                        pad(&t.info.name, name_w, false)
                    ),
                    style,
                ),
                state,
                Span::raw(format!(
                    "{}  {} {title}",
                    " ".repeat(state_pad),
                    pad(&provider_label(t), prov_w, false)
                )),
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

/// `text` padded with spaces to `width` display columns, on the left when `right` (numbers).
fn pad(text: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(str_width(text)));
    if right {
        format!("{fill}{text}")
    } else {
        format!("{text}{fill}")
    }
}
