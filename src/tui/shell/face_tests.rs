//! Tests of the shell face: opening at the pane's size, keys and pastes passed through, resizes and
//! exits, the mouse for programs that ask, and copy mode over the scrollback.

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
