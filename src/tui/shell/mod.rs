//! The shell face, client side: the terminal's shell (owned by the server, see
//! `server/shell/`) mirrored in a `vt100` screen of this client's own, fed the frames the server
//! sends (escape sequences of what changed on its screen, never the shell's raw output, so a
//! flood costs this client nothing); keys translated to the bytes a terminal sends; the screen's
//! cells drawn into the pane (colors, bold/italic/underline/inverse, wide characters, cursor).
//! The screen has the server's size (the latest active client's), drawn clipped or padded; the
//! scrollback stays on the server and comes as a [`ShellUpdate::History`] when asked for.

pub mod face;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

/// What the server's shell connection said, decoded (on the connection's thread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellUpdate {
    /// Start over from this screen (first on attach, and after falling behind).
    Screen {
        rows: u16,
        cols: u16,
        bytes: Vec<u8>,
    },
    /// A frame: escape sequences for the screen as it is.
    Output(Vec<u8>),
    /// The server's scrollback and screen (see [`crate::protocol::ShellEvent::History`]).
    History {
        rows: u16,
        cols: u16,
        bytes: Vec<u8>,
    },
    Exited(Option<i32>),
    /// The connection ended without the shell ending (or could not be opened).
    Lost(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellStatus {
    /// Asked the server; nothing came back yet.
    Opening,
    Live,
    Exited(Option<i32>),
    Lost(String),
}

/// Rows of the server's scrollback a history screen can hold (the server keeps as many).
const SCROLLBACK: usize = 2000;

/// A `vt100` screen. Cloning replays its state into a fresh parser; two are equal when they
/// draw the same.
pub struct ShellScreen(pub vt100::Parser);

impl ShellScreen {
    /// A live screen (frames never scroll it: it has no scrollback).
    pub fn new(rows: u16, cols: u16) -> ShellScreen {
        ShellScreen(vt100::Parser::new(nonzero(rows), nonzero(cols), 0))
    }

    /// A screen for the server's history.
    pub fn with_scrollback(rows: u16, cols: u16) -> ShellScreen {
        ShellScreen(vt100::Parser::new(nonzero(rows), nonzero(cols), SCROLLBACK))
    }

    pub fn screen(&self) -> &vt100::Screen {
        self.0.screen()
    }

    pub fn size(&self) -> (u16, u16) {
        let (r, c) = self.0.screen().size();
        (r.get(), c.get())
    }
}

impl Clone for ShellScreen {
    fn clone(&self) -> ShellScreen {
        let (rows, cols) = self.size();
        let mut copy = ShellScreen::new(rows, cols);
        copy.0.process(self.screen().state_formatted().as_bytes());
        copy
    }
}

impl PartialEq for ShellScreen {
    fn eq(&self, other: &ShellScreen) -> bool {
        self.size() == other.size()
            && self.screen().state_formatted() == other.screen().state_formatted()
    }
}

impl std::fmt::Debug for ShellScreen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellScreen")
            .field("size", &self.size())
            .field("contents", &self.screen().contents())
            .finish()
    }
}

fn nonzero(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN)
}

/// One terminal's shell as this client has it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShellView {
    pub screen: ShellScreen,
    /// The scrollback and screen as the server last sent them (asked for by copy mode, which
    /// takes it).
    pub history: Option<ShellScreen>,
    /// Copy mode asked for the history and opens when it comes.
    pub copy_waits: bool,
    pub status: ShellStatus,
    /// Which connection this view follows (a message from an older one is ignored).
    pub id: u64,
    /// The size last asked of the server.
    pub asked: (u16, u16),
}

impl ShellView {
    pub fn new(id: u64, rows: u16, cols: u16) -> ShellView {
        ShellView {
            screen: ShellScreen::new(rows, cols),
            history: None,
            copy_waits: false,
            status: ShellStatus::Opening,
            id,
            asked: (rows, cols),
        }
    }

    pub fn live(&self) -> bool {
        matches!(self.status, ShellStatus::Opening | ShellStatus::Live)
    }

    pub fn apply(&mut self, update: ShellUpdate) {
        match update {
            ShellUpdate::Screen { rows, cols, bytes } => {
                // The server's size, whatever this client asked: frames are for that size.
                self.screen = ShellScreen::new(rows, cols);
                self.screen.0.process(&bytes);
                self.status = ShellStatus::Live;
            }
            ShellUpdate::History { rows, cols, bytes } => {
                let mut history = ShellScreen::with_scrollback(rows, cols);
                history.0.process(&bytes);
                self.history = Some(history);
            }
            ShellUpdate::Output(bytes) => {
                self.screen.0.process(&bytes);
                self.status = ShellStatus::Live;
            }
            ShellUpdate::Exited(code) => self.status = ShellStatus::Exited(code),
            ShellUpdate::Lost(why) => {
                if self.live() {
                    self.status = ShellStatus::Lost(why);
                }
            }
        }
    }

    /// What the pane says under a shell that is not running.
    pub fn ended_note(&self) -> Option<String> {
        match &self.status {
            ShellStatus::Exited(Some(code)) => Some(format!(
                "[shell exited with code {code} · Enter starts a new one]"
            )),
            ShellStatus::Exited(None) => Some("[shell exited · Enter starts a new one]".into()),
            ShellStatus::Lost(why) => Some(format!("[shell: {why} · Enter tries again]")),
            ShellStatus::Opening | ShellStatus::Live => None,
        }
    }
}

/// The bytes a terminal sends for mouse event `m` at `(col, row)` (from 0) of a program that
/// asked for `mode` reports in `encoding` (vim, htop, less with `--mouse`); None when the
/// program did not ask for this kind of event or the place cannot be encoded.
pub fn mouse_bytes(
    m: &MouseEvent,
    (col, row): (u16, u16),
    mode: vt100::MouseProtocolMode,
    encoding: vt100::MouseProtocolEncoding,
) -> Option<Vec<u8>> {
    use vt100::MouseProtocolMode as M;
    let button = |b: MouseButton| match b {
        MouseButton::Left => 0,
        MouseButton::Middle => 1,
        MouseButton::Right => 2,
    };
    let (code, release) = match m.kind {
        MouseEventKind::Down(b) => (button(b), false),
        MouseEventKind::Up(b) if mode != M::Press => (button(b), true),
        MouseEventKind::Drag(b) if matches!(mode, M::ButtonMotion | M::AnyMotion) => {
            (button(b) + 32, false)
        }
        MouseEventKind::Moved if mode == M::AnyMotion => (3 + 32, false),
        MouseEventKind::ScrollUp => (64, false),
        MouseEventKind::ScrollDown => (65, false),
        _ => return None,
    };
    if mode == M::None {
        return None;
    }
    let mut code = code;
    for (held, add) in [
        (KeyModifiers::SHIFT, 4),
        (KeyModifiers::ALT, 8),
        (KeyModifiers::CONTROL, 16),
    ] {
        if m.modifiers.contains(held) {
            code += add;
        }
    }
    let (x, y) = (u32::from(col) + 1, u32::from(row) + 1);
    match encoding {
        vt100::MouseProtocolEncoding::Sgr => {
            let end = if release { 'm' } else { 'M' };
            Some(format!("\x1b[<{code};{x};{y}{end}").into_bytes())
        }
        other => {
            // X10 style: one value per byte (or per UTF-8 character), 32 added; a release
            // is button 3.
            let code = if release { 3 + (code & !3) } else { code };
            let mut out = b"\x1b[M".to_vec();
            for v in [code, x, y] {
                let v = v + 32;
                match other {
                    vt100::MouseProtocolEncoding::Utf8 => {
                        let c = char::from_u32(v).filter(|_| v < 2048)?;
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    _ => out.push(u8::try_from(v).ok()?),
                }
            }
            Some(out)
        }
    }
}

/// The bytes a terminal sends for `k` (None: nothing to send). `app_cursor`: the program
/// asked for application cursor keys (DECCKM), as vim and less do.
pub fn key_bytes(k: &KeyEvent, app_cursor: bool) -> Option<Vec<u8>> {
    let m = k.modifiers;
    let ctrl = m.contains(KeyModifiers::CONTROL);
    let alt = m.contains(KeyModifiers::ALT);
    let shift = m.contains(KeyModifiers::SHIFT);
    // xterm's modifier parameter: 1 + shift + 2·alt + 4·ctrl.
    let code = 1 + u8::from(shift) + 2 * u8::from(alt) + 4 * u8::from(ctrl);
    let esc_if_alt = |mut b: Vec<u8>| {
        if alt {
            b.insert(0, 0x1b);
        }
        Some(b)
    };
    // Cursor-like keys: `ESC [ X` (or `ESC O X` in application mode), `ESC [ 1 ; m X` with
    // modifiers.
    let letter = |x: u8| {
        Some(if code > 1 {
            format!("\x1b[1;{code}{}", x as char).into_bytes()
        } else if app_cursor {
            vec![0x1b, b'O', x]
        } else {
            vec![0x1b, b'[', x]
        })
    };
    // Function keys F1-F4: `ESC O P`…, `ESC [ 1 ; m P` with modifiers.
    let ss3 = |x: u8| {
        Some(if code > 1 {
            format!("\x1b[1;{code}{}", x as char).into_bytes()
        } else {
            vec![0x1b, b'O', x]
        })
    };
    let tilde = |n: u8| {
        Some(if code > 1 {
            format!("\x1b[{n};{code}~").into_bytes()
        } else {
            format!("\x1b[{n}~").into_bytes()
        })
    };
    match k.code {
        KeyCode::Char(c) if ctrl => esc_if_alt(vec![ctrl_byte(c)?]),
        KeyCode::Char(c) => {
            let mut b = [0u8; 4];
            esc_if_alt(c.encode_utf8(&mut b).as_bytes().to_vec())
        }
        KeyCode::Enter => esc_if_alt(vec![b'\r']),
        KeyCode::Tab => esc_if_alt(vec![b'\t']),
        KeyCode::BackTab => Some(b"\x1b[Z".to_vec()),
        KeyCode::Backspace if ctrl => esc_if_alt(vec![0x08]),
        KeyCode::Backspace => esc_if_alt(vec![0x7f]),
        KeyCode::Esc => esc_if_alt(vec![0x1b]),
        KeyCode::Up => letter(b'A'),
        KeyCode::Down => letter(b'B'),
        KeyCode::Right => letter(b'C'),
        KeyCode::Left => letter(b'D'),
        KeyCode::Home => letter(b'H'),
        KeyCode::End => letter(b'F'),
        KeyCode::Insert => tilde(2),
        KeyCode::Delete => tilde(3),
        KeyCode::PageUp => tilde(5),
        KeyCode::PageDown => tilde(6),
        KeyCode::F(n @ 1..=4) => ss3(b'P' + (n - 1)),
        KeyCode::F(n @ 5..=12) => tilde([15, 17, 18, 19, 20, 21, 23, 24][usize::from(n - 5)]),
        _ => None,
    }
}

/// Ctrl with a character: the C0 control it stands for.
fn ctrl_byte(c: char) -> Option<u8> {
    Some(match c {
        'a'..='z' => c as u8 - b'a' + 1,
        'A'..='Z' => c as u8 - b'A' + 1,
        ' ' | '@' | '2' => 0,
        '[' | '3' => 0x1b,
        '\\' | '4' => 0x1c,
        ']' | '5' => 0x1d,
        '^' | '6' => 0x1e,
        '_' | '-' | '7' => 0x1f,
        '?' | '8' => 0x7f,
        _ => return None,
    })
}

/// A paste as the shell should get it: wrapped in bracketed-paste marks when the program asked
/// for them (so a pasted newline does not run anything), line ends as the Enter key sends them.
pub fn paste_bytes(text: &str, bracketed: bool) -> Vec<u8> {
    let body = text.replace("\r\n", "\r").replace('\n', "\r");
    if bracketed {
        // A paste must not end the bracket early.
        let body = body.replace("\x1b[201~", "");
        format!("\x1b[200~{body}\x1b[201~").into_bytes()
    } else {
        body.into_bytes()
    }
}

fn color(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Reset,
        vt100::Color::Idx(i) => Color::Indexed(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

fn cell_style(cell: &vt100::Cell) -> Style {
    let mut mods = Modifier::empty();
    for (on, m) in [
        (cell.bold(), Modifier::BOLD),
        (cell.dim(), Modifier::DIM),
        (cell.italic(), Modifier::ITALIC),
        (cell.underline(), Modifier::UNDERLINED),
        (cell.inverse(), Modifier::REVERSED),
    ] {
        if on {
            mods |= m;
        }
    }
    Style::default()
        .fg(color(cell.fgcolor()))
        .bg(color(cell.bgcolor()))
        .add_modifier(mods)
}

/// Draws `screen` into `area` of `buf` (clipped to both); returns where the cursor is, when it
/// is shown and inside the area.
pub fn render(screen: &vt100::Screen, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
    let (rows, cols) = screen.size();
    let rows = rows.get().min(area.height);
    let cols = cols.get().min(area.width);
    for y in 0..area.height {
        for x in 0..area.width {
            let Some(out) = buf.cell_mut((area.x + x, area.y + y)) else {
                continue;
            };
            let Some(cell) = screen.cell(y, x).filter(|_| y < rows && x < cols) else {
                out.reset();
                continue;
            };
            if cell.is_wide_continuation() {
                // Covered by the wide character before it.
                out.reset();
                out.set_style(cell_style(cell));
                continue;
            }
            let text = cell.contents();
            let wide_cut = cell.is_wide() && x + 1 >= cols;
            if text.is_empty() || wide_cut || text.chars().any(char::is_control) {
                out.set_symbol(" ");
            } else {
                out.set_symbol(text);
            }
            out.set_style(cell_style(cell));
        }
    }
    let (cy, cx) = screen.cursor_position();
    (!screen.hide_cursor() && cy < rows && cx < cols).then_some((area.x + cx, area.y + cy))
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
