//! What a shell's client is sent, decided from the server's screen (pure; no I/O).
//!
//! The server's `vt100` screen is the only one that parses what the shell prints, as in tmux:
//! a client is sent frames, not the shell's bytes. Each client has a [`Mirror`], a screen that
//! holds exactly what that client holds; a frame is the escape sequences that turn the mirror
//! into the server's screen (`vt100`'s `state_diff`), or the whole screen when the size or the
//! alternate-screen mode changed. So however fast a program prints, a client gets at most one
//! frame per tick of what is on screen now, and a slow client never holds anything up.
//!
//! The scrollback lives on the server too: [`history`] is the bytes that rebuild it, with the
//! screen under it, on a client's screen of the same size (copy mode asks for it).

use std::num::NonZeroU16;

/// Escape sequences and the size they are for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Start over: a blank `rows`×`cols` screen, then these bytes.
    Screen {
        rows: u16,
        cols: u16,
        cursor: (u16, u16),
        bytes: Vec<u8>,
    },
    /// Apply these bytes to the screen as it is.
    Diff(Vec<u8>),
}

pub fn nonzero(n: u16) -> NonZeroU16 {
    NonZeroU16::new(n).unwrap_or(NonZeroU16::MIN)
}

/// Escape sequences that redraw `screen` on a blank terminal of its size.
pub fn redraw(screen: &vt100::Screen) -> Vec<u8> {
    let mut data = String::new();
    if screen.alternate_screen() {
        data.push_str("\x1b[?1049h");
    }
    data.push_str(&screen.state_formatted());
    data.into_bytes()
}

/// A whole-screen frame of `screen`.
pub fn whole(screen: &vt100::Screen) -> Frame {
    let (rows, cols) = screen.size();
    Frame::Screen {
        rows: rows.get(),
        cols: cols.get(),
        cursor: screen.cursor_position(),
        bytes: redraw(screen),
    }
}

/// What one client's screen holds, frame by frame.
pub struct Mirror(vt100::Parser);

impl Mirror {
    /// A client that has been sent nothing yet.
    pub fn new() -> Mirror {
        Mirror(vt100::Parser::new(nonzero(1), nonzero(1), 0))
    }

    /// The frame that brings the client to `screen`, None when it already shows it.
    pub fn frame(&mut self, screen: &vt100::Screen) -> Option<Frame> {
        let mine = self.0.screen();
        if mine.size() != screen.size() || mine.alternate_screen() != screen.alternate_screen() {
            let frame = whole(screen);
            let (rows, cols) = screen.size();
            self.0 = vt100::Parser::new(rows, cols, 0);
            if let Frame::Screen { bytes, .. } = &frame {
                self.0.process(bytes);
            }
            return Some(frame);
        }
        let diff = screen.state_diff(mine);
        if diff.is_empty() {
            return None;
        }
        self.0.process(diff.as_bytes());
        Some(Frame::Diff(diff.into_bytes()))
    }
}

/// Bytes that rebuild `screen`'s scrollback (oldest row first) and then the screen itself on a
/// blank screen of the same size with room for the scrollback. Rows the shell wrapped stay
/// wrapped. A program on the alternate screen has no scrollback: only the screen is sent.
pub fn history(screen: &vt100::Screen) -> Vec<u8> {
    if screen.alternate_screen() || screen.scrollback_len() == 0 {
        return redraw(screen);
    }
    // Every row, scrollback first: text and colors, a line end after each row that does not
    // wrap. Written from the top, the screen's rows push the scrollback's off, in order.
    let mut rows = String::new();
    let mut state = vt100::capture::BasicFormattedCaptureState::new();
    let full = vt100::capture::BasicFormattedCaptureRange::Full(&mut state);
    // Writing to a String cannot fail.
    let _ = screen.write_contents_formatted_basic(&mut rows, full);
    let mut out = rows.replace('\n', "\r\n").into_bytes();
    // Then the screen as it really is (cursor, modes), over the rows just written.
    out.extend_from_slice(b"\x1b[m");
    out.extend_from_slice(&redraw(screen));
    out
}

#[cfg(test)]
mod tests {
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
}
