//! The pure half of the model-backed extractor: the request sent to the terminal's provider CLI
//! in an ephemeral run, and the parsing of its answer into candidates. The caller runs the CLI;
//! whatever comes back still goes through [`super::extract_lines`]' verbatim gate, and when the
//! run fails the [`super::LocalExtractor`] stands in.

use super::Extractor;

/// The word the model answers with when the message holds no lasting rule.
pub const NONE_ANSWER: &str = "NONE";

/// The full instruction text for the model, with the user's prompt embedded between markers
/// that do not occur in it.
pub fn request(prompt: &str) -> String {
    let (begin, end) = markers(prompt);
    format!(
        "You help a terminal tool remember a user's standing instructions.\n\
         Below, between {begin} and {end}, is one message the user typed to a coding assistant.\n\
         \n\
         Copy out every line that states a lasting rule: a constraint, preference or requirement \
         that should keep applying to future work (for example \"keep shared types in \
         src/types.rs\", \"never use unwrap in library code\", \"answer in German\", \"tests go \
         next to the code\"). Leave out one-off tasks and questions (\"fix the login bug\", \"add \
         a button\", \"what does this function do?\"), anything marked as temporary (\"for now\", \
         \"this time\"), and everything inside code blocks, indented code, logs, stack traces, \
         diffs and quoted (\">\") text, even when it says \"must\" or \"never\".\n\
         \n\
         How to answer:\n\
         - Copy each rule exactly as the user typed it, character for character, in the user's \
         language: a whole line, or one whole sentence out of a longer line. Never rephrase, \
         translate, shorten, fix typos or join lines.\n\
         - Leave out list markers such as \"- \" or \"1. \" at the start of a line.\n\
         - One rule per line, at most {max} lines, and nothing else: no numbering, bullets, quotes \
         or commentary.\n\
         - If there is no lasting rule, answer with the single word {none}.\n\
         \n\
         {begin}\n{prompt}\n{end}\n",
        max = super::MAX_LINES_PER_PROMPT,
        none = NONE_ANSWER,
    )
}

/// `<<<USER_MESSAGE` / `USER_MESSAGE>>>`, numbered if the prompt happens to contain them.
fn markers(prompt: &str) -> (String, String) {
    let mut n = 0u32;
    loop {
        let tag = if n == 0 {
            "USER_MESSAGE".to_string()
        } else {
            format!("USER_MESSAGE_{n}")
        };
        let begin = format!("<<<{tag}");
        let end = format!("{tag}>>>");
        if !prompt.contains(&begin) && !prompt.contains(&end) {
            return (begin, end);
        }
        n += 1;
    }
}

/// The candidates in a model's answer: one per line, without the bullets, numbering, quotes or
/// code fences a model may add despite being asked not to. `NONE` (in any case, alone) and
/// blank lines give nothing. A JSON array of strings is accepted too.
pub fn parse_answer(answer: &str) -> Vec<String> {
    let trimmed = answer.trim();
    if let Ok(items) = serde_json::from_str::<Vec<String>>(trimmed) {
        return items
            .iter()
            .flat_map(|item| item.lines())
            .filter_map(clean_line)
            .collect();
    }
    trimmed.lines().filter_map(clean_line).collect()
}

fn clean_line(line: &str) -> Option<String> {
    let mut text = line.trim();
    if text.starts_with("```") || is_none(text) {
        return None;
    }
    text = strip_marker(text);
    text = strip_wrapping(text);
    let text = text.trim();
    (!text.is_empty() && !is_none(text)).then(|| text.to_string())
}

fn is_none(text: &str) -> bool {
    let word = text.trim_matches(|c: char| !c.is_alphanumeric());
    word.eq_ignore_ascii_case(NONE_ANSWER)
        || word.eq_ignore_ascii_case("no rules")
        || word.eq_ignore_ascii_case("none found")
        || word == "无"
}

/// `- x`, `* x`, `• x`, `1. x`, `1) x`, `> x`.
fn strip_marker(text: &str) -> &str {
    let text = text.strip_prefix('>').map_or(text, str::trim_start);
    let marker = super::sentences::list_marker_len(text);
    if marker > 0 && !text.starts_with('#') {
        &text[marker..]
    } else {
        text
    }
}

/// `"x"`, `“x”`, `'x'`, `` `x` ``, `「x」`: quotes around the whole line.
fn strip_wrapping(text: &str) -> &str {
    for (open, close) in [
        ('"', '"'),
        ('“', '”'),
        ('\'', '\''),
        ('`', '`'),
        ('「', '」'),
    ] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            if !inner.contains(close) && !inner.trim().is_empty() {
                return inner;
            }
        }
    }
    text
}

/// An extractor over an answer already received: the caller runs the CLI with [`request`],
/// then hands the answer to [`super::extract_lines`] through this.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a>(pub &'a str);

impl Extractor for Answered<'_> {
    fn extract(&self, _prompt: &str) -> Vec<String> {
        parse_answer(self.0)
    }
}
