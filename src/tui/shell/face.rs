//! The shell face's part of the state: toggling it (prefix s), keys and pastes passed through
//! to the shell while it is focused, the shell connection's messages, and the opens and resizes
//! the panes' sizes call for (worked out after each drawing, which is when sizes are known).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;

use crate::tui::app::{App, Effect, Mode};
use crate::tui::shell::{key_bytes, paste_bytes, ShellUpdate, ShellView};

/// The shell's size (rows, cols) in a pane drawn at `area`: inside its border.
pub fn shell_size(area: Rect) -> (u16, u16) {
    (area.height.saturating_sub(2), area.width.saturating_sub(2))
}

impl App {
    /// The active pane shows the shell face of a known terminal: keys go to the shell.
    pub fn shell_focused(&self) -> bool {
        self.panes
            .get(self.active)
            .is_some_and(|p| p.shell && p.term.as_deref().is_some_and(|n| self.term(n).is_some()))
    }

    /// Prefix s: the active pane switches between the transcript and the shell.
    pub(in crate::tui) fn toggle_shell(&mut self) -> Vec<Effect> {
        let Some(p) = self.panes.get_mut(self.active) else {
            return Vec::new();
        };
        if p.term.is_none() {
            let label = self
                .keys
                .hint(crate::tui::input::keys::PrefixAction::NewTerminal);
            self.say(format!("no terminal yet: create one with {label}"));
            return Vec::new();
        }
        p.shell = !p.shell;
        p.diff = false;
        if p.shell {
            // The shell is opened (or attached again) after the next drawing, at the pane's size.
            return Vec::new();
        }
        match self.focused_name() {
            Some(n) => self.show_effects(&n),
            None => Vec::new(),
        }
    }

    /// A key while the shell face is focused: to the shell; once the shell ended, Enter starts
    /// another.
    pub(in crate::tui) fn shell_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Some(name) = self.focused_name() else {
            return Vec::new();
        };
        let Some(t) = self.term_mut(&name) else {
            return Vec::new();
        };
        let Some(view) = &t.shell else {
            return Vec::new();
        };
        if !view.live() {
            if k.code == KeyCode::Enter {
                t.shell = None;
            }
            return Vec::new();
        }
        let app_cursor = view.screen.screen().application_cursor();
        match key_bytes(&k, app_cursor) {
            Some(bytes) => vec![Effect::ShellInput { name, bytes }],
            None => Vec::new(),
        }
    }

    /// The prefix typed twice: the shell gets the prefix key itself (tmux's send-prefix).
    pub(in crate::tui) fn shell_prefix(&mut self) -> Vec<Effect> {
        if !self.shell_focused() {
            return Vec::new();
        }
        self.shell_key(self.keys.prefix.event())
    }

    pub(in crate::tui) fn shell_paste(&mut self, text: &str) -> Vec<Effect> {
        let Some(name) = self.focused_name() else {
            return Vec::new();
        };
        let Some(view) = self.term(&name).and_then(|t| t.shell.as_ref()) else {
            return Vec::new();
        };
        if !view.live() {
            return Vec::new();
        }
        let bytes = paste_bytes(text, view.screen.screen().bracketed_paste());
        vec![Effect::ShellInput { name, bytes }]
    }

    pub(in crate::tui) fn on_shell(
        &mut self,
        name: &str,
        id: u64,
        update: ShellUpdate,
    ) -> Vec<Effect> {
        let Some(view) = self
            .term_mut(name)
            .and_then(|t| t.shell.as_mut())
            .filter(|v| v.id == id)
        else {
            return Vec::new();
        };
        let history = matches!(update, ShellUpdate::History { .. });
        view.apply(update);
        // Copy mode asked for the scrollback: it opens now, if that shell is still in view.
        if history && std::mem::take(&mut view.copy_waits) {
            let shown = self
                .panes
                .get(self.active)
                .is_some_and(|p| p.shell && p.term.as_deref() == Some(name));
            if shown && matches!(self.mode, Mode::Normal) {
                return self.enter_copy();
            }
        }
        Vec::new()
    }

    /// After a drawing: opens the shells shown for the first time and tells the server about
    /// panes that changed size. A terminal shown in several panes takes the first drawn one's
    /// size.
    pub fn shell_effects(&mut self) -> Vec<Effect> {
        let mut seen: Vec<String> = Vec::new();
        let mut fx = Vec::new();
        for i in 0..self.panes.len() {
            let p = &self.panes[i];
            // A pane not drawn (zoomed away) has no size to give.
            let Some(name) = p.term.clone().filter(|_| p.shell && !p.area.is_empty()) else {
                continue;
            };
            if seen.contains(&name) {
                continue;
            }
            seen.push(name.clone());
            let (rows, cols) = shell_size(p.area);
            if rows == 0 || cols == 0 {
                continue;
            }
            let id = self.shell_ids + 1;
            let Some(t) = self.term_mut(&name) else {
                continue;
            };
            match &mut t.shell {
                None => {
                    t.shell = Some(ShellView::new(id, rows, cols));
                    self.shell_ids = id;
                    fx.push(Effect::ShellOpen {
                        name,
                        id,
                        rows,
                        cols,
                    });
                }
                Some(v) if v.live() && v.asked != (rows, cols) => {
                    // The screen keeps the server's size until the server sends it again.
                    v.asked = (rows, cols);
                    fx.push(Effect::ShellResize { name, rows, cols });
                }
                Some(_) => {}
            }
        }
        fx
    }
}

#[cfg(test)]
#[path = "face_tests.rs"]
mod tests;
