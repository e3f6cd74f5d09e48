//! Standing instructions: picks out of a prompt the user's own lines that should keep applying
//! (constraints, preferences, requirements), copies them verbatim, and merges them into the
//! terminal's list. Pure: no I/O, no clock; the server calls it in the background.
//!
//! The pipeline every extractor goes through is [`extract_lines`]: skip greetings and tiny
//! prompts, ask the extractor for candidates, keep only verbatim substrings ([`verbatim_gate`]),
//! keep only whole lines or whole sentences of the user's own words (never code, logs, diffs or
//! quotes), and cap at [`MAX_LINES_PER_PROMPT`]. [`merge`] then folds them into a terminal's list.

mod cues;
mod grammar;
mod local;
pub mod model;
mod quoted;
mod sentences;
mod skip;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

pub use local::LocalExtractor;

/// Prompts shorter than this many Unicode characters (after trimming) are skipped.
pub const MIN_PROMPT_CHARS: usize = 12;
/// At most this many lines are kept from one prompt.
pub const MAX_LINES_PER_PROMPT: usize = 10;
/// A terminal keeps this many of its newest lines.
pub const MAX_LINES_PER_TERMINAL: usize = 40;

/// Proposes lines of a prompt that should keep applying. The candidates may be unfiltered:
/// [`extract_lines`] gates them, so an extractor cannot smuggle in anything the user did not type.
pub trait Extractor {
    fn extract(&self, prompt: &str) -> Vec<String>;
}

/// True for prompts that are never read for instructions: greetings and thanks ("hi",
/// "Thanks!", "good morning", "你好"), and anything shorter than [`MIN_PROMPT_CHARS`] characters.
pub fn is_skipped(prompt: &str) -> bool {
    let trimmed = prompt.trim();
    trimmed.chars().count() < MIN_PROMPT_CHARS || skip::is_greeting(trimmed)
}

/// Keeps only candidates that occur verbatim in `prompt`. A candidate is trimmed of surrounding
/// whitespace (the trimmed text is a substring whenever the untrimmed one is); empty candidates
/// and repeats are dropped; order is kept. Rephrased, joined or translated text never passes.
pub fn verbatim_gate(prompt: &str, candidates: Vec<String>) -> Vec<String> {
    let mut kept: Vec<String> = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        let trimmed = candidate.trim();
        if trimmed.is_empty() || !prompt.contains(trimmed) || kept.iter().any(|k| k == trimmed) {
            continue;
        }
        kept.push(if trimmed.len() == candidate.len() {
            candidate
        } else {
            trimmed.to_string()
        });
    }
    kept
}

/// The whole extraction for one prompt: skip check, the extractor's candidates, the verbatim
/// gate, then only whole lines or whole sentences of the user's own words (a cut that starts or
/// ends mid-sentence could flip a meaning: "use tabs" out of "never use tabs"), never text from
/// code blocks, logs, stack traces, diffs or `>` quotes; at most [`MAX_LINES_PER_PROMPT`].
pub fn extract_lines(ex: &dyn Extractor, prompt: &str) -> Vec<String> {
    if is_skipped(prompt) {
        return Vec::new();
    }
    let gated = verbatim_gate(prompt, ex.extract(prompt));
    if gated.is_empty() {
        return gated;
    }
    let lines = quoted::classify(prompt);
    gated
        .into_iter()
        .filter(|candidate| sentences::is_own_whole_cut(prompt, &lines, candidate))
        .take(MAX_LINES_PER_PROMPT)
        .collect()
}

/// What [`merge`] did to a terminal's list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Merge {
    /// New lines appended, in order (trimmed).
    pub added: Vec<String>,
    /// Old lines that fell off the front to keep the list at [`MAX_LINES_PER_TERMINAL`].
    pub dropped: Vec<String>,
    /// The terminal's list after the merge, oldest first.
    pub result: Vec<String>,
}

/// Appends `new` lines to a terminal's `existing` list (oldest first). A line already present
/// (compared after trimming) is not stored twice; empty lines are ignored. The list keeps its
/// [`MAX_LINES_PER_TERMINAL`] newest lines: the oldest drop off first. Should `new` alone hold
/// more than that, only its newest lines are added.
pub fn merge(existing: &[String], new: &[String]) -> Merge {
    let mut added: Vec<String> = Vec::new();
    for line in new {
        let line = line.trim();
        let known = |l: &String| l.trim() == line;
        if line.is_empty() || existing.iter().any(known) || added.iter().any(known) {
            continue;
        }
        added.push(line.to_string());
    }
    if added.len() > MAX_LINES_PER_TERMINAL {
        added.drain(..added.len() - MAX_LINES_PER_TERMINAL);
    }
    let overflow = (existing.len() + added.len()).saturating_sub(MAX_LINES_PER_TERMINAL);
    let dropped = existing[..overflow.min(existing.len())].to_vec();
    let mut result = existing[dropped.len()..].to_vec();
    result.extend(added.iter().cloned());
    Merge {
        added,
        dropped,
        result,
    }
}
