//! Tests of the shell mirror: keys, mouse reports and pastes as a terminal sends them, and the
//! screen's cells drawn with colors, wide characters and the cursor.

use super::*;
use pretty_assertions::assert_eq;

fn k(code: KeyCode, m: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, m)
}

#[test]
fn keys_become_the_bytes_a_terminal_sends() {
    let none = KeyModifiers::NONE;
    let ctrl = KeyModifiers::CONTROL;
    let alt = KeyModifiers::ALT;
    let shift = KeyModifiers::SHIFT;
    let table: Vec<(KeyEvent, bool, &[u8])> = vec![
        (k(KeyCode::Char('a'), none), false, b"a"),
        (k(KeyCode::Char('A'), shift), false, b"A"),
        (k(KeyCode::Char('é'), none), false, "é".as_bytes()),
        (k(KeyCode::Char('c'), ctrl), false, b"\x03"),
        (k(KeyCode::Char('d'), ctrl), false, b"\x04"),
        (k(KeyCode::Char(' '), ctrl), false, b"\x00"),
        (k(KeyCode::Char('4'), ctrl), false, b"\x1c"),
        (k(KeyCode::Char('x'), alt), false, b"\x1bx"),
        (k(KeyCode::Char('x'), ctrl | alt), false, b"\x1b\x18"),
        (k(KeyCode::Enter, none), false, b"\r"),
        (k(KeyCode::Tab, none), false, b"\t"),
        (k(KeyCode::BackTab, shift), false, b"\x1b[Z"),
        (k(KeyCode::Backspace, none), false, b"\x7f"),
        (k(KeyCode::Backspace, alt), false, b"\x1b\x7f"),
        (k(KeyCode::Esc, none), false, b"\x1b"),
        (k(KeyCode::Up, none), false, b"\x1b[A"),
        (k(KeyCode::Up, none), true, b"\x1bOA"),
        (k(KeyCode::Left, ctrl), true, b"\x1b[1;5D"),
        (k(KeyCode::Right, shift), false, b"\x1b[1;2C"),
        (k(KeyCode::Home, none), false, b"\x1b[H"),
        (k(KeyCode::End, none), true, b"\x1bOF"),
        (k(KeyCode::Delete, none), false, b"\x1b[3~"),
        (k(KeyCode::PageUp, none), false, b"\x1b[5~"),
        (k(KeyCode::PageDown, ctrl), false, b"\x1b[6;5~"),
        (k(KeyCode::F(1), none), false, b"\x1bOP"),
        (k(KeyCode::F(4), shift), false, b"\x1b[1;2S"),
        (k(KeyCode::F(5), none), false, b"\x1b[15~"),
        (k(KeyCode::F(12), none), false, b"\x1b[24~"),
    ];
    for (key, app, want) in table {
        assert_eq!(
            key_bytes(&key, app).as_deref(),
            Some(want),
            "{key:?} app={app}"
        );
    }
    assert_eq!(key_bytes(&k(KeyCode::F(20), none), false), None);
    assert_eq!(key_bytes(&k(KeyCode::Char('é'), ctrl), false), None);
}

#[test]
fn mouse_events_become_the_reports_the_program_asked_for() {
    use vt100::MouseProtocolEncoding as E;
    use vt100::MouseProtocolMode as M;
    let ev = |kind, modifiers| MouseEvent {
        kind,
        column: 0,
        row: 0,
        modifiers,
    };
    let none = KeyModifiers::NONE;
    let down = ev(MouseEventKind::Down(MouseButton::Left), none);
    let up = ev(MouseEventKind::Up(MouseButton::Left), none);
    let drag = ev(MouseEventKind::Drag(MouseButton::Left), none);
    let moved = ev(MouseEventKind::Moved, none);
    let wheel = ev(MouseEventKind::ScrollDown, none);
    let ctrl_right = ev(
        MouseEventKind::Down(MouseButton::Right),
        KeyModifiers::CONTROL,
    );
    type Case<'a> = (&'a MouseEvent, (u16, u16), M, E, Option<&'a [u8]>);
    let cases: Vec<Case> = vec![
        (
            &down,
            (4, 2),
            M::PressRelease,
            E::Sgr,
            Some(b"\x1b[<0;5;3M"),
        ),
        (&up, (4, 2), M::PressRelease, E::Sgr, Some(b"\x1b[<0;5;3m")),
        (
            &drag,
            (4, 2),
            M::ButtonMotion,
            E::Sgr,
            Some(b"\x1b[<32;5;3M"),
        ),
        (&drag, (4, 2), M::PressRelease, E::Sgr, None),
        (&moved, (0, 0), M::AnyMotion, E::Sgr, Some(b"\x1b[<35;1;1M")),
        (&moved, (0, 0), M::ButtonMotion, E::Sgr, None),
        (&wheel, (9, 9), M::Press, E::Sgr, Some(b"\x1b[<65;10;10M")),
        (&up, (4, 2), M::Press, E::Sgr, None),
        (
            &ctrl_right,
            (0, 0),
            M::PressRelease,
            E::Sgr,
            Some(b"\x1b[<18;1;1M"),
        ),
        (&down, (4, 2), M::None, E::Sgr, None),
        // X10 style: values in bytes with 32 added; a release is button 3.
        (
            &down,
            (4, 2),
            M::PressRelease,
            E::Default,
            Some(b"\x1b[M %#"),
        ),
        (&up, (4, 2), M::PressRelease, E::Default, Some(b"\x1b[M#%#")),
        (&down, (300, 2), M::PressRelease, E::Default, None),
        (
            &down,
            (300, 2),
            M::PressRelease,
            E::Utf8,
            Some("\x1b[M \u{14d}#".as_bytes()),
        ),
    ];
    for (m, at, mode, enc, want) in cases {
        assert_eq!(
            mouse_bytes(m, at, mode, enc).as_deref(),
            want,
            "{m:?} at {at:?} in {mode:?}/{enc:?}"
        );
    }
}

#[test]
fn pastes_are_bracketed_when_the_program_asked() {
    assert_eq!(paste_bytes("a\nb", false), b"a\rb");
    assert_eq!(paste_bytes("a\r\nb", true), b"\x1b[200~a\rb\x1b[201~");
    assert_eq!(
        paste_bytes("x\x1b[201~y", true),
        b"\x1b[200~xy\x1b[201~".to_vec()
    );
}

fn rendered(output: &[u8], w: u16, h: u16) -> (Buffer, Option<(u16, u16)>) {
    rendered_in(output, (w, h), (w, h))
}

/// A screen of `size` drawn into a pane of `pane` (both width, height).
fn rendered_in(output: &[u8], size: (u16, u16), pane: (u16, u16)) -> (Buffer, Option<(u16, u16)>) {
    let mut s = ShellScreen::new(size.1, size.0);
    s.0.process(output);
    let area = Rect::new(0, 0, pane.0, pane.1);
    let mut buf = Buffer::empty(area);
    let cursor = render(s.screen(), area, &mut buf);
    (buf, cursor)
}

fn text(buf: &Buffer) -> String {
    let a = buf.area;
    let mut out = String::new();
    for y in 0..a.height {
        let mut row = String::new();
        let mut x = 0;
        while x < a.width {
            let sym = buf[(x, y)].symbol();
            row.push_str(sym);
            // A wide character covers the next cell.
            x += (unicode_width::UnicodeWidthStr::width(sym) as u16).max(1);
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn cells_are_drawn_with_their_colors_and_the_cursor() {
    let (buf, cursor) = rendered(
        b"$ ls\r\n\x1b[1;34msrc\x1b[0m  \x1b[38;5;208mCargo.toml\x1b[0m\r\n\x1b[7mrev\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m\r\n$ ",
        24,
        5,
    );
    assert_eq!(text(&buf), "$ ls\nsrc  Cargo.toml\nrev rgb\n$\n\n");
    assert_eq!(buf[(0, 1)].fg, Color::Indexed(4));
    assert!(buf[(0, 1)].modifier.contains(Modifier::BOLD));
    assert_eq!(buf[(5, 1)].fg, Color::Indexed(208));
    assert!(buf[(0, 2)].modifier.contains(Modifier::REVERSED));
    assert_eq!(buf[(4, 2)].fg, Color::Rgb(1, 2, 3));
    assert_eq!(buf[(3, 2)].fg, Color::Reset);
    assert_eq!(cursor, Some((2, 3)));
}

#[test]
fn wide_characters_hidden_cursor_and_the_alternate_screen() {
    let (buf, _) = rendered("日本\r\n".as_bytes(), 6, 2);
    assert_eq!(text(&buf), "日本\n\n");
    let (_, cursor) = rendered(b"\x1b[?25l", 6, 2);
    assert_eq!(cursor, None);
    // vim-like: the alternate screen, then back to the shell's screen.
    let mut s = ShellScreen::new(3, 10);
    s.0.process(b"$ vim\r\n\x1b[?1049h\x1b[H\x1b[2Jediting");
    assert!(s.screen().contents().starts_with("editing"));
    s.0.process(b"\x1b[?1049l");
    assert!(s.screen().contents().starts_with("$ vim"));
}

#[test]
fn a_smaller_pane_clips_and_garbage_never_panics() {
    let (buf, cursor) = rendered_in(b"0123456789\r\nabcdefghij", (10, 2), (4, 1));
    assert_eq!(text(&buf), "0123\n");
    assert_eq!(cursor, None);
    let (buf, _) = rendered_in(b"ab\r\ncd", (2, 2), (4, 3));
    assert_eq!(text(&buf), "ab\ncd\n\n");
    let garbage: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let (buf, _) = rendered(&garbage, 20, 4);
    assert_eq!(buf.area.height, 4);
    let mut v = ShellView::new(1, 2, 2);
    v.apply(ShellUpdate::Output(garbage));
    let _ = v.clone();
}
