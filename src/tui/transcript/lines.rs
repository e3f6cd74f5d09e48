//! Turning a transcript into screen lines at a given width: word wrapping by display width,
//! the dividers, the answer (Markdown, `markdown`), tool calls (`tool_lines`), refusals, and
//! the turn's last line: how it ended, its model and context, and what it took (elapsed time,
//! tokens, money where the CLI reports it), ticking while it runs. Pure: the same transcript
//! and width give the same lines.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::client::render::{cost_text, denial_text, thousands};
use crate::protocol::views::ForkedView;
use crate::tui::app::{LineCache, TurnSpan};
use crate::tui::transcript::{markdown, tool_lines, Part, Transcript, TurnEnd, TurnEntry};
use crate::words::{duration_text, OpenReason, TimeText, TurnStatus};

/// Replaces what would corrupt the screen (control characters, escape sequences) and expands
/// tabs: a CLI's output is not trusted to be clean text.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("    "),
            '\n' => out.push('\n'),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn width_of(c: char) -> usize {
    c.width().unwrap_or(0)
}

pub fn str_width(s: &str) -> usize {
    s.chars().map(width_of).sum()
}

/// Cuts `s` to at most `max` columns, ending in `…` when something was cut.
pub fn truncate(s: &str, max: usize) -> String {
    if str_width(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = width_of(c);
        if w + cw + 1 > max {
            break;
        }
        out.push(c);
        w += cw;
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// Wraps one logical line (no newlines) to `width` columns, breaking at spaces when it can and
/// inside words when it must.
pub fn wrap_line(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut row_w = 0;
    for word in line.split_inclusive(' ') {
        let ww = str_width(word);
        let trimmed_w = str_width(word.trim_end_matches(' '));
        if trimmed_w == 0 {
            // Spaces never start a new row; at a wrap point they vanish, while the leading
            // spaces of the line itself (indentation) stay.
            if row_w > 0 || rows.is_empty() {
                row.push_str(word);
                row_w += ww;
            }
            continue;
        }
        if row_w + trimmed_w > width && row_w > 0 {
            rows.push(std::mem::take(&mut row).trim_end().to_string());
            row_w = 0;
        }
        if trimmed_w > width {
            // A word longer than the row: break it by characters.
            for c in word.chars() {
                let cw = width_of(c);
                if row_w + cw > width && row_w > 0 {
                    rows.push(std::mem::take(&mut row));
                    row_w = 0;
                }
                row.push(c);
                row_w += cw;
            }
            continue;
        }
        row.push_str(word);
        row_w += ww;
    }
    rows.push(row.trim_end().to_string());
    rows
}

/// Screen rows, and which of them go on from the row before (wrapped here at a space, not a
/// line break of the text): copy mode joins those back.
#[derive(Debug, Clone, Default)]
pub struct Rows {
    pub lines: Vec<Line<'static>>,
    pub soft: Vec<bool>,
}

impl Rows {
    fn push(&mut self, line: Line<'static>) {
        self.push_row(line, false);
    }

    pub(super) fn push_row(&mut self, line: Line<'static>, soft: bool) {
        self.lines.push(line);
        self.soft.push(soft);
    }
}

/// Wraps multi-line text: the first row starts with `indent`, the others with as many spaces.
fn wrapped(text: &str, width: usize, indent: &str, style: Style, out: &mut Rows) {
    let indent_w = str_width(indent);
    let inner = width.saturating_sub(indent_w).max(1);
    let mut lead = indent.to_string();
    for logical in clean(text).split('\n') {
        for (k, row) in wrap_line(logical, inner).into_iter().enumerate() {
            let line = Line::from(vec![
                Span::styled(std::mem::replace(&mut lead, " ".repeat(indent_w)), style),
                Span::styled(row, style),
            ]);
            out.push_row(line, k > 0);
        }
    }
}

/// `── text ─────` across the width.
fn rule(text: &str, width: usize, style: Style) -> Line<'static> {
    let head = truncate(&format!("── {text} "), width);
    let fill = width.saturating_sub(str_width(&head));
    Line::from(Span::styled(format!("{head}{}", "─".repeat(fill)), style))
}

fn opened_text(conversation: u32, reason: OpenReason, rotate_at: f64) -> String {
    match reason {
        OpenReason::First => format!("conversation {conversation}"),
        OpenReason::Size => format!(
            "conversation {conversation} · rotated: the last one passed {:.0}% of the window",
            rotate_at * 100.0
        ),
        OpenReason::Moved => format!("conversation {conversation} · the directory moved"),
        OpenReason::Manual => format!("conversation {conversation} · fresh, as asked"),
        OpenReason::Fork => format!("conversation {conversation} · forked"),
        OpenReason::Rewind => format!("conversation {conversation} · rewound"),
    }
}

/// The one line that ends a turn.
pub fn summary_text(t: &TurnEntry, end: &TurnEnd) -> String {
    let mut parts = vec![end.status.as_str().to_string()];
    parts.push(match &end.model {
        Some(m) => format!("{}/{m}", t.provider),
        None => t.provider.clone(),
    });
    match &end.context {
        Some(c) => {
            parts.push(format!(
                "context {:.1}% of {}",
                c.fraction() * 100.0,
                thousands(c.window)
            ));
            if end.rotates_next {
                parts.push("the next prompt opens a fresh conversation".into());
            }
        }
        None => parts.push("context not reported".into()),
    }
    if let Some(ms) = end.elapsed_ms {
        parts.push(duration_text(ms, TimeText::TenthsThenMinutes));
    }
    if let Some(cost) = &end.cost {
        parts.push(cost_text(cost));
    }
    parts.join(" · ")
}

/// The line of a running turn: `… working · 12 s · 6,003 tokens in context` (the time up to
/// the last tick, in whole seconds; tokens once a model call reported them).
pub fn running_text(t: &TurnEntry) -> String {
    let mut parts = vec!["… working".to_string()];
    if let (Some(start), Some(now)) = (t.started, t.now) {
        let ms = u64::try_from((now - start).num_milliseconds()).unwrap_or(0);
        parts.push(duration_text(ms, TimeText::WholeThenMinutes));
    }
    if let Some(tokens) = t.tokens {
        parts.push(format!("{} tokens in context", thousands(tokens)));
    }
    parts.join(" · ")
}

/// "forked from api at turn 7" / "rewound from api before turn 3": the top of a transcript.
pub fn forked_from_text(f: &ForkedView) -> String {
    if f.rewind {
        format!("rewound from {} before turn {}", f.name, f.turn)
    } else {
        format!("forked from {} at turn {}", f.name, f.turn)
    }
}

/// "set-up `npm ci`: failed (exit code 3)" and its notes: a terminal's worktree set-up, over
/// its first turn (from `log`) or in its empty pane (from its live view).
pub fn setup_text(s: &crate::protocol::views::SetupView) -> String {
    let mut text = format!("set-up {}", crate::client::render_life::setup_state(s));
    for n in &s.notes {
        text.push_str(&format!(" · {n}"));
    }
    text
}

/// What the transcript adds around one turn: the title of the conversation it opens, and the
/// lines of the forks that branched there.
#[derive(Debug, Default)]
struct Marks {
    title: Option<String>,
    before: Vec<String>,
    after: Vec<String>,
}

/// The marks of turn `k` of `t`.
fn marks(t: &Transcript, k: usize) -> Marks {
    let Some(turn) = t.turns.get(k) else {
        return Marks::default();
    };
    let mut m = Marks {
        title: t.title(turn.conversation).map(str::to_string),
        ..Marks::default()
    };
    if k == 0 {
        m.before
            .extend(t.forked_from.as_ref().map(forked_from_text));
        m.before.extend(t.setup.as_ref().map(setup_text));
    }
    for f in &t.forked_into {
        if f.rewind && f.turn == turn.number {
            m.before
                .push(format!("↳ rewound into {} (before this turn)", f.name));
        } else if !f.rewind && (f.turn == turn.number || (f.turn == 0 && k == 0)) {
            m.after.push(format!("↳ forked into {}", f.name));
        }
    }
    m
}

fn turn_lines(t: &TurnEntry, marks: &Marks, width: usize, expand: bool, out: &mut Rows) {
    let divider = Style::default().fg(Color::Yellow);
    let branch = Style::default().fg(Color::Magenta);
    for text in &marks.before {
        wrapped(text, width, "", branch, out);
    }
    if let Some(reason) = t.opened {
        let mut text = opened_text(t.conversation, reason, t.rotate_at);
        if let Some(title) = &marks.title {
            text = format!("{text} · {}", clean(title).replace('\n', " "));
        }
        out.push(rule(&text, width, divider));
    } else if t.switched {
        let text = format!("provider switched to {} · same conversation", t.provider);
        out.push(rule(&text, width, divider));
    }
    let prompt_style = Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD);
    let prompt = t.prompt.as_deref().unwrap_or("…");
    let mut first = true;
    for logical in clean(prompt).split('\n') {
        let rows = wrap_line(logical, width.saturating_sub(2).max(1));
        for (k, row) in rows.into_iter().enumerate() {
            let lead = if first { "› " } else { "  " };
            first = false;
            let line = Line::from(vec![
                Span::styled(lead.to_string(), prompt_style),
                Span::styled(row, prompt_style),
            ]);
            out.push_row(line, k > 0);
        }
    }
    let dim = Style::default().fg(Color::DarkGray);
    let warn = Style::default().fg(Color::Yellow);
    for part in &t.parts {
        match part {
            Part::Text(text) => markdown::render(text, width, out),
            Part::Tool(tool) => tool_lines::tool_lines(tool, 0, width, expand, out),
            Part::Note(s) => wrapped(&format!("note: {s}"), width, "  ", dim, out),
            Part::Warning(s) => wrapped(s, width, "  ! ", warn, out),
            Part::Denied { tool, target } => {
                wrapped(&denial_text(tool, target), width, "  ! ", warn, out)
            }
        }
    }
    match &t.end {
        None => out.push(Line::from(Span::styled(
            format!("  {}", running_text(t)),
            dim,
        ))),
        Some(end) => {
            let style = match end.status {
                TurnStatus::Completed => dim,
                TurnStatus::Failed => Style::default().fg(Color::Red),
                TurnStatus::Interrupted => Style::default().fg(Color::Yellow),
            };
            wrapped(&summary_text(t, end), width, "── ", style, out);
            if end.status != TurnStatus::Completed {
                if let Some(e) = &end.error {
                    wrapped(e, width, "   ", style, out);
                }
            }
        }
    }
    for text in &marks.after {
        wrapped(text, width, "", branch, out);
    }
    out.push(Line::default());
}

/// Every line of the transcript at `width` columns.
pub fn transcript_lines(t: &Transcript, width: u16, expand_tools: bool) -> Vec<Line<'static>> {
    transcript_rows(t, width, expand_tools).lines
}

/// The same, with which rows were wrapped here.
pub fn transcript_rows(t: &Transcript, width: u16, expand_tools: bool) -> Rows {
    let width = usize::from(width).max(1);
    let mut out = Rows::default();
    for (k, turn) in t.turns.iter().enumerate() {
        turn_lines(turn, &marks(t, k), width, expand_tools, &mut out);
    }
    out
}

/// Brings `cache` to the transcript of terminal `name` at `width`: nothing when nothing changed,
/// else only the turns whose `rev` moved (or that came or went) are wrapped again, so a streaming
/// answer costs one turn per chunk, not the whole history.
pub fn rewrap(cache: &mut LineCache, name: &str, t: &Transcript, width: u16, expand: bool) {
    let key = (name.to_string(), t.version, width, expand);
    if cache.key.as_ref() == Some(&key) {
        return;
    }
    let same_shape = cache
        .key
        .as_ref()
        .is_some_and(|(n, _, w, e)| n == name && *w == width && *e == expand);
    if !same_shape {
        let wrapped = cache.wrapped;
        *cache = LineCache {
            wrapped,
            ..LineCache::default()
        };
    }
    cache.key = Some(key);
    let cols = usize::from(width).max(1);
    let old = std::mem::take(&mut cache.turns);
    let mut offset = 0;
    for (k, turn) in t.turns.iter().enumerate() {
        let kept = old.get(k).copied();
        if let Some(span) = kept.filter(|s| s.number == turn.number && s.rev == turn.rev) {
            offset += span.len;
            cache.turns.push(span);
            continue;
        }
        let mut rows = Rows::default();
        turn_lines(turn, &marks(t, k), cols, expand, &mut rows);
        cache.wrapped += 1;
        let len = rows.lines.len();
        let end = (offset + kept.map_or(0, |s| s.len)).min(cache.lines.len());
        let start = offset.min(end);
        cache.lines.splice(start..end, rows.lines);
        cache
            .soft
            .splice(start..end.min(cache.soft.len()), rows.soft);
        cache.turns.push(TurnSpan {
            number: turn.number,
            rev: turn.rev,
            len,
        });
        offset += len;
    }
    cache.lines.truncate(offset);
    cache.soft.truncate(offset);
}

/// A context meter `cells` wide: filled up to the share used (`context`: the share, and whether
/// the server said it passed the line), with the rotation line `rotate_at` marked.
pub fn meter(context: Option<(f64, bool)>, rotate_at: f64, cells: usize) -> Vec<Span<'static>> {
    let Some((f, over)) = context else {
        return vec![Span::styled(
            format!("{:cells$}", "ctx –"),
            Style::default().fg(Color::DarkGray),
        )];
    };
    let f = f.clamp(0.0, 1.0);
    let filled = (f * cells as f64).round() as usize;
    let line = ((rotate_at * cells as f64).round() as usize).min(cells.saturating_sub(1));
    let bar_style = Style::default().fg(if over { Color::Red } else { Color::Green });
    let mut spans = Vec::new();
    for i in 0..cells {
        let (sym, style) = if i == line {
            ("┃", Style::default().fg(Color::Yellow))
        } else if i < filled {
            ("█", bar_style)
        } else {
            ("·", Style::default().fg(Color::DarkGray))
        };
        spans.push(Span::styled(sym, style));
    }
    spans.push(Span::raw(format!("{:>4.0}%", f * 100.0)));
    spans
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;
