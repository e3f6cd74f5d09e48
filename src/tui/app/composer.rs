//! The composer: a multi-line prompt editor with a history of earlier prompts. Pure state;
//! keys are mapped to these operations in `tui::input`.

use unicode_width::UnicodeWidthChar;

/// The text being written and the cursor (a byte index into it, always on a char boundary).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Composer {
    text: String,
    cursor: usize,
    /// Earlier prompts, oldest first.
    history: Vec<String>,
    /// While browsing history: the entry shown and the draft it replaced.
    browsing: Option<(usize, String)>,
}

impl Composer {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn set_text(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
        self.browsing = None;
    }

    /// Takes the text out (to send it), remembering it in the history.
    pub fn take(&mut self) -> String {
        let text = std::mem::take(&mut self.text);
        self.cursor = 0;
        self.browsing = None;
        self.remember(&text);
        text
    }

    pub fn is_browsing(&self) -> bool {
        self.browsing.is_some()
    }

    /// Which history entry is shown (0: the oldest), while browsing.
    pub fn browsing_index(&self) -> Option<usize> {
        self.browsing.as_ref().map(|(i, _)| *i)
    }

    /// Back to the draft the browsing replaced.
    pub fn stop_browsing(&mut self) {
        if let Some((_, draft)) = self.browsing.take() {
            self.text = draft;
            self.cursor = self.text.len();
        }
    }

    /// Replaces the history (the focused terminal's earlier prompts, oldest first).
    pub fn set_history(&mut self, prompts: Vec<String>) {
        self.history = prompts;
        self.browsing = None;
    }

    pub fn remember(&mut self, prompt: &str) {
        if !prompt.trim().is_empty() && self.history.last().map(String::as_str) != Some(prompt) {
            self.history.push(prompt.to_string());
        }
    }

    pub fn insert_char(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    /// Inserts pasted text in one step (a large paste costs one copy, not one per character).
    pub fn insert_str(&mut self, s: &str) {
        let s = s.replace("\r\n", "\n").replace('\r', "\n");
        self.text.insert_str(self.cursor, &s);
        self.cursor += s.len();
    }

    fn prev_boundary(&self) -> Option<usize> {
        self.text[..self.cursor]
            .char_indices()
            .last()
            .map(|(i, _)| i)
    }

    fn next_boundary(&self) -> Option<usize> {
        self.text[self.cursor..]
            .chars()
            .next()
            .map(|c| self.cursor + c.len_utf8())
    }

    pub fn backspace(&mut self) {
        if let Some(i) = self.prev_boundary() {
            self.text.replace_range(i..self.cursor, "");
            self.cursor = i;
        }
    }

    pub fn delete(&mut self) {
        if let Some(j) = self.next_boundary() {
            self.text.replace_range(self.cursor..j, "");
        }
    }

    pub fn left(&mut self) {
        if let Some(i) = self.prev_boundary() {
            self.cursor = i;
        }
    }

    pub fn right(&mut self) {
        if let Some(j) = self.next_boundary() {
            self.cursor = j;
        }
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    /// Deletes from the start of the line to the cursor (Ctrl-U, as in a shell); at the start
    /// of a line, where that deletes nothing, the whole draft (a second Ctrl-U clears a long
    /// paste).
    pub fn kill_to_start(&mut self) {
        let s = self.line_start();
        if s == self.cursor {
            self.clear();
            return;
        }
        self.text.replace_range(s..self.cursor, "");
        self.cursor = s;
    }

    /// Empties the draft (its history stays).
    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.browsing = None;
    }

    /// Deletes the word before the cursor (Ctrl-W).
    pub fn kill_word(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(' ');
        let start = trimmed.rfind([' ', '\n']).map_or(0, |i| i + 1);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    pub fn on_first_line(&self) -> bool {
        !self.text[..self.cursor].contains('\n')
    }

    pub fn on_last_line(&self) -> bool {
        !self.text[self.cursor..].contains('\n')
    }

    /// Moves the cursor one line up, keeping its column as far as it can.
    pub fn up(&mut self) {
        let start = self.line_start();
        if start == 0 {
            return;
        }
        let col = self.text[start..self.cursor].chars().count();
        let prev_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.cursor = column_in(&self.text, prev_start, start - 1, col);
    }

    pub fn down(&mut self) {
        let end = self.line_end();
        if end == self.text.len() {
            return;
        }
        let col = self.text[self.line_start()..self.cursor].chars().count();
        let next_start = end + 1;
        let next_end = self.text[next_start..]
            .find('\n')
            .map_or(self.text.len(), |i| next_start + i);
        self.cursor = column_in(&self.text, next_start, next_end, col);
    }

    /// Shows the previous history entry (keeping the draft to come back to).
    pub fn history_prev(&mut self) {
        let idx = match &self.browsing {
            None if self.history.is_empty() => return,
            None => {
                let draft = std::mem::take(&mut self.text);
                self.browsing = Some((self.history.len(), draft));
                self.history.len() - 1
            }
            Some((0, _)) => return,
            Some((i, _)) => i - 1,
        };
        if let Some((i, _)) = &mut self.browsing {
            *i = idx;
        }
        self.text = self.history[idx].clone();
        self.cursor = self.text.len();
    }

    pub fn history_next(&mut self) {
        let Some((i, draft)) = self.browsing.take() else {
            return;
        };
        if i + 1 >= self.history.len() {
            self.text = draft;
        } else {
            self.text = self.history[i + 1].clone();
            self.browsing = Some((i + 1, draft));
        }
        self.cursor = self.text.len();
    }

    /// The text laid out in rows of `width` columns, and the cursor's (row, column): the
    /// whole layout, which [`Composer::window`] must agree with (the tests compare them).
    #[cfg(test)]
    pub fn layout(&self, width: usize) -> (Vec<String>, (usize, usize)) {
        layout(&self.text, self.cursor, width)
    }

    /// The `height` rows the composer shows (the cursor's row last once the text is taller),
    /// and the cursor's (row, column) among them: the same rows [`Composer::layout`] gives, but
    /// only the lines around the cursor are laid out, so a pasted megabyte costs no more per
    /// keystroke than its longest line.
    pub fn window(&self, width: usize, height: usize) -> (Vec<String>, (usize, usize)) {
        let (width, height) = (width.max(1), height.max(1));
        let text = self.text.as_str();
        // Whole lines before the cursor's, until they fill the window above it.
        let mut start = self.line_start();
        let mut above = 0;
        while start > 0 && above < height {
            let prev = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
            above += rows_in(&text[prev..start - 1], width, height);
            start = prev;
        }
        // And whole lines after it, enough to fill the window below.
        let mut end = self.line_end();
        let mut below = 0;
        while end < text.len() && below < height {
            let next = text[end + 1..]
                .find('\n')
                .map_or(text.len(), |i| end + 1 + i);
            below += rows_in(&text[end + 1..next], width, height);
            end = next;
        }
        // Twice over: where the cursor is, then only the rows shown.
        let (text, cursor) = (&text[start..end], self.cursor - start);
        let (count, (crow, ccol)) = walk(text, cursor, width, |_, _| {});
        let first = (crow + 1).saturating_sub(height);
        let mut shown = vec![String::new(); count.saturating_sub(first).min(height)];
        walk(text, cursor, width, |row, c| {
            if let (Some(r), Some(c)) = (row.checked_sub(first).and_then(|r| shown.get_mut(r)), c) {
                r.push(c);
            }
        });
        (shown, (crow - first, ccol))
    }

    /// How many rows the text takes at `width`, counting no further than `cap`.
    pub fn rows_up_to(&self, width: usize, cap: usize) -> usize {
        let mut n = 0;
        for line in self.text.split('\n') {
            n += rows_in(line, width.max(1), cap);
            if n >= cap {
                return cap;
            }
        }
        // A cursor after a full last row starts a row of its own (as `layout` has it).
        let last = self.text.rsplit('\n').next().unwrap_or("");
        if self.cursor >= self.text.len() && !last.is_empty() && line_width_fills(last, width) {
            n += 1;
        }
        n.min(cap)
    }
}

/// `text` laid out in rows of `width` columns (a new row at each newline and where the next
/// character would pass the edge), and where byte `cursor` is: (row, column).
#[cfg(test)]
fn layout(text: &str, cursor: usize, width: usize) -> (Vec<String>, (usize, usize)) {
    let mut rows = vec![String::new()];
    let (_, at) = walk(text, cursor, width, |row, c| {
        if rows.len() <= row {
            rows.resize(row + 1, String::new());
        }
        if let Some(c) = c {
            rows[row].push(c);
        }
    });
    (rows, at)
}

/// Lays `text` out (rows as the composer shows them) without keeping it: `put(row, char)` for each character
/// shown (`None` for a row that starts empty). Returns the rows and the cursor's place.
fn walk(
    text: &str,
    cursor: usize,
    width: usize,
    mut put: impl FnMut(usize, Option<char>),
) -> (usize, (usize, usize)) {
    let width = width.max(1);
    let mut row = 0;
    let mut col = 0;
    let mut at = (0, 0);
    for (i, c) in text.char_indices() {
        if i == cursor {
            at = (row, col);
        }
        if c == '\n' {
            row += 1;
            col = 0;
            put(row, None);
            continue;
        }
        let c = shown_char(c);
        let cw = c.width().unwrap_or(0);
        if col + cw > width {
            row += 1;
            col = 0;
        }
        put(row, Some(c));
        col += cw;
    }
    if cursor >= text.len() {
        if col >= width {
            row += 1;
            col = 0;
            put(row, None);
        }
        at = (row, col);
    }
    (row + 1, at)
}

fn shown_char(c: char) -> char {
    if c == '\t' || c.is_control() {
        ' '
    } else {
        c
    }
}

/// Rows one line (no newline in it) takes at `width`, counting no further than `cap`.
fn rows_in(line: &str, width: usize, cap: usize) -> usize {
    let mut rows = 1;
    let mut col = 0;
    for c in line.chars() {
        let cw = shown_char(c).width().unwrap_or(0);
        if col + cw > width {
            rows += 1;
            col = 0;
            if rows >= cap {
                return cap;
            }
        }
        col += cw;
    }
    rows
}

/// Whether `line`'s last row is full at `width` (a cursor after it wraps to a new row).
fn line_width_fills(line: &str, width: usize) -> bool {
    let mut col = 0;
    for c in line.chars() {
        let cw = shown_char(c).width().unwrap_or(0);
        if col + cw > width {
            col = 0;
        }
        col += cw;
    }
    col >= width
}

/// The byte index of column `col` (in chars) of the line `start..end`, or its end.
fn column_in(text: &str, start: usize, end: usize, col: usize) -> usize {
    text[start..end]
        .char_indices()
        .nth(col)
        .map_or(end, |(i, _)| start + i)
}

#[cfg(test)]
#[path = "composer_tests.rs"]
mod tests;
