//! The help overlay: every key and what it does. As wide as its longest line needs, never
//! wider than the screen (a description that does not fit wraps under itself); taller than
//! the screen, it scrolls (↑↓ j/k, PageUp/PageDown, g/G, the wheel) and its title says where.

use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::tui::app::{App, Mode};
use crate::tui::transcript::lines::{str_width, wrap_line};

/// The rows of the help laid out in `width` columns (the border excluded): the key column,
/// then its description, wrapped and indented under itself when it does not fit.
pub fn layout(rows: &[(String, &str)], width: usize) -> Vec<(String, String)> {
    let key_w = rows.iter().map(|(k, _)| str_width(k)).max().unwrap_or(0);
    let text_w = width.saturating_sub(key_w + 3).max(10);
    let mut out = Vec::new();
    for (k, what) in rows {
        for (i, piece) in wrap_line(what, text_w).into_iter().enumerate() {
            let key = if i == 0 { k.as_str() } else { "" };
            out.push((format!(" {key:<key_w$}  "), piece));
        }
    }
    out
}

/// The overlay's size on a screen of `screen`: its content's, within the screen.
fn area(screen: Rect, rows: &[(String, &str)]) -> Rect {
    let key_w = rows.iter().map(|(k, _)| str_width(k)).max().unwrap_or(0);
    let text_w = rows.iter().map(|(_, w)| str_width(w)).max().unwrap_or(0);
    let want_w = (key_w + text_w + 5).min(usize::from(u16::MAX)) as u16;
    let w = want_w.min(screen.width);
    let lines = layout(rows, usize::from(w.saturating_sub(2))).len();
    let h = (lines + 2).min(usize::from(screen.height)) as u16;
    Rect::new(
        screen.x + (screen.width - w) / 2,
        screen.y + (screen.height - h) / 2,
        w,
        h,
    )
}

pub fn draw_help(f: &mut Frame, app: &mut App) {
    let rows = app.keys.help();
    let area = area(f.area(), &rows);
    let lines = layout(&rows, usize::from(area.width.saturating_sub(2)));
    let shown = usize::from(area.height.saturating_sub(2));
    let most = lines.len().saturating_sub(shown);
    let scroll = match &mut app.mode {
        Mode::Help { scroll, page } => {
            *scroll = (*scroll).min(most);
            *page = shown.max(1);
            *scroll
        }
        _ => 0,
    };
    let title = if most > 0 {
        format!(
            " keys {}–{} of {} · ↑↓ PageUp/PageDown scroll ",
            scroll + 1,
            (scroll + shown).min(lines.len()),
            lines.len()
        )
    } else {
        " keys ".to_string()
    };
    let text: Vec<Line<'static>> = lines
        .into_iter()
        .skip(scroll)
        .take(shown)
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(k, Style::default().fg(Color::Cyan)),
                Span::raw(what),
            ])
        })
        .collect();
    f.render_widget(Clear, area);
    let block = Block::default().borders(Borders::ALL).title(title);
    f.render_widget(Paragraph::new(text).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_help_is_as_wide_as_its_lines_within_the_screen() {
        let rows: Vec<(String, &str)> = vec![
            ("C-b c".into(), "new terminal"),
            (
                "C-b ?".into(),
                "this help, which has a rather long description",
            ),
        ];
        let full = 5 + 2 + 46 + 3;
        let table = [
            // (screen width, height) → overlay (width, height)
            ((200, 50), (full as u16, 4)),
            ((40, 50), (40, 5)),
            ((40, 3), (40, 3)),
        ];
        for ((w, h), want) in table {
            let a = area(Rect::new(0, 0, w, h), &rows);
            assert_eq!((a.width, a.height), want, "{w}x{h}");
        }
        assert_eq!(
            layout(&rows, 31),
            vec![
                (" C-b c  ".to_string(), "new terminal".to_string()),
                (" C-b ?  ".into(), "this help, which has a".into()),
                ("        ".into(), "rather long description".into()),
            ]
        );
    }
}
