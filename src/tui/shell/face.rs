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
mod tests {
    use super::*;
    use crate::protocol::WatchEvent;
    use crate::tui::app::Msg;
    use crate::tui::input::keys::Keys;
    use crossterm::event::KeyModifiers;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn app() -> App {
        let mut app = App::new("baton", "/w/api", Keys::default());
        let t = crate::tui::testing::views::terminal(json!({"name": "api"}));
        app.update(Msg::Watch(WatchEvent::Terminals { terminals: vec![t] }));
        app.panes[0].area = Rect::new(0, 0, 42, 12);
        app
    }

    fn key(code: KeyCode, m: KeyModifiers) -> Msg {
        Msg::Key(KeyEvent::new(code, m))
    }

    fn toggle(app: &mut App) {
        app.update(key(KeyCode::Char('b'), KeyModifiers::CONTROL));
        app.update(key(KeyCode::Char('s'), KeyModifiers::NONE));
    }

    /// The shell face, open, its first screen (10×40) drawn from `bytes`.
    fn shell_showing(app: &mut App, bytes: &[u8]) {
        toggle(app);
        app.shell_effects();
        screen(app, bytes);
    }

    /// The server's whole screen (10×40) again, drawn from `bytes`.
    fn screen(app: &mut App, bytes: &[u8]) {
        let screen = ShellUpdate::Screen {
            rows: 10,
            cols: 40,
            bytes: bytes.to_vec(),
        };
        app.update(Msg::Shell("api".into(), 1, screen));
    }

    #[test]
    fn prefix_s_opens_the_shell_at_the_pane_size_and_keys_go_to_it() {
        let mut app = app();
        toggle(&mut app);
        assert!(app.shell_focused());
        let open = app.shell_effects();
        assert_eq!(
            open,
            vec![Effect::ShellOpen {
                name: "api".into(),
                id: 1,
                rows: 10,
                cols: 40
            }]
        );
        assert_eq!(app.shell_effects(), vec![], "opened once");
        // Keys the composer would take (Enter, Esc, C-c) all go to the shell.
        for (code, m, bytes) in [
            (KeyCode::Char('l'), KeyModifiers::NONE, b"l".to_vec()),
            (KeyCode::Enter, KeyModifiers::NONE, b"\r".to_vec()),
            (KeyCode::Esc, KeyModifiers::NONE, b"\x1b".to_vec()),
            (KeyCode::Char('c'), KeyModifiers::CONTROL, b"\x03".to_vec()),
        ] {
            let fx = app.update(key(code, m));
            let want = Effect::ShellInput {
                name: "api".into(),
                bytes,
            };
            assert_eq!(fx, vec![want]);
        }
        assert!(app.composer.is_empty());
        // The prefix twice sends it; prefix s goes back to the transcript.
        app.update(key(KeyCode::Char('b'), KeyModifiers::CONTROL));
        let fx = app.update(key(KeyCode::Char('b'), KeyModifiers::CONTROL));
        assert_eq!(
            fx,
            vec![Effect::ShellInput {
                name: "api".into(),
                bytes: vec![2]
            }]
        );
        toggle(&mut app);
        assert!(!app.shell_focused());
        app.update(key(KeyCode::Char('l'), KeyModifiers::NONE));
        assert_eq!(app.composer.text(), "l");
    }

    #[test]
    fn a_shell_shown_in_two_panes_takes_the_size_of_the_one_drawn() {
        let mut app = app();
        app.update(key(KeyCode::Char('b'), KeyModifiers::CONTROL));
        app.update(key(KeyCode::Char('%'), KeyModifiers::NONE));
        toggle(&mut app);
        app.panes[0].shell = true;
        // Zoomed on the second pane: the first is not drawn.
        app.panes[0].area = Rect::default();
        app.panes[1].area = Rect::new(0, 0, 30, 8);
        let open = app.shell_effects();
        assert!(
            matches!(
                &open[..],
                [Effect::ShellOpen {
                    rows: 6,
                    cols: 28,
                    ..
                }]
            ),
            "{open:?}"
        );
    }

    #[test]
    fn output_resize_exit_and_a_new_shell() {
        let mut app = app();
        shell_showing(&mut app, b"$ ");
        app.update(Msg::Shell(
            "api".into(),
            1,
            ShellUpdate::Output(b"hi".to_vec()),
        ));
        // A message from an older connection is ignored.
        app.update(Msg::Shell(
            "api".into(),
            7,
            ShellUpdate::Output(b"X".to_vec()),
        ));
        let view = app.terms[0].shell.as_ref().unwrap();
        assert_eq!(view.screen.screen().contents(), "$ hi");
        app.panes[0].area = Rect::new(0, 0, 30, 8);
        assert_eq!(
            app.shell_effects(),
            vec![Effect::ShellResize {
                name: "api".into(),
                rows: 6,
                cols: 28
            }]
        );
        app.update(Msg::Shell("api".into(), 1, ShellUpdate::Exited(Some(0))));
        assert_eq!(
            app.update(key(KeyCode::Char('x'), KeyModifiers::NONE)),
            vec![]
        );
        app.update(key(KeyCode::Enter, KeyModifiers::NONE));
        let again = app.shell_effects();
        assert!(
            matches!(&again[..], [Effect::ShellOpen { id: 2, .. }]),
            "{again:?}"
        );
    }

    #[test]
    fn a_paste_is_bracketed_when_the_shell_asked() {
        let mut app = app();
        shell_showing(&mut app, b"\x1b[?2004h$ ");
        let fx = app.update(Msg::Paste("ls\n".into()));
        assert_eq!(
            fx,
            vec![Effect::ShellInput {
                name: "api".into(),
                bytes: b"\x1b[200~ls\r\x1b[201~".to_vec()
            }]
        );
    }

    #[test]
    fn the_mouse_goes_to_a_shell_program_that_asked_for_it_and_shift_keeps_it() {
        use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
        let mut app = app();
        toggle(&mut app);
        app.shell_effects();
        let click = |app: &mut App, modifiers| {
            app.update(Msg::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                // The pane is drawn at (0, 0): its text starts at (1, 1).
                column: 5,
                row: 3,
                modifiers,
            }))
        };
        // A plain shell prompt: a click is the UI's (nothing goes to the shell).
        screen(&mut app, b"$ ");
        let fx = click(&mut app, KeyModifiers::NONE);
        assert!(
            !fx.iter().any(|e| matches!(e, Effect::ShellInput { .. })),
            "{fx:?}"
        );
        // vim with `set mouse=a`: press/release reports, SGR encoding.
        screen(&mut app, b"\x1b[?1000h\x1b[?1006hvim");
        let fx = click(&mut app, KeyModifiers::NONE);
        assert_eq!(
            fx,
            vec![Effect::ShellInput {
                name: "api".into(),
                bytes: b"\x1b[<0;5;3M".to_vec()
            }]
        );
        // Shift held: the UI's again, as in tmux.
        let fx = click(&mut app, KeyModifiers::SHIFT);
        assert!(
            !fx.iter().any(|e| matches!(e, Effect::ShellInput { .. })),
            "{fx:?}"
        );
    }

    #[test]
    fn copy_mode_over_the_shell_reaches_its_scrollback_and_joins_wrapped_rows() {
        let mut app = app();
        toggle(&mut app);
        app.shell_effects();
        let mut out = String::new();
        for n in 1..=30 {
            out.push_str(&format!("line {n}\r\n"));
        }
        // 45 characters on a 40-column screen: the terminal wraps it.
        out.push_str(&format!("{}END", "x".repeat(42)));
        screen(&mut app, out.as_bytes());
        // The scrollback is the server's: copy mode asks for it and opens when it comes.
        let history = |app: &mut App| {
            app.update(key(KeyCode::Char('b'), KeyModifiers::CONTROL));
            let fx = app.update(key(KeyCode::Char('['), KeyModifiers::NONE));
            assert_eq!(fx, vec![Effect::ShellHistory { name: "api".into() }]);
            assert!(matches!(app.mode, Mode::Normal));
            let history = ShellUpdate::History {
                rows: 10,
                cols: 40,
                bytes: out.clone().into_bytes(),
            };
            app.update(Msg::Shell("api".into(), 1, history));
            assert!(matches!(app.mode, Mode::Copy(_)));
        };
        history(&mut app);
        let copy = |app: &mut App, keys: &str| {
            for c in keys.chars() {
                app.update(key(KeyCode::Char(c), KeyModifiers::NONE));
            }
        };
        // The cursor starts where the shell's is: select back to the start of the wrapped line.
        copy(&mut app, "vk0");
        let fx = app.update(key(KeyCode::Char('y'), KeyModifiers::NONE));
        let want = format!("{}END", "x".repeat(42));
        assert_eq!(fx, vec![Effect::Clipboard(want)]);
        assert_eq!(app.status, Some(("copied 45 characters".into(), false)));
        history(&mut app);
        copy(&mut app, "gv$j");
        let fx = app.update(key(KeyCode::Enter, KeyModifiers::NONE));
        assert_eq!(fx, vec![Effect::Clipboard("line 1\nline 2".into())]);
        // Keys go to the shell again afterwards.
        let fx = app.update(key(KeyCode::Char('l'), KeyModifiers::NONE));
        assert!(matches!(&fx[..], [Effect::ShellInput { .. }]), "{fx:?}");
    }
}
