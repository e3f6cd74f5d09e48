//! Copy mode's logic (prefix `[`, keys as tmux's vi copy mode): a cursor over a frozen copy of
//! a pane's rows, a selection, search (`/` down, `?` up; `n` the same way, `N` back), and the
//! text a selection copies (wrapped rows joined back), plus the OSC 52 sequence that puts it
//! on the system clipboard. The mouse works on the same view: a cell of the pane maps to a
//! place in the rows (`pos_at`), a double click takes the word there, the wheel scrolls. Pure:
//! table-tested.

pub mod mode;

use base64::Engine;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use unicode_width::UnicodeWidthChar;

/// How a row follows the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrap {
    /// A line of its own.
    Hard,
    /// The terminal wrapped it: the text goes on with no break.
    Soft,
    /// The transcript wrapped it at a space: its indentation goes and a space comes back.
    Reflow,
}

/// One screen row as copy mode sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub text: String,
    pub wrap: Wrap,
}

impl Row {
    pub fn new(text: impl Into<String>, wrap: Wrap) -> Row {
        Row {
            text: text.into(),
            wrap,
        }
    }
}

/// A place in the rows: row index and character index.
pub type Pos = (usize, usize);

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Stay,
    /// A message for the status line (a search found nothing…).
    Say(String),
    Leave,
    /// Copy this text and leave.
    Copy(String),
}

/// Copy mode over pane `pane`.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyView {
    pub pane: usize,
    pub rows: Vec<Row>,
    pub cursor: Pos,
    /// Where the selection started (`v` or Space); None: no selection.
    pub anchor: Option<Pos>,
    /// The first row shown, and how many are.
    pub top: usize,
    pub height: usize,
    /// The search being typed after `/` (or `?`).
    pub prompt: Option<String>,
    /// The last search, for `n` / `N`.
    pub last: Option<String>,
    /// The search typed or last made goes up (`?`): `n` goes on up and `N` down, as in tmux's
    /// vi copy mode.
    pub backward: bool,
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

fn is_word(c: char) -> bool {
    !c.is_whitespace()
}

impl CopyView {
    /// `top`: the first row the pane showed; the cursor starts at `cursor` (clamped).
    pub fn new(pane: usize, mut rows: Vec<Row>, height: usize, top: usize, cursor: Pos) -> Self {
        if rows.is_empty() {
            rows.push(Row::new("", Wrap::Hard));
        }
        let mut v = CopyView {
            pane,
            rows,
            cursor,
            anchor: None,
            top,
            height: height.max(1),
            prompt: None,
            last: None,
            backward: false,
        };
        v.top = v.top.min(v.rows.len().saturating_sub(1));
        v.set_cursor(cursor);
        v
    }

    fn line_len(&self, row: usize) -> usize {
        self.rows.get(row).map_or(0, |r| char_len(&r.text))
    }

    fn char_at(&self, (row, col): Pos) -> Option<char> {
        self.rows.get(row)?.text.chars().nth(col)
    }

    /// Moves the cursor (clamped to the text) and scrolls so it shows.
    fn set_cursor(&mut self, (row, col): Pos) {
        let row = row.min(self.rows.len() - 1);
        let col = col.min(self.line_len(row).saturating_sub(1));
        self.cursor = (row, col);
        if row < self.top {
            self.top = row;
        } else if row >= self.top + self.height {
            self.top = row + 1 - self.height;
        }
    }

    /// The mouse put the cursor at `p` (clamped to the text; the view scrolls to it).
    pub fn point(&mut self, p: Pos) {
        self.set_cursor(p);
    }

    /// The place under the pane's cell `dx` columns right of and `dy` rows below its first
    /// shown cell (negative: above or left of it, when a drag leaves the pane), clamped to the
    /// text. Columns are display columns: a wide character takes two.
    pub fn pos_at(&self, dx: i32, dy: i32) -> Pos {
        let last = self.rows.len().saturating_sub(1);
        let row = if dy < 0 {
            self.top.saturating_sub(dy.unsigned_abs() as usize)
        } else {
            self.top.saturating_add(dy as usize).min(last)
        };
        let text = self.rows.get(row).map_or("", |r| r.text.as_str());
        let col = col_at(text, usize::try_from(dx).unwrap_or(0));
        (row, col.min(char_len(text).saturating_sub(1)))
    }

    /// Selects the word at `p` (a double click): the run of non-space characters on its row.
    /// False (nothing changed) when `p` is not on a word.
    pub fn select_word(&mut self, p: Pos) -> bool {
        let Some(row) = self.rows.get(p.0) else {
            return false;
        };
        let chars: Vec<char> = row.text.chars().collect();
        if !chars.get(p.1).is_some_and(|c| is_word(*c)) {
            return false;
        }
        let start = chars[..p.1]
            .iter()
            .rposition(|c| !is_word(*c))
            .map_or(0, |i| i + 1);
        let end = chars[p.1..]
            .iter()
            .position(|c| !is_word(*c))
            .map_or(chars.len(), |i| p.1 + i)
            - 1;
        self.anchor = Some((p.0, start));
        self.set_cursor((p.0, end));
        true
    }

    /// The wheel: the view moves `by` rows (not past either end), the cursor stays in it.
    pub fn scroll(&mut self, up: bool, by: usize) {
        let max_top = self.rows.len().saturating_sub(self.height).max(self.top);
        self.top = if up {
            self.top.saturating_sub(by)
        } else {
            self.top.saturating_add(by).min(max_top)
        };
        let bottom = self.top + self.height - 1;
        let row = self
            .cursor
            .0
            .clamp(self.top, bottom.min(self.rows.len() - 1));
        let col = self.cursor.1.min(self.line_len(row).saturating_sub(1));
        self.cursor = (row, col);
    }

    /// The selection's ends in order, inclusive.
    pub fn selection(&self) -> Option<(Pos, Pos)> {
        let a = self.anchor?;
        Some((a.min(self.cursor), a.max(self.cursor)))
    }

    pub fn selected(&self, at: Pos) -> bool {
        self.selection().is_some_and(|(s, e)| s <= at && at <= e)
    }

    /// The selected text (the cursor's row when nothing is selected), wrapped rows joined.
    pub fn copied(&self) -> String {
        let (start, end) = self.selection().unwrap_or((
            (self.cursor.0, 0),
            (self.cursor.0, self.line_len(self.cursor.0)),
        ));
        let mut out = String::new();
        for r in start.0..=end.0 {
            let Some(row) = self.rows.get(r) else { break };
            let from = if r == start.0 { start.1 } else { 0 };
            let to = if r == end.0 { end.1 + 1 } else { usize::MAX };
            let piece: String = row.text.chars().skip(from).take(to - from).collect();
            if r == start.0 {
                out.push_str(&piece);
                continue;
            }
            match row.wrap {
                Wrap::Soft => out.push_str(&piece),
                Wrap::Hard => {
                    out.truncate(out.trim_end().len());
                    out.push('\n');
                    out.push_str(&piece);
                }
                Wrap::Reflow => {
                    out.truncate(out.trim_end().len());
                    out.push(' ');
                    out.push_str(piece.trim_start());
                }
            }
        }
        out.truncate(out.trim_end().len());
        out
    }

    /// The next place `needle` starts after the cursor (`forward`) or before it, wrapping
    /// around the ends.
    pub fn find(&self, needle: &str, forward: bool) -> Option<Pos> {
        if needle.is_empty() {
            return None;
        }
        let mut hits: Vec<Pos> = Vec::new();
        for (r, row) in self.rows.iter().enumerate() {
            for (b, _) in row.text.match_indices(needle) {
                hits.push((r, char_len(&row.text[..b])));
            }
        }
        if forward {
            hits.iter()
                .find(|&&p| p > self.cursor)
                .or(hits.first())
                .copied()
        } else {
            hits.iter()
                .rev()
                .find(|&&p| p < self.cursor)
                .or(hits.last())
                .copied()
        }
    }

    fn search(&mut self, forward: bool) -> Outcome {
        let Some(needle) = self.last.clone() else {
            return Outcome::Say("no search yet: / searches down, ? up".into());
        };
        match self.find(&needle, forward) {
            Some(p) => {
                self.set_cursor(p);
                Outcome::Stay
            }
            None => Outcome::Say(format!("not found: {needle}")),
        }
    }

    /// Every place in reading order after (or before) the cursor, one step at a time.
    fn step(&self, p: Pos, forward: bool) -> Option<Pos> {
        if forward {
            if p.1 + 1 < self.line_len(p.0) {
                Some((p.0, p.1 + 1))
            } else {
                (p.0 + 1 < self.rows.len()).then_some((p.0 + 1, 0))
            }
        } else if p.1 > 0 {
            Some((p.0, p.1 - 1))
        } else {
            p.0.checked_sub(1)
                .map(|r| (r, self.line_len(r).saturating_sub(1)))
        }
    }

    /// A word starts at `p`: a word character after a space, a row start or nothing.
    fn word_start(&self, p: Pos) -> bool {
        let here = self.char_at(p).is_some_and(is_word);
        let before = p.1 > 0 && self.char_at((p.0, p.1 - 1)).is_some_and(is_word);
        here && !before
    }

    fn word(&mut self, forward: bool) {
        let mut p = self.cursor;
        while let Some(next) = self.step(p, forward) {
            p = next;
            if self.word_start(p) {
                break;
            }
        }
        self.set_cursor(p);
    }

    fn prompt_key(&mut self, k: &KeyEvent) -> Outcome {
        let Some(text) = &mut self.prompt else {
            return Outcome::Stay;
        };
        match k.code {
            KeyCode::Esc => self.prompt = None,
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => self.prompt = None,
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Enter => {
                let needle = std::mem::take(text);
                self.prompt = None;
                if !needle.is_empty() {
                    self.last = Some(needle);
                }
                return self.search(!self.backward);
            }
            KeyCode::Char(c) => text.push(c),
            _ => {}
        }
        Outcome::Stay
    }

    /// One key of copy mode.
    pub fn key(&mut self, k: &KeyEvent) -> Outcome {
        if self.prompt.is_some() {
            return self.prompt_key(k);
        }
        let (row, col) = self.cursor;
        let page = self.height.saturating_sub(1).max(1);
        match k.code {
            KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                return Outcome::Leave
            }
            KeyCode::Char('q') | KeyCode::Esc => return Outcome::Leave,
            KeyCode::Char('y') | KeyCode::Enter => return Outcome::Copy(self.copied()),
            KeyCode::Char('h') | KeyCode::Left => self.set_cursor((row, col.saturating_sub(1))),
            KeyCode::Char('l') | KeyCode::Right => self.set_cursor((row, col + 1)),
            KeyCode::Char('k') | KeyCode::Up => self.set_cursor((row.saturating_sub(1), col)),
            KeyCode::Char('j') | KeyCode::Down => self.set_cursor((row + 1, col)),
            KeyCode::PageUp => self.set_cursor((row.saturating_sub(page), col)),
            KeyCode::PageDown => self.set_cursor((row + page, col)),
            KeyCode::Char('g') | KeyCode::Home => self.set_cursor((0, 0)),
            KeyCode::Char('G') | KeyCode::End => self.set_cursor((usize::MAX, 0)),
            KeyCode::Char('0') => self.set_cursor((row, 0)),
            KeyCode::Char('$') => self.set_cursor((row, usize::MAX)),
            KeyCode::Char('w') => self.word(true),
            KeyCode::Char('b') => self.word(false),
            KeyCode::Char('v') | KeyCode::Char(' ') => {
                self.anchor = match self.anchor {
                    Some(_) if k.code == KeyCode::Char('v') => None,
                    _ => Some(self.cursor),
                }
            }
            KeyCode::Char(c @ ('/' | '?')) => {
                self.prompt = Some(String::new());
                self.backward = c == '?';
            }
            KeyCode::Char('n') => return self.search(!self.backward),
            KeyCode::Char('N') => return self.search(self.backward),
            _ => {}
        }
        Outcome::Stay
    }
}

/// The character index at display column `x` of `text` (the text's length past its end).
pub fn col_at(text: &str, x: usize) -> usize {
    let mut left = 0;
    for (i, c) in text.chars().enumerate() {
        left += c.width().unwrap_or(0);
        if left > x {
            return i;
        }
    }
    char_len(text)
}

/// The OSC 52 sequence that sets the system clipboard to `text` (terminals and tmux pass it on,
/// so it works over ssh).
pub fn osc52(text: &str) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07").into_bytes()
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
