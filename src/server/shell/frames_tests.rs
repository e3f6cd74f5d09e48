//! Tests of `frames`.

use super::*;

fn parser(rows: u16, cols: u16, scrollback: usize) -> vt100::Parser {
    vt100::Parser::new(nonzero(rows), nonzero(cols), scrollback)
}

/// A client applying frames the way the UI does.
fn apply(client: &mut vt100::Parser, frame: Frame) {
    match frame {
        Frame::Screen {
            rows, cols, bytes, ..
        } => {
            *client = parser(rows, cols, 0);
            client.process(&bytes);
        }
        Frame::Diff(bytes) => client.process(&bytes),
    }
}

fn same(a: &vt100::Screen, b: &vt100::Screen) {
    assert_eq!(a.size(), b.size());
    assert_eq!(a.contents_formatted(), b.contents_formatted());
    assert_eq!(a.cursor_position(), b.cursor_position());
    assert_eq!(a.alternate_screen(), b.alternate_screen());
    assert_eq!(a.application_cursor(), b.application_cursor());
    assert_eq!(a.bracketed_paste(), b.bracketed_paste());
    assert_eq!(a.hide_cursor(), b.hide_cursor());
}

#[test]
fn frames_keep_a_client_identical_to_the_server() {
    // Each step: output, then optionally a resize, then a frame.
    type Step<'a> = (&'a [u8], Option<(u16, u16)>);
    let steps: &[Step] = &[
        (b"$ ls\r\n\x1b[1;34mdir\x1b[0m  file\r\n$ ", None),
        (b"", None),
        (
            b"vim\r\n\x1b[?1049h\x1b[?1h\x1b[2J\x1b[H~\r\n~\r\n\x1b[7m NORMAL \x1b[0m",
            None,
        ),
        (b"\x1b[3;5Hx", Some((6, 30))),
        (b"\x1b[?1049l\x1b[?1l$ \x1b[?2004h", None),
        (b"\x1b[?25l", Some((4, 10))),
        (&[0xff, 0xfe, b'\x1b', b'[', b'9', 0x9b, b'q', b'\n'], None),
        (b"wide \xe4\xb8\xad\xe6\x96\x87 chars\x1b[?25h", None),
    ];
    let mut server = parser(5, 20, 100);
    let mut client = parser(1, 1, 0);
    let mut mirror = Mirror::new();
    for (i, (out, resize)) in steps.iter().enumerate() {
        server.process(out);
        if let Some((r, c)) = resize {
            server.screen_mut().set_size(nonzero(*r), nonzero(*c));
        }
        if let Some(f) = mirror.frame(server.screen()) {
            apply(&mut client, f);
        }
        same(server.screen(), client.screen());
        assert_eq!(mirror.frame(server.screen()), None, "step {i}: nothing new");
    }
}

#[test]
fn a_size_or_screen_change_sends_the_whole_screen() {
    let mut server = parser(3, 10, 0);
    let mut mirror = Mirror::new();
    assert!(matches!(
        mirror.frame(server.screen()),
        Some(Frame::Screen { .. })
    ));
    server.process(b"a");
    assert!(matches!(
        mirror.frame(server.screen()),
        Some(Frame::Diff(_))
    ));
    server.process(b"\x1b[?1049h");
    assert!(matches!(
        mirror.frame(server.screen()),
        Some(Frame::Screen { .. })
    ));
    server.screen_mut().set_size(nonzero(4), nonzero(10));
    assert!(matches!(
        mirror.frame(server.screen()),
        Some(Frame::Screen { .. })
    ));
}

#[test]
fn a_flood_becomes_one_frame_of_what_is_on_screen() {
    let mut server = parser(4, 20, 0);
    let mut mirror = Mirror::new();
    let _ = mirror.frame(server.screen());
    for n in 0..100_000 {
        server.process(format!("line {n}\r\n").as_bytes());
    }
    let Some(Frame::Diff(bytes)) = mirror.frame(server.screen()) else {
        panic!("expected a diff");
    };
    assert!(bytes.len() < 200, "{} bytes", bytes.len());
}

#[test]
fn history_rebuilds_the_scrollback_and_the_screen() {
    let mut server = parser(3, 8, 50);
    // Ten short lines, one that wraps, colors, and a prompt left on screen.
    for n in 0..10 {
        server.process(format!("l{n}\r\n").as_bytes());
    }
    server.process(b"0123456789ABC\r\n\x1b[31mred\x1b[m\r\n$ ");
    let bytes = history(server.screen());
    let mut client = parser(3, 8, 50);
    client.process(&bytes);
    same(server.screen(), client.screen());
    let all = |p: &mut vt100::Parser| {
        let s = p.screen_mut();
        s.set_scrollback(usize::MAX);
        let n = s.scrollback();
        let mut text = Vec::new();
        for off in (1..=n).rev() {
            s.set_scrollback(off);
            text.push(s.rows(0, 8).next().unwrap_or_default());
        }
        s.set_scrollback(0);
        (n, text)
    };
    let (n, text) = all(&mut server);
    assert_eq!(all(&mut client), (n, text.clone()));
    assert_eq!(text.first().map(String::as_str), Some("l0"));
    client.screen_mut().set_scrollback(n);
    let wrapped_at = text.iter().position(|t| t == "01234567").unwrap();
    // The wrapped row is still one logical line on the client.
    client.screen_mut().set_scrollback(n - wrapped_at);
    assert!(client.screen().row_wrapped(0));
}

#[test]
fn history_on_the_alternate_screen_is_the_screen() {
    let mut server = parser(3, 10, 50);
    server.process(b"a\r\nb\r\nc\r\nd\r\n\x1b[?1049hfull screen app");
    let mut client = parser(3, 10, 50);
    client.process(&history(server.screen()));
    same(server.screen(), client.screen());
    assert_eq!(client.screen().scrollback_len(), 0);
}
