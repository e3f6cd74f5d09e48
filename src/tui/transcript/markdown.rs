//! An answer's Markdown drawn as styled, wrapped lines: headings, emphasis, inline code, links,
//! lists, quotes, rules and fenced code blocks with a simple highlight. Pure.
//!
//! Decisions: a small line-by-line renderer rather than a CommonMark crate: answers stream in
//! pieces, so a half-written piece (an open fence, an unclosed `**`) must draw sensibly at every
//! step, and what the CLIs write is the common subset. Markers are dropped where they are
//! understood (`#`, `**`, backticks, a fence's lines) and kept where they are not, so no text
//! is ever lost; a fence never closed runs to the end of the piece. Code is not wrapped at
//! words (it is broken by characters, like a terminal would) and its highlight knows only
//! comments, strings, numbers and a shared list of keywords: no language grammar.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::lines::{clean, str_width, Rows};

/// A run of text in one style.
type Seg = (String, Style);

fn code_style() -> Style {
    Style::default().fg(Color::Cyan)
}

/// The styled pieces of one line of prose: `**bold**`, `*italic*`/`_italic_`, `` `code` ``,
/// `[text](url)` (the text, the address dimmed after it).
pub fn inline(text: &str, base: Style) -> Vec<Seg> {
    let chars: Vec<char> = text.chars().collect();
    let mut segs: Vec<Seg> = Vec::new();
    let mut plain = String::new();
    let mut bold = false;
    let mut italic = false;
    let style = |bold: bool, italic: bool| {
        let mut s = base;
        if bold {
            s = s.add_modifier(Modifier::BOLD);
        }
        if italic {
            s = s.add_modifier(Modifier::ITALIC);
        }
        s
    };
    let flush = |plain: &mut String, segs: &mut Vec<Seg>, s: Style| {
        if !plain.is_empty() {
            segs.push((std::mem::take(plain), s));
        }
    };
    let closes = |from: usize, pat: &[char]| -> Option<usize> {
        (from..chars.len().saturating_sub(pat.len() - 1)).find(|&j| chars[j..].starts_with(pat))
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let word_start = i == 0 || !chars[i - 1].is_alphanumeric();
        if c == '`' {
            if let Some(j) = closes(i + 1, &['`']) {
                flush(&mut plain, &mut segs, style(bold, italic));
                segs.push((chars[i + 1..j].iter().collect(), code_style()));
                i = j + 1;
                continue;
            }
        } else if (c == '*' || c == '_') && chars.get(i + 1) == Some(&c) {
            if bold || closes(i + 2, &[c, c]).is_some() {
                flush(&mut plain, &mut segs, style(bold, italic));
                bold = !bold;
                i += 2;
                continue;
            }
        } else if (c == '*' || (c == '_' && (italic || word_start)))
            && (italic || chars.get(i + 1).is_some_and(|n| !n.is_whitespace()))
            && (italic || closes(i + 1, &[c]).is_some())
        {
            flush(&mut plain, &mut segs, style(bold, italic));
            italic = !italic;
            i += 1;
            continue;
        } else if c == '[' {
            if let Some(link) = link_at(&chars, i) {
                flush(&mut plain, &mut segs, style(bold, italic));
                let (label, url, end) = link;
                let under = style(bold, italic).add_modifier(Modifier::UNDERLINED);
                segs.push((label, under));
                segs.push((format!(" ({url})"), Style::default().fg(Color::DarkGray)));
                i = end;
                continue;
            }
        }
        plain.push(c);
        i += 1;
    }
    flush(&mut plain, &mut segs, style(bold, italic));
    segs
}

/// `[label](url)` starting at `i`: the label, the url and the index after it.
fn link_at(chars: &[char], i: usize) -> Option<(String, String, usize)> {
    let close = (i + 1..chars.len()).find(|&j| chars[j] == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = (close + 2..chars.len()).find(|&j| chars[j] == ')')?;
    let label: String = chars[i + 1..close].iter().collect();
    let url: String = chars[close + 2..end].iter().collect();
    (!label.is_empty() && !url.contains(' ')).then_some((label, url, end + 1))
}

/// Wraps styled pieces to `width`: the first row starts with `lead`, the others with `hang`
/// (both counted in the width). Breaks at spaces, inside a word only when it must.
pub fn wrap_segs(segs: &[Seg], width: usize, lead: Seg, hang: &str, out: &mut Rows) {
    let width = width.max(str_width(&lead.0) + 1);
    let mut rows: Vec<Vec<Span<'static>>> = vec![vec![Span::styled(lead.0.clone(), lead.1)]];
    let mut row_w = str_width(&lead.0);
    let start_w = row_w;
    let hang_w = str_width(hang);
    let new_row = |rows: &mut Vec<Vec<Span<'static>>>, row_w: &mut usize| {
        // The spaces a row ends on vanish at the wrap.
        if let Some(last) = rows.last_mut().and_then(|r| r.last_mut()) {
            let kept = last.content.trim_end_matches(' ').len();
            last.content.to_mut().truncate(kept);
        }
        rows.push(vec![Span::styled(hang.to_string(), lead.1)]);
        *row_w = hang_w;
    };
    for (text, style) in segs {
        for word in text.split_inclusive(' ') {
            let trimmed = word.trim_end_matches(' ');
            let w = str_width(trimmed);
            let at_start = row_w == start_w || row_w == hang_w;
            if row_w + w > width && !at_start {
                new_row(&mut rows, &mut row_w);
                if trimmed.is_empty() {
                    continue;
                }
            }
            if row_w + w > width {
                // Longer than a row: broken by characters.
                for c in word.chars() {
                    let cw = str_width(&c.to_string());
                    if row_w + cw > width {
                        new_row(&mut rows, &mut row_w);
                    }
                    push(&mut rows, c.to_string(), *style);
                    row_w += cw;
                }
                continue;
            }
            push(&mut rows, word.to_string(), *style);
            row_w += str_width(word);
        }
    }
    for (k, row) in rows.into_iter().enumerate() {
        out.push_row(Line::from(row), k > 0);
    }
}

/// Adds `text` to the last row, joined to the span before it when the style is the same.
pub fn push(rows: &mut [Vec<Span<'static>>], text: String, style: Style) {
    let Some(row) = rows.last_mut() else {
        return;
    };
    let joined = row.len() > 1;
    match row.last_mut() {
        Some(last) if last.style == style && joined => last.content.to_mut().push_str(&text),
        _ => row.push(Span::styled(text, style)),
    }
}

/// A fence line (```` ``` ```` or `~~~`, any info after it): its marker.
fn fence(line: &str) -> Option<&'static str> {
    let t = line.trim_start();
    if t.starts_with("```") {
        Some("```")
    } else if t.starts_with("~~~") {
        Some("~~~")
    } else {
        None
    }
}

/// A list item: its marker as drawn and its text.
fn list_item(line: &str) -> Option<(String, &str)> {
    let indent = line.len() - line.trim_start().len();
    let t = line.trim_start();
    let pad = " ".repeat(indent.min(8));
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = t.strip_prefix(bullet) {
            return Some((format!("{pad}• "), rest));
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let rest = &t[digits..];
    if digits > 0 && digits < 4 {
        for sep in [". ", ") "] {
            if let Some(text) = rest.strip_prefix(sep) {
                return Some((format!("{pad}{}{sep}", &t[..digits]), text));
            }
        }
    }
    None
}

/// Draws `text` as Markdown at `width` columns.
pub fn render(text: &str, width: usize, out: &mut Rows) {
    let text = clean(text);
    let mut in_code: Option<&str> = None;
    let plain = Style::default();
    for line in text.split('\n') {
        if let Some(marker) = in_code {
            if line.trim_start().starts_with(marker) && line.trim() == marker {
                in_code = None;
            } else {
                code_line(line, width, out);
            }
            continue;
        }
        if let Some(marker) = fence(line) {
            in_code = Some(marker);
            continue;
        }
        let t = line.trim_start();
        let hashes = t.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            let mut style = Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD);
            if hashes == 1 {
                style = style.add_modifier(Modifier::UNDERLINED);
            }
            let segs = inline(t[hashes..].trim().trim_end_matches('#').trim_end(), style);
            wrap_segs(&segs, width, (String::new(), style), "", out);
        } else if !t.is_empty()
            && t.chars().all(|c| c == '-' || c == '*' || c == '_')
            && t.len() >= 3
        {
            let rule = "─".repeat(width.min(40));
            out.push_row(
                Line::from(Span::styled(rule, Style::default().fg(Color::DarkGray))),
                false,
            );
        } else if let Some(rest) = t.strip_prefix('>') {
            let style = Style::default()
                .fg(Color::DarkGray)
                .add_modifier(Modifier::ITALIC);
            let segs = inline(rest.trim_start(), style);
            wrap_segs(&segs, width, ("│ ".into(), style), "│ ", out);
        } else if let Some((marker, rest)) = list_item(line) {
            let hang = " ".repeat(str_width(&marker));
            wrap_segs(&inline(rest, plain), width, (marker, plain), &hang, out);
        } else {
            wrap_segs(&inline(line, plain), width, (String::new(), plain), "", out);
        }
    }
}

/// Words most languages the CLIs write highlight as keywords.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "class", "const", "continue", "def", "else", "elif", "enum",
    "export", "false", "fn", "for", "from", "func", "function", "if", "impl", "import", "in",
    "let", "loop", "match", "mod", "mut", "None", "null", "pub", "return", "self", "static",
    "struct", "trait", "true", "type", "use", "var", "where", "while", "with",
];

/// The highlighted pieces of one line of code.
pub fn highlight(line: &str) -> Vec<Seg> {
    let base = Style::default().fg(Color::White);
    let comment = Style::default().fg(Color::DarkGray);
    let string = Style::default().fg(Color::Green);
    let keyword = Style::default().fg(Color::Magenta);
    let number = Style::default().fg(Color::Cyan);
    let chars: Vec<char> = line.chars().collect();
    let mut segs: Vec<Seg> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let rest: String = chars[i..].iter().collect();
        if rest.starts_with("//") || (c == '#' && (i == 0 || chars[i - 1] == ' ')) {
            segs.push((rest, comment));
            break;
        }
        if c == '"' || c == '\'' {
            let end = (i + 1..chars.len())
                .find(|&j| chars[j] == c && chars[j - 1] != '\\')
                .map_or(chars.len(), |j| j + 1);
            segs.push((chars[i..end].iter().collect(), string));
            i = end;
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let end = (i..chars.len())
                .find(|&j| !(chars[j].is_alphanumeric() || chars[j] == '_'))
                .unwrap_or(chars.len());
            let word: String = chars[i..end].iter().collect();
            let style = if KEYWORDS.contains(&word.as_str()) {
                keyword
            } else if c.is_ascii_digit() {
                number
            } else {
                base
            };
            segs.push((word, style));
            i = end;
            continue;
        }
        segs.push((c.to_string(), base));
        i += 1;
    }
    segs
}

/// One line of a code block: indented, highlighted, broken by characters at the width.
fn code_line(line: &str, width: usize, out: &mut Rows) {
    let lead = ("  ".to_string(), Style::default());
    let width = width.max(3);
    let mut rows: Vec<Vec<Span<'static>>> = vec![vec![Span::styled(lead.0.clone(), lead.1)]];
    let mut w = 2;
    for (text, style) in highlight(line) {
        for c in text.chars() {
            let cw = str_width(&c.to_string());
            if w + cw > width {
                rows.push(vec![Span::styled(lead.0.clone(), lead.1)]);
                w = 2;
            }
            push(&mut rows, c.to_string(), style);
            w += cw;
        }
    }
    for (k, row) in rows.into_iter().enumerate() {
        out.push_row(Line::from(row), k > 0);
    }
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
