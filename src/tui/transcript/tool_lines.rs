//! A tool call's lines in the transcript: `⚙ Edit src/server.rs` (one line, cut to the width),
//! and once expanded (Ctrl-t) its edits as a small red/green diff and the first lines of its
//! result; a subagent's work indented under the call that started it. Pure.
//!
//! Decisions: a collapsed call is one row, plus ` ✗` when it failed, so a long turn stays
//! readable; a subagent's steps show even collapsed (one row each: they are what the call
//! did). Expanded, a diff shows at most [`DIFF_LINES`] removed and as many added lines after
//! the lines both sides share at the start and end are left out, and a result at most
//! [`RESULT_LINES`]; what is left out is counted, never silently dropped.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::lines::{clean, str_width, truncate, wrap_line, Rows};
use super::{Part, ToolPart};
use crate::words::FileEdit;

/// Most lines of each side of an edit shown.
pub const DIFF_LINES: usize = 12;
/// Most lines of a tool's result shown.
pub const RESULT_LINES: usize = 6;

fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// One row: `lead` then `text`, cut to the width.
fn row(lead: &str, text: &str, style: Style, width: usize, out: &mut Rows) {
    let text = clean(text).replace('\n', " ");
    let cut = truncate(&text, width.saturating_sub(str_width(lead)));
    out.push_row(
        Line::from(vec![
            Span::styled(lead.to_string(), style),
            Span::styled(cut, style),
        ]),
        false,
    );
}

/// Wrapped rows: `lead` on the first, as many spaces on the others.
fn wrapped(lead: &str, text: &str, style: Style, width: usize, out: &mut Rows) {
    let inner = width.saturating_sub(str_width(lead)).max(1);
    let hang = " ".repeat(str_width(lead));
    let mut first = true;
    for logical in clean(text).split('\n') {
        for (k, r) in wrap_line(logical, inner).into_iter().enumerate() {
            let l = if first { lead } else { hang.as_str() };
            first = false;
            out.push_row(
                Line::from(vec![
                    Span::styled(l.to_string(), style),
                    Span::styled(r, style),
                ]),
                k > 0,
            );
        }
    }
}

/// The lines of one tool call at nesting `depth` (0: the turn's own).
pub fn tool_lines(tool: &ToolPart, depth: usize, width: usize, expand: bool, out: &mut Rows) {
    let pad = "  ".repeat(depth + 1);
    let lead = format!("{pad}⚙ ");
    let failed = tool.result.as_ref().is_some_and(|r| r.is_error);
    if expand {
        wrapped(&lead, &tool.summary, dim(), width, out);
    } else {
        let mark = if failed { " ✗" } else { "" };
        let room = width.saturating_sub(str_width(mark));
        row(&lead, &tool.summary, dim(), room, out);
        if failed {
            if let Some(last) = out.lines.last_mut() {
                last.spans
                    .push(Span::styled(mark, Style::default().fg(Color::Red)));
            }
        }
    }
    let inner = format!("{pad}  ");
    if expand {
        for edit in &tool.edits {
            diff_lines(edit, &inner, width, out);
        }
        if let Some(result) = &tool.result {
            let style = if result.is_error {
                Style::default().fg(Color::Red)
            } else {
                dim()
            };
            result_lines(&result.text, &inner, style, width, out);
        }
    }
    for part in &tool.nested {
        match part {
            Part::Tool(t) => tool_lines(t, depth + 1, width, expand, out),
            Part::Text(text) if expand => {
                wrapped(&format!("{inner}│ "), text, dim(), width, out);
            }
            Part::Text(text) => {
                let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                row(&format!("{inner}│ "), first, dim(), width, out);
            }
            Part::Note(_) | Part::Warning(_) | Part::Denied { .. } => {}
        }
    }
}

/// Up to [`RESULT_LINES`] of a result, then how many more there are.
fn result_lines(text: &str, pad: &str, style: Style, width: usize, out: &mut Rows) {
    let text = text.trim_end_matches('\n');
    if text.trim().is_empty() {
        row(&format!("{pad}└ "), "(no output)", dim(), width, out);
        return;
    }
    let lines: Vec<&str> = text.split('\n').collect();
    for (k, l) in lines.iter().take(RESULT_LINES).enumerate() {
        let lead = if k == 0 { "└ " } else { "  " };
        row(&format!("{pad}{lead}"), l, style, width, out);
    }
    if lines.len() > RESULT_LINES {
        let more = lines.len() - RESULT_LINES;
        let noun = if more == 1 { "line" } else { "lines" };
        row(
            &format!("{pad}  "),
            &format!("… {more} more {noun}"),
            dim(),
            width,
            out,
        );
    }
}

/// The lines `old` and `new` do not share at their start and end.
pub fn changed<'a>(old: &'a str, new: &'a str) -> (Vec<&'a str>, Vec<&'a str>) {
    let split = |s: &'a str| -> Vec<&'a str> {
        if s.is_empty() {
            Vec::new()
        } else {
            s.trim_end_matches('\n').split('\n').collect()
        }
    };
    let (a, b) = (split(old), split(new));
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (
        a[head..a.len() - tail].to_vec(),
        b[head..b.len() - tail].to_vec(),
    )
}

/// An edit as `- old` (red) and `+ new` (green) lines.
fn diff_lines(edit: &FileEdit, pad: &str, width: usize, out: &mut Rows) {
    let (removed, added) = changed(&edit.old, &edit.new);
    let red = Style::default().fg(Color::Red);
    let green = Style::default().fg(Color::Green);
    for (lines, sign, style) in [(removed, "- ", red), (added, "+ ", green)] {
        for l in lines.iter().take(DIFF_LINES) {
            row(&format!("{pad}{sign}"), l, style, width, out);
        }
        if lines.len() > DIFF_LINES {
            let more = lines.len() - DIFF_LINES;
            let text = format!("… {more} more {} lines", sign.trim());
            row(pad, &text, dim().add_modifier(Modifier::ITALIC), width, out);
        }
    }
}

#[cfg(test)]
#[path = "tool_lines_tests.rs"]
mod tests;
