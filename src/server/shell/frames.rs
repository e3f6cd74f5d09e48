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
#[path = "frames_tests.rs"]
mod tests;
