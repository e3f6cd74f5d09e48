//! Copy mode's part of the state and its drawing: entering it over the active pane (the
//! transcript, diff or shell face, as last drawn, the shell with its scrollback), its keys, the
//! copy, and the pane drawn with the cursor and the selection.

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use crate::tui::app::{App, Effect, Mode};
use crate::tui::copy::{CopyView, Outcome, Row, Wrap};
use crate::tui::diff::DiffView;
use crate::tui::transcript::lines::str_width;

fn line_text(l: &Line<'_>) -> String {
    l.spans.iter().map(|s| s.content.as_ref()).collect()
}

/// A wrapped list of lines as copy mode sees them, and where the pane showed them from: the
/// first row shown and the cursor on the last one.
fn rows_of(lines: &[Line<'_>], soft: &[bool], scroll: usize, shown: usize) -> (Vec<Row>, usize) {
    let rows: Vec<Row> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let wrap = if soft.get(i).copied().unwrap_or(false) {
                Wrap::Reflow
            } else {
                Wrap::Hard
            };
            Row::new(line_text(l), wrap)
        })
        .collect();
    let end = rows.len().saturating_sub(scroll);
    (rows, end.saturating_sub(shown.max(1)))
}

/// The shell's rows: its scrollback, oldest first, then the screen; the cursor where the
/// shell's is.
fn shell_rows(screen: &mut vt100::Screen) -> (Vec<Row>, usize, (usize, usize)) {
    let cols = screen.size().1.get();
    screen.set_scrollback(usize::MAX);
    let back = screen.scrollback();
    let mut rows = Vec::new();
    let mut wrapped = false;
    let mut push = |text: String, wraps: bool, rows: &mut Vec<Row>| {
        rows.push(Row::new(
            text,
            if wrapped { Wrap::Soft } else { Wrap::Hard },
        ));
        wrapped = wraps;
    };
    for offset in (1..=back).rev() {
        screen.set_scrollback(offset);
        let text = screen.rows(0, cols).next().unwrap_or_default();
        push(text, screen.row_wrapped(0), &mut rows);
    }
    screen.set_scrollback(0);
    let texts: Vec<String> = screen.rows(0, cols).collect();
    for (r, text) in texts.into_iter().enumerate() {
        let wraps = screen.row_wrapped(u16::try_from(r).unwrap_or(u16::MAX));
        push(text, wraps, &mut rows);
    }
    let (crow, ccol) = screen.cursor_position();
    (rows, back, (back + usize::from(crow), usize::from(ccol)))
}

impl App {
    /// Prefix `[`: copy mode over the active pane (over a live shell, once the server sent its
    /// scrollback).
    pub(in crate::tui) fn enter_copy(&mut self) -> Vec<Effect> {
        self.copy_mode(true)
    }

    /// Copy mode at once over what this client has (a mouse selection: the shell's screen,
    /// without asking the server for the scrollback).
    pub(in crate::tui) fn enter_copy_now(&mut self) {
        self.copy_mode(false);
    }

    fn copy_mode(&mut self, ask_history: bool) -> Vec<Effect> {
        let i = self.active;
        let Some(p) = self.panes.get(i) else {
            return Vec::new();
        };
        let Some(name) = p.term.clone() else {
            self.say("nothing to copy yet");
            return Vec::new();
        };
        let height = usize::from(p.area.height.saturating_sub(2)).max(1);
        let (scroll, shown) = (p.scroll, p.rows);
        let view = if p.shell {
            let Some(shell) = self.term_mut(&name).and_then(|t| t.shell.as_mut()) else {
                self.say("the shell has not started yet");
                return Vec::new();
            };
            // The scrollback is the server's: a live shell's is asked for first, and copy
            // mode opens when it comes (see `on_shell`).
            let (rows, top, cursor) = match shell.history.take() {
                Some(mut history) => shell_rows(history.0.screen_mut()),
                None if ask_history && shell.live() => {
                    shell.copy_waits = true;
                    return vec![Effect::ShellHistory { name }];
                }
                None => shell_rows(shell.screen.0.screen_mut()),
            };
            CopyView::new(i, rows, height, top, cursor)
        } else if p.diff {
            let lines = self
                .term(&name)
                .and_then(|t| t.diff.as_ref())
                .map_or_else(|| DiffView::default().lines(), DiffView::lines);
            let (rows, top) = rows_of(&lines, &[], scroll, shown);
            let last = top + shown.saturating_sub(1);
            CopyView::new(i, rows, height, top, (last, 0))
        } else {
            let (rows, top) = rows_of(&p.cache.lines, &p.cache.soft, scroll, shown);
            let last = top + shown.saturating_sub(1);
            CopyView::new(i, rows, height, top, (last, 0))
        };
        self.mode = Mode::Copy(Box::new(view));
        Vec::new()
    }

    pub(in crate::tui) fn copy_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Mode::Copy(v) = &mut self.mode else {
            return Vec::new();
        };
        match v.key(&k) {
            Outcome::Stay => {}
            Outcome::Say(text) => self.say(text),
            Outcome::Leave => self.mode = Mode::Normal,
            Outcome::Copy(text) => return self.finish_copy(text),
        }
        Vec::new()
    }

    /// Copy mode ends with `text` on the clipboard (keys `y`/Enter, a mouse release, a double
    /// click).
    pub(in crate::tui) fn finish_copy(&mut self, text: String) -> Vec<Effect> {
        self.mode = Mode::Normal;
        if text.is_empty() {
            self.say("nothing to copy");
            return Vec::new();
        }
        self.say(format!("copied {} characters", text.chars().count()));
        vec![Effect::Clipboard(text)]
    }
}

/// The status line in copy mode: the search being typed, or the keys and where the cursor is.
pub fn hint(v: &CopyView) -> String {
    match &v.prompt {
        Some(text) if v.backward => format!("search up: {text}"),
        Some(text) => format!("search down: {text}"),
        None => format!(
            "copy mode [{}/{}]: hjkl/w/b move · v select · y copy · / ? search down/up · n/N again · q leave",
            v.cursor.0 + 1,
            v.rows.len()
        ),
    }
}

/// The pane's rows in copy mode, the selection highlighted and the cursor reversed.
pub fn draw(f: &mut Frame, v: &CopyView, inner: Rect) {
    let cursor_style = Style::default().add_modifier(Modifier::REVERSED);
    let selected = Style::default().bg(Color::Yellow).fg(Color::Black);
    let mut out = Vec::new();
    let mut cursor_at = None;
    let shown = v.rows.iter().enumerate().skip(v.top).take(v.height);
    for (y, (r, row)) in shown.enumerate() {
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut run = String::new();
        let mut run_style = Style::default();
        let mut x = 0;
        let mut chars: Vec<char> = row.text.chars().collect();
        if r == v.cursor.0 && v.cursor.1 >= chars.len() {
            chars.push(' ');
        }
        for (c, ch) in chars.into_iter().enumerate() {
            let style = if (r, c) == v.cursor {
                cursor_at = Some((x, y));
                cursor_style
            } else if v.selected((r, c)) {
                selected
            } else {
                Style::default()
            };
            if style != run_style && !run.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut run), run_style));
            }
            run_style = style;
            run.push(ch);
            x += str_width(ch.encode_utf8(&mut [0; 4]));
        }
        spans.push(Span::styled(run, run_style));
        out.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(out), inner);
    if let Some((x, y)) = cursor_at {
        let x = inner.x
            + u16::try_from(x)
                .unwrap_or(u16::MAX)
                .min(inner.width.saturating_sub(1));
        f.set_cursor_position((x, inner.y + y as u16));
    }
}
