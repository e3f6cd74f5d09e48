//! What the mouse does, as tmux does it with `mouse on`: a click focuses a pane (or a terminal
//! in the list); a drag over a pane selects its text in copy mode (entering it if needed) and
//! the release copies the selection (OSC 52) and leaves copy mode; a double click copies the
//! word under the pointer; the wheel scrolls the pane under it (the copy view in copy mode).
//! Cells map to text through the copy view (`CopyView::pos_at`), which starts on the rows the
//! pane showed, so what is selected is what was under the pointer.
//!
//! Decisions made here (the UI as a whole: see ARCHITECTURE.md): two presses on one cell within `DOUBLE_CLICK` are a double
//! click; a click outside the pane of copy mode leaves copy mode; over a shell whose program
//! asked for mouse reports (vim, htop, less --mouse), events go to the program as that program
//! asked (press, release, motion; SGR, UTF-8 or X10 encoding), and Shift held selects instead,
//! as in tmux; over any other shell a drag selects from its screen, as on the other faces.

use std::time::{Duration, Instant};

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use crate::tui::app::{App, Effect, Mode};
use crate::tui::shell;

/// Rows the mouse wheel scrolls per notch.
pub const WHEEL_ROWS: usize = 3;
/// Two presses on one cell this close together are a double click.
pub const DOUBLE_CLICK: Duration = Duration::from_millis(400);

/// The left button's story so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MouseState {
    /// Held down since a press on pane `.0` at `.1`.
    pub press: Option<(usize, Position)>,
    /// The pointer moved with the button held: the release copies.
    pub dragging: bool,
    /// The last press, when and where.
    pub last_click: Option<(Instant, Position)>,
}

/// The text area of a pane drawn at `area` (inside its border).
fn inner(area: Rect) -> Rect {
    Rect::new(
        area.x.saturating_add(1),
        area.y.saturating_add(1),
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    )
}

/// `at` relative to the first text cell of a pane drawn at `area`.
fn offset(area: Rect, at: Position) -> (i32, i32) {
    let i = inner(area);
    (
        i32::from(at.x) - i32::from(i.x),
        i32::from(at.y) - i32::from(i.y),
    )
}

/// Which row of the list's inside (within its border) a click at `at` hits.
fn list_row(area: Rect, at: Position) -> Option<usize> {
    let inner = inner(area);
    inner.contains(at).then(|| usize::from(at.y - inner.y))
}

impl App {
    pub fn on_mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        self.on_mouse_at(m, Instant::now())
    }

    /// A mouse event at time `now` (double clicks are told by time).
    pub fn on_mouse_at(&mut self, m: MouseEvent, now: Instant) -> Vec<Effect> {
        // Over the help, the wheel scrolls it (drawing keeps it in range).
        if let crate::tui::app::Mode::Help { scroll, .. } = &mut self.mode {
            match m.kind {
                MouseEventKind::ScrollUp => *scroll = scroll.saturating_sub(3),
                MouseEventKind::ScrollDown => *scroll = scroll.saturating_add(3),
                _ => {}
            }
            return Vec::new();
        }
        let at = Position::new(m.column, m.row);
        let pane = self.panes.iter().position(|p| p.area.contains(at));
        if let Some(fx) = self.mouse_for_shell(&m, at, pane) {
            return fx;
        }
        match m.kind {
            MouseEventKind::ScrollUp => self.wheel(true, pane),
            MouseEventKind::ScrollDown => self.wheel(false, pane),
            MouseEventKind::Down(MouseButton::Left) => return self.press(at, pane, now),
            MouseEventKind::Down(_) => return self.click(at, pane),
            MouseEventKind::Drag(MouseButton::Left) => self.drag(at),
            MouseEventKind::Up(MouseButton::Left) => return self.release(),
            _ => {}
        }
        Vec::new()
    }

    /// Over a shell whose program asked for the mouse (vim, htop), events go to the program,
    /// as in tmux; Shift held keeps them for selecting.
    fn mouse_for_shell(
        &mut self,
        m: &MouseEvent,
        at: Position,
        pane: Option<usize>,
    ) -> Option<Vec<Effect>> {
        if self.mode != Mode::Normal || m.modifiers.contains(KeyModifiers::SHIFT) {
            return None;
        }
        let i = pane?;
        let p = self.panes.get(i).filter(|p| p.shell)?;
        let area = inner(p.area);
        let name = p.term.clone()?;
        let view = self.term(&name)?.shell.as_ref().filter(|v| v.live())?;
        let screen = view.screen.screen();
        let (rows, cols) = screen.size();
        let (col, row) = (at.x.checked_sub(area.x)?, at.y.checked_sub(area.y)?);
        if !area.contains(at) || col >= cols.get() || row >= rows.get() {
            return None;
        }
        let bytes = shell::mouse_bytes(
            m,
            (col, row),
            screen.mouse_protocol_mode(),
            screen.mouse_protocol_encoding(),
        )?;
        let mut fx = if matches!(m.kind, MouseEventKind::Down(_)) {
            self.select_pane(i)
        } else {
            Vec::new()
        };
        fx.push(Effect::ShellInput { name, bytes });
        Some(fx)
    }

    fn wheel(&mut self, up: bool, pane: Option<usize>) {
        if let Mode::Copy(v) = &mut self.mode {
            if pane.is_none_or(|p| p == v.pane) {
                v.scroll(up, WHEEL_ROWS);
                return;
            }
        }
        self.scroll_active(up, Some((pane.unwrap_or(self.active), WHEEL_ROWS)));
    }

    /// A click: the pane under it, or the terminal of the list (the pane showing it, as
    /// prefix and its digit), takes the focus.
    fn click(&mut self, at: Position, pane: Option<usize>) -> Vec<Effect> {
        if let Some(i) = pane {
            return self.select_pane(i);
        }
        match (list_row(self.list_area, at).and_then(|y| self.list_hit(y)))
            .and_then(|n| self.listed_name(n))
        {
            Some(name) => self.choose(&name),
            None => Vec::new(),
        }
    }

    fn press(&mut self, at: Position, pane: Option<usize>, now: Instant) -> Vec<Effect> {
        let double = self
            .mouse
            .last_click
            .is_some_and(|(t, p)| p == at && now.saturating_duration_since(t) <= DOUBLE_CLICK);
        self.mouse.last_click = (!double).then_some((now, at));
        self.mouse.press = None;
        self.mouse.dragging = false;
        if matches!(&self.mode, Mode::Copy(v) if Some(v.pane) != pane) {
            self.mode = Mode::Normal;
        }
        let mut fx = self.click(at, pane);
        let Some(i) = pane.filter(|_| matches!(self.mode, Mode::Normal | Mode::Copy(_))) else {
            return fx;
        };
        if double {
            fx.extend(self.copy_word(i, at));
            return fx;
        }
        self.mouse.press = Some((i, at));
        let (dx, dy) = offset(self.panes[i].area, at);
        if let Mode::Copy(v) = &mut self.mode {
            v.anchor = None;
            v.point(v.pos_at(dx, dy));
        }
        fx
    }

    /// The pointer moved with the button held: the selection runs from the press to here.
    fn drag(&mut self, at: Position) {
        let Some((i, start)) = self.mouse.press else {
            return;
        };
        if self.mode == Mode::Normal {
            self.enter_copy_now();
            if !matches!(self.mode, Mode::Copy(_)) {
                // Nothing to select there (no terminal yet): the rest of this drag is ignored.
                self.mouse.press = None;
                return;
            }
        }
        let area = self.panes[i].area;
        let Mode::Copy(v) = &mut self.mode else {
            return;
        };
        if v.pane != i {
            return;
        }
        if v.anchor.is_none() {
            let (dx, dy) = offset(area, start);
            v.anchor = Some(v.pos_at(dx, dy));
        }
        let (dx, dy) = offset(area, at);
        v.point(v.pos_at(dx, dy));
        self.mouse.dragging = true;
    }

    /// The button came up: after a drag, the selection is copied and copy mode ends.
    fn release(&mut self) -> Vec<Effect> {
        let dragged = std::mem::take(&mut self.mouse.dragging);
        self.mouse.press = None;
        let Mode::Copy(v) = &self.mode else {
            return Vec::new();
        };
        if !dragged {
            return Vec::new();
        }
        let text = v.copied();
        self.finish_copy(text)
    }

    /// A double click on pane `i`: the word under the pointer is copied.
    fn copy_word(&mut self, i: usize, at: Position) -> Vec<Effect> {
        if self.mode == Mode::Normal {
            self.enter_copy_now();
        }
        let (dx, dy) = offset(self.panes[i].area, at);
        let Mode::Copy(v) = &mut self.mode else {
            return Vec::new();
        };
        let text = if v.select_word(v.pos_at(dx, dy)) {
            v.copied()
        } else {
            String::new()
        };
        self.finish_copy(text)
    }
}

#[cfg(test)]
#[path = "mouse_tests.rs"]
mod tests;
