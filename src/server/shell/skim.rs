//! Parsing a flood of plain lines without drawing every one of them (pure).
//!
//! `cat big.log` in a shell is mostly plain lines that scroll off long before anyone sees
//! them. What they leave behind is exact and small: the screen and the last
//! [`super::SCROLLBACK`] rows of scrollback. [`process`] feeds a batch of output to the
//! server's screen and, where the batch is a run of plain lines (printable ASCII, each ended
//! by CR LF) much longer than the screen plus its scrollback, leaves out the middle of the run,
//! which nothing can show afterwards:
//!
//! 1. The run's first `rows + 1` lines are parsed as usual. Afterwards every line of the run
//!    ends on one row (the bottom of the scroll region, or the last row when the cursor sits
//!    below the region), whatever the state before.
//! 2. On that row, a line ending either scrolls (the row is blank right after) or does not
//!    (the cursor is below the scroll region: lines overwrite one another). Only when it
//!    scrolls is anything skipped: each further line then pushes one row up, so the last
//!    `rows + scrollback` lines decide every row of the region and the scrollback; the
//!    lines before them are left out. Attributes, modes, tab stops, the saved cursor and the
//!    scroll region are untouched by plain text, so the state is exactly the one a full parse
//!    gives (a table of states checks it against full parses, including scroll regions, the
//!    alternate screen and wrapping lines).

/// Fewer lines than this left out are not worth the check.
const MIN_SKIP: usize = 256;

/// Feeds `batch` to `parser` with the same result as `parser.process(batch)`.
pub fn process<CB: vt100::Callbacks>(parser: &mut vt100::Parser<CB>, batch: &[u8]) {
    let plain = plain_prefix(batch);
    if plain > 0 {
        skim(parser, &batch[..plain]);
    }
    parser.process(&batch[plain..]);
}

/// The length of the longest start of `bytes` made of whole plain lines.
fn plain_prefix(bytes: &[u8]) -> usize {
    let mut end = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0x20..=0x7e => i += 1,
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                end = i;
            }
            _ => break,
        }
    }
    end
}

/// Feeds `run` (whole plain lines) to `parser`, leaving out the middle when it cannot matter.
fn skim<CB: vt100::Callbacks>(parser: &mut vt100::Parser<CB>, run: &[u8]) {
    let (rows, cols) = parser.screen().size();
    let (rows, cols) = (usize::from(rows.get()), cols.get());
    let keep = rows + parser.screen().scrollback_capacity();
    let head = rows + 1;
    // Each line takes at least its CR LF: a shorter run cannot have lines to leave out, and
    // the usual few bytes of output are parsed without looking for line ends.
    if run.len() < 2 * (head + keep + MIN_SKIP) {
        parser.process(run);
        return;
    }
    // Where each line ends (just after its LF).
    let ends: Vec<usize> = run
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    if ends.len() < head + keep + MIN_SKIP {
        parser.process(run);
        return;
    }
    let head_end = ends[head - 1];
    parser.process(&run[..head_end]);
    let last_line = &run[ends[head - 2]..head_end - 2];
    let screen = parser.screen();
    let (row, col) = screen.cursor_position();
    let scrolls = col == 0
        && !last_line.is_empty()
        && screen
            .rows(0, cols)
            .nth(usize::from(row))
            .is_some_and(|r| r.is_empty());
    let tail_start = if scrolls {
        ends[ends.len() - keep - 1]
    } else {
        head_end
    };
    parser.process(&run[tail_start..]);
}

#[cfg(test)]
#[path = "skim_tests.rs"]
mod tests;
