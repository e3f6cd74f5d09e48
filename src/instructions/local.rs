//! The default extractor: rules and regexes, no network, no tokens. It reads only the user's own
//! lines, cuts them into sentences, and keeps a sentence when its phrasing scores as a lasting
//! rule ("from now on", "never", "must", "I prefer", "tests go next to the code", "以后", "不要")
//! rather than a one-off task or a question.

use super::cues::TABLES;
use super::grammar::{always_never, generic_subject, use_for_category, words};
use super::quoted::{self, Line};
use super::sentences::{self, Piece};
use super::Extractor;

/// A sentence is kept when its score reaches this.
const THRESHOLD: i32 = 3;

/// The rules-and-regex extractor. Cheap to construct; the compiled patterns are shared.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalExtractor;

impl LocalExtractor {
    /// Also compiles the shared patterns, so the first prompt does not pay for it.
    pub fn new() -> Self {
        std::sync::LazyLock::force(&TABLES);
        LocalExtractor
    }
}

impl Extractor for LocalExtractor {
    fn extract(&self, prompt: &str) -> Vec<String> {
        let lines = quoted::classify(prompt);
        let contexts = list_contexts(&lines);
        let mut kept = Vec::new();
        let mut previous: Option<(Piece, bool)> = None;
        for piece in sentences::pieces(&lines) {
            let text = &prompt[piece.start..piece.end];
            let candidate = !piece.heading && !text.ends_with([':', '：']);
            let points = score(text, contexts[piece.line], &piece);
            let follows_rule = previous.is_some_and(|(prev, was_kept)| {
                was_kept && !prev.list_item && !piece.list_item && piece.line <= prev.line + 1
            });
            let keep = candidate
                && (points >= THRESHOLD || (follows_rule && points >= 0 && is_follow_up(text)));
            if keep {
                kept.push(text.to_string());
            }
            previous = Some((piece, keep));
        }
        kept
    }
}

/// Verbs that open a sentence spelling out the rule just before it: "Don't write tests that
/// depend on the date. Inject a clock." / "Never print API keys. Mask all but the last 4."
#[rustfmt::skip]
const FOLLOW_UP_VERBS: &[&str] = &[
    "use", "inject", "mask", "rebase", "pass", "wrap", "mock", "stub", "stage", "pin", "leave",
    "flag", "store", "rely", "put", "keep", "prefer", "ask", "mark", "name", "log", "return",
    "handle", "go", "work", "stick", "let", "squash", "escape", "quote", "sanitize", "redact",
    "hash", "encrypt", "lock", "batch", "paginate", "instead", "fall", "default", "reuse",
    "extend", "inherit", "import", "depend", "throw", "raise", "propagate", "bubble",
];

/// A sentence that continues the rule before it: it opens with one of [`FOLLOW_UP_VERBS`] and
/// is not a question.
fn is_follow_up(text: &str) -> bool {
    let cue = cue_text(text);
    if cue.trim_end_matches(CLOSERS).ends_with(['?', '？']) {
        return false;
    }
    let words = words(&cue);
    words
        .iter()
        .map(|w| w.0)
        .find(|w| !matches!(*w, "please" | "just" | "always" | "and" | "so"))
        .is_some_and(|w| FOLLOW_UP_VERBS.contains(&w))
}

/// What kind of list a line's list item belongs to, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListContext {
    /// Under "Conventions:", "House rules", "Please keep these in mind from now on:"…
    Rules,
    /// Under "Steps to reproduce:", "TODO:", "Acceptance criteria:"…
    Tasks,
    None,
}

/// The list context of every line: a header line sets it for the list items that follow, and
/// any other line of prose (or quoted material) ends it.
fn list_contexts(lines: &[Line<'_>]) -> Vec<ListContext> {
    let mut out = Vec::with_capacity(lines.len());
    let mut current = ListContext::None;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.text.trim();
        if trimmed.is_empty() {
            out.push(current);
            continue;
        }
        let is_item = sentences::list_marker_len(trimmed) > 0 && !trimmed.starts_with('#');
        if line.quoted {
            current = ListContext::None;
        } else if !is_item {
            current = header_kind(trimmed, lines.get(i + 1));
        }
        out.push(current);
    }
    out
}

/// A header ends with a colon, or stands right above a list without closing punctuation.
fn header_kind(trimmed: &str, next: Option<&Line<'_>>) -> ListContext {
    let before_list = next.is_some_and(|n| {
        !n.quoted
            && sentences::list_marker_len(n.text.trim()) > 0
            && !trimmed.ends_with(['.', '!', '?', '。', '？'])
    });
    let heading = trimmed.starts_with('#');
    if !(trimmed.ends_with([':', '：']) || before_list || heading) {
        return ListContext::None;
    }
    let lower = trimmed.to_lowercase();
    if TABLES.rule_header.is_match(lower.as_bytes()) {
        ListContext::Rules
    } else if TABLES.task_header.is_match(lower.as_bytes()) {
        ListContext::Tasks
    } else {
        ListContext::None
    }
}

/// How strongly a sentence reads as a lasting rule; see [`THRESHOLD`].
fn score(text: &str, context: ListContext, piece: &Piece) -> i32 {
    let cue = cue_text(text);
    let tables = &*TABLES;
    let mut score = tables.weight(&cue);
    let words = words(&cue);
    score += always_never(&words) + generic_subject(&words) + use_for_category(&words);
    let question = cue.trim_end_matches(CLOSERS).ends_with(['?', '？'])
        || tables.question_start.is_match(cue.as_bytes());
    if question {
        score -= if tables.persistent.is_match(cue.as_bytes()) {
            2
        } else {
            6
        };
    }
    if piece.list_item {
        score += match context {
            ListContext::Rules => 4,
            ListContext::Tasks => -3,
            ListContext::None => 0,
        };
    }
    score
}

const CLOSERS: &[char] = &[')', '"', '\'', '”', '’', ']', '*', '_', '）', ' '];

/// The sentence lowercased, curly apostrophes made straight, and quoted or backticked spans
/// replaced by `x`: "Use `tracing`, never `println!`" reads "use x, never x", and an error
/// message the user quotes ("the log says "must not be null"") adds no cue.
fn cue_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let close = match c {
            '"' => Some('"'),
            '`' => Some('`'),
            '“' => Some('”'),
            '「' => Some('」'),
            '『' => Some('』'),
            _ => None,
        };
        let after = &rest[c.len_utf8()..];
        if let Some(end) = close.and_then(|cl| after.find(cl).map(|p| p + cl.len_utf8())) {
            out.push('x');
            rest = &after[end..];
            continue;
        }
        match c {
            _ if c.is_ascii() => out.push(c.to_ascii_lowercase()),
            '’' | '‘' => out.push('\''),
            _ => out.extend(c.to_lowercase()),
        }
        rest = after;
    }
    out
}

/// A sentence's score and what made it, for tuning: `DEBUG_SENTENCE='a|b' cargo test
/// debug_scores -- --ignored --nocapture`.
#[cfg(test)]
pub(crate) fn debug_score(text: &str) -> (i32, Vec<&'static str>, i32, i32) {
    let cue = cue_text(text);
    let words = words(&cue);
    let piece = Piece {
        start: 0,
        end: 0,
        line: 0,
        list_item: false,
        heading: false,
    };
    (
        score(text, ListContext::None, &piece),
        TABLES.matching(&cue),
        always_never(&words),
        generic_subject(&words),
    )
}
