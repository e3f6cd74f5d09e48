//! Cuts the user's own lines into the pieces a standing instruction may be, a whole line less
//! its list marker or one whole sentence of it, and checks that any extractor's candidate is
//! such a piece. Sentences end at `.`, `!`, `?` followed by a space (not after "e.g." and the
//! like) and at `。`, `！`, `？`; commas and semicolons never cut.

use super::quoted::Line;

/// One sentence of the user's own words: byte range in the prompt and the line it sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub start: usize,
    pub end: usize,
    /// Index into the classified lines.
    pub line: usize,
    /// The line starts with a list marker (`-`, `*`, `1.`, `1)`, `1、`…).
    pub list_item: bool,
    /// The line is a markdown heading (`## House rules`): a title, not a rule.
    pub heading: bool,
}

const ASCII_ENDS: &[char] = &['.', '!', '?'];
const WIDE_ENDS: &[char] = &['。', '！', '？', '｡'];
/// What may follow a sentence's final mark and still belong to it.
const CLOSERS: &[char] = &[
    ')', '"', '\'', '”', '’', ']', '»', '*', '_', '」', '』', '）', '`',
];
/// Abbreviations after which a period never ends a sentence.
const NEVER_ENDS: &[&str] = &[
    "e.g", "i.e", "eg", "ie", "vs", "cf", "viz", "mr", "mrs", "dr",
];
/// Abbreviations after which a period ends a sentence only before a capital letter.
const MAYBE_ENDS: &[&str] = &[
    "etc", "approx", "incl", "resp", "esp", "no", "nr", "fig", "al", "ca", "min", "max", "ref",
    "sec", "ver", "v", "ex", "excl", "e",
];

/// Bytes taken by a list marker at the start of `trimmed`, with the spaces after it and a task
/// checkbox (`[ ]`, `[x]`); 0 when there is none. Headings (`## `) count as markers too.
pub(crate) fn list_marker_len(trimmed: &str) -> usize {
    let marker = marker_len(trimmed);
    if marker == 0 {
        return 0;
    }
    let rest = &trimmed[marker..];
    let after_space = rest.len() - rest.trim_start().len();
    let rest = rest.trim_start();
    let checkbox = ["[ ]", "[x]", "[X]"]
        .iter()
        .find(|b| rest.starts_with(**b))
        .map_or(0, |b| {
            let tail = &rest[b.len()..];
            b.len() + tail.len() - tail.trim_start().len()
        });
    marker + after_space + checkbox
}

/// The marker itself, without the spaces after it.
fn marker_len(s: &str) -> usize {
    let Some(first) = s.chars().next() else {
        return 0;
    };
    // A marker counts only when a space follows it: "-x" and "1.5" are not list items.
    let spaced = |n: usize| {
        if s[n..].starts_with(char::is_whitespace) {
            n
        } else {
            0
        }
    };
    match first {
        '-' | '*' | '+' | '•' | '·' | '–' | '▪' | '◦' => spaced(first.len_utf8()),
        '#' => {
            let n = s.chars().take_while(|&c| c == '#').count();
            if n <= 6 {
                spaced(n)
            } else {
                0
            }
        }
        '①'..='⑳' => first.len_utf8(),
        '(' | '（' => {
            let inner = &s[first.len_utf8()..];
            let digits = inner.chars().take_while(char::is_ascii_digit).count();
            let close = inner[digits..].chars().next();
            match close {
                Some(c @ (')' | '）')) if (1..=3).contains(&digits) => {
                    first.len_utf8() + digits + c.len_utf8()
                }
                _ => 0,
            }
        }
        c if c.is_ascii_digit() => {
            let digits = s.chars().take_while(char::is_ascii_digit).count();
            match s[digits..].chars().next() {
                Some('.' | ')') if digits <= 3 => spaced(digits + 1),
                Some(c @ ('、' | '．')) if digits <= 3 => digits + c.len_utf8(),
                _ => 0,
            }
        }
        c if c.is_ascii_lowercase() => match s[1..].chars().next() {
            Some(')') => spaced(2),
            _ => 0,
        },
        _ => 0,
    }
}

/// Every sentence of the user's own lines, in prompt order.
pub(crate) fn pieces(lines: &[Line<'_>]) -> Vec<Piece> {
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.quoted {
            continue;
        }
        let lead = line.text.len() - line.text.trim_start().len();
        let marker = list_marker_len(&line.text[lead..]);
        let content_start = lead + marker;
        for (s, e) in split_sentences(&line.text[content_start..]) {
            out.push(Piece {
                start: line.start + content_start + s,
                end: line.start + content_start + e,
                line: index,
                list_item: marker > 0 && !line.text[lead..].starts_with('#'),
                heading: marker > 0 && line.text[lead..].starts_with('#'),
            });
        }
    }
    out
}

/// Byte ranges of the sentences of one line, trimmed of whitespace, empty ones left out.
pub(crate) fn split_sentences(text: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut seg = 0;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if let Some(close) = quote_close(c) {
            // Inline code and quotations never end a sentence: "no `println!` left behind",
            // `he wrote "Never do X. Always do Y." and I disagree`.
            let from = i + c.len_utf8();
            if let Some(at) = text[from..].find(close) {
                while iter.peek().is_some_and(|&(j, _)| j < from + at) {
                    iter.next();
                }
                iter.next();
                continue;
            }
        }
        let wide = WIDE_ENDS.contains(&c);
        if !wide && !ASCII_ENDS.contains(&c) {
            continue;
        }
        let mut end = i + c.len_utf8();
        let mut run = 1;
        while let Some(&(j, d)) = iter.peek() {
            if ASCII_ENDS.contains(&d) || WIDE_ENDS.contains(&d) {
                run += 1;
            } else if !CLOSERS.contains(&d) {
                break;
            }
            end = j + d.len_utf8();
            iter.next();
        }
        let next = text[end..].chars().next();
        let cut = if wide {
            true
        } else {
            match next {
                None => true,
                Some(n) if n.is_whitespace() => ends_sentence(text, i, c, run, &text[end..]),
                Some(_) => false,
            }
        };
        if cut {
            ranges.push((seg, end));
            seg = end;
        }
    }
    ranges.push((seg, text.len()));
    ranges
        .into_iter()
        .filter_map(|(s, e)| trim_range(text, s, e))
        .collect()
}

/// The closing mark of a span that is never cut: inline code and double quotes.
fn quote_close(c: char) -> Option<char> {
    match c {
        '`' => Some('`'),
        '"' => Some('"'),
        '“' => Some('”'),
        '「' => Some('」'),
        _ => None,
    }
}

/// Whether the mark `c` at byte `i` (the first of `run` marks) ends a sentence, given the text
/// after it.
fn ends_sentence(text: &str, i: usize, c: char, run: usize, after: &str) -> bool {
    let next_upper = after
        .trim_start()
        .chars()
        .next()
        .is_none_or(|n| !n.is_lowercase());
    if c != '.' {
        return true;
    }
    if run > 1 {
        // An ellipsis goes on unless a new sentence visibly starts.
        return next_upper;
    }
    let before = &text[..i];
    let word_start = before
        .char_indices()
        .rev()
        .find(|&(_, ch)| !(ch.is_ascii_alphabetic() || ch == '.'))
        .map_or(0, |(p, ch)| p + ch.len_utf8());
    let word = before[word_start..].to_ascii_lowercase();
    if NEVER_ENDS.contains(&word.as_str()) {
        return false;
    }
    if MAYBE_ENDS.contains(&word.as_str()) {
        return next_upper;
    }
    let initial = word.len() == 1
        && before[word_start..]
            .chars()
            .all(|ch| ch.is_ascii_uppercase());
    !initial
}

fn trim_range(text: &str, s: usize, e: usize) -> Option<(usize, usize)> {
    let piece = &text[s..e];
    let lead = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
    (!trimmed.is_empty()).then_some((s + lead, s + lead + trimmed.len()))
}

/// Whether `candidate` (already a verbatim substring) occurs somewhere in the prompt as a whole
/// line or whole sentence of the user's own words: inside one unquoted line, starting at the
/// line's text (after any list marker) or after a sentence's end, and ending at the line's end
/// or at a sentence's end (its final mark may be left off).
pub(crate) fn is_own_whole_cut(prompt: &str, lines: &[Line<'_>], candidate: &str) -> bool {
    if candidate.is_empty() || candidate.contains(['\n', '\r']) {
        return false;
    }
    prompt.match_indices(candidate).any(|(at, _)| {
        let index = lines.partition_point(|l| l.start <= at).saturating_sub(1);
        let Some(line) = lines.get(index) else {
            return false;
        };
        let from = at - line.start;
        let to = from + candidate.len();
        !line.quoted
            && to <= line.text.len()
            && starts_whole(&line.text[..from])
            && ends_whole(candidate, &line.text[to..])
    })
}

fn starts_whole(before: &str) -> bool {
    let lead = before.trim_start();
    if lead.is_empty() || list_marker_len(lead) == lead.len() {
        return true;
    }
    let spaced = before.ends_with(char::is_whitespace);
    let mark = before
        .trim_end()
        .trim_end_matches(CLOSERS)
        .chars()
        .next_back();
    match mark {
        Some(m) if WIDE_ENDS.contains(&m) || "；：…".contains(m) => true,
        Some(m) if ASCII_ENDS.contains(&m) || m == ';' || m == ':' => spaced,
        _ => false,
    }
}

fn ends_whole(candidate: &str, after: &str) -> bool {
    if after.trim().is_empty() {
        return true;
    }
    let last = candidate.trim_end_matches(CLOSERS).chars().next_back();
    let ends_marked = last.is_some_and(|m| ASCII_ENDS.contains(&m) || m == ';' || m == ':');
    if ends_marked && after.starts_with(char::is_whitespace) {
        return true;
    }
    if last.is_some_and(|m| WIDE_ENDS.contains(&m) || "；：".contains(m)) {
        return true;
    }
    // The candidate left off its sentence's final mark: "Use tabs" out of "Use tabs. Thanks".
    let mut rest = after.chars();
    match rest.next() {
        Some(m) if ASCII_ENDS.contains(&m) || WIDE_ENDS.contains(&m) || ";；:：".contains(m) => {
            let tail = rest.as_str().trim_start_matches(CLOSERS);
            tail.is_empty() || tail.starts_with(char::is_whitespace) || WIDE_ENDS.contains(&m)
        }
        _ => false,
    }
}
