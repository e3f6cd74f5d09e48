//! Tells the user's own words from quoted material, line by line: fenced (```, ~~~) and
//! indented code, `>` quotes, pasted logs, stack traces, compiler output, diffs and unfenced
//! code. Whatever is quoted is never a standing instruction, even when it says "must" or "never".

use regex::bytes::RegexSet;
use std::sync::LazyLock;

/// One line of a prompt: its byte offset, its text without the line break, and whether it is
/// quoted material rather than the user's own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub start: usize,
    pub text: &'a str,
    pub quoted: bool,
}

/// A region that swallows the following lines until a blank line (or, for a diff, until a line
/// that is not a diff line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sticky {
    None,
    Log,
    Code,
    Diff,
}

/// Lines that are output of a program, not prose: timestamps, log levels, compiler and test
/// runner output, stack-trace frames, exceptions, shell prompts. Matched on the trimmed line.
static LOG_LINE: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(ascii([
        r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}",
        r"^\[?\d{1,2}:\d{2}:\d{2}\b",
        r"^\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE|NOTICE|PANIC)\b",
        r"^(?:error|warning)(?:\[[A-Z]*\d+\])?: ",
        r"^-->\s",
        r"^\d+\s+\|",
        r"^thread '.*' panicked at",
        r"^note: run with `RUST_BACKTRACE",
        r"^stack backtrace:",
        r"^\d+: +\S+::",
        r"^at \S+:\d+",
        r"^at \S+ ?\(.*:\d+(?::\d+)?\)$",
        r"^at (?:async |new )?[\w$.<>\[\]]+ \(",
        r"^Traceback \(most recent call last\)",
        r#"^File ".*", line \d+"#,
        r"^[\w.$]*(?:Error|Exception|Panic|Failure)(?::\s|:?$)",
        r"^Caused by: ",
        r"^\.\.\. \d+ more",
        r"^npm (?:ERR!|WARN)",
        r"^(?:Uncaught|Unhandled) ",
        r"^test \S+ \.\.\. ",
        r"^running \d+ tests?$",
        r"^test result: ",
        r"^failures:$",
        r"^---- .* ----$",
        r"^\$ \S",
        r"^PS [A-Za-z]:\\",
        r"^>>> ",
        r"^E {2,}",
        r"^\S+\.(?:rs|py|js|jsx|ts|tsx|go|java|kt|c|cc|cpp|h|hpp|rb|php|swift|cs|ex|exs|scala):\d+",
        r"^\d+:\d+ +(?:error|warning) ",
        r"^panic: ",
        r"^goroutine \d+ \[",
        r"^\[signal ",
        r"^#\d+ +0x[0-9a-fA-F]+",
        r"^(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /\S* HTTP",
        r"^\d{1,3}(?:\.\d{1,3}){3} - ",
        r#"^\{"[\w.-]+": ?"#,
        r"^(?:FAIL|PASS|FAILED|PASSED)\b",
        r"^ok\s{2,}\S",
        r"^(?:│|├|└|╰|┌|─)",
        r"^(?:Compiling|Finished|Running|Downloaded|Blocking) \S",
    ]))
    .unwrap_or_else(|_| RegexSet::empty())
});

/// Lines of source code pasted without a fence.
static CODE_LINE: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(ascii([
        r"^(?://|/\*|\*/|#!|<\?|</)",
        r"^<[a-zA-Z][\w-]*(?:\s[^>]*)?/?>",
        r"[{;]$",
        r"^[})\]]+[;,)]*$",
        r"^(?:pub(?:\([a-z]+\))? )?(?:async )?(?:fn|struct|enum|trait|impl|mod) \w.*[({<:;]",
        r"^let (?:mut )?\w+ *[:=]",
        r"^use [\w:]+(?:::\{.*\})?;",
        r"^(?:def|class) \w+ *[(:]",
        r"^import [\w.]+(?: as \w+)?$",
        r"^from [\w.]+ import \w",
        r"^#include\b",
        r"^package [\w.]+;?$",
        r"^func (?:\(\w+ \*?\w+\) )?\w+\(",
        r"^(?:const|let|var) \w+ = ",
        r"^function \w*\(",
        r"^(?:SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE TABLE|ALTER TABLE|DROP TABLE)\b",
        r"^\[[\w.-]+\]$",
        r#"^[\w.-]+ = (?:"|\d|true|false|\[)"#,
        r"^@\w+(?:\(.*\))?$",
    ]))
    .unwrap_or_else(|_| RegexSet::empty())
});

/// Patterns with Unicode classes off (`\d`, `\w`, `\b` are ASCII), so they stay in the DFA.
fn ascii<const N: usize>(patterns: [&str; N]) -> impl Iterator<Item = String> + '_ {
    patterns.into_iter().map(|p| format!("(?-u){p}"))
}

/// Splits `prompt` into lines and marks each as the user's own words or quoted material.
pub(crate) fn classify(prompt: &str) -> Vec<Line<'_>> {
    let raw = split_lines(prompt);
    let mut out = Vec::with_capacity(raw.len());
    let mut fence: Option<(char, usize)> = None;
    let mut sticky = Sticky::None;
    let mut prev_code = false;
    let mut quote_until: Option<usize> = None;
    for (i, &(start, text)) in raw.iter().enumerate() {
        let trimmed = text.trim();
        let mut line = Line {
            start,
            text,
            quoted: true,
        };
        if let Some(open) = fence {
            if closes_fence(trimmed, open) {
                fence = None;
            }
            out.push(line);
            continue;
        }
        if let Some(open) = opens_fence(trimmed) {
            fence = Some(open);
            sticky = Sticky::None;
            out.push(line);
            continue;
        }
        if quote_until.is_some_and(|last| i <= last) {
            out.push(line);
            continue;
        }
        if let Some(last) = quotation_end(&raw, i) {
            quote_until = Some(last);
            out.push(line);
            continue;
        }
        if trimmed.is_empty() {
            if sticky != Sticky::Diff || !next_is_diff_line(&raw[i + 1..]) {
                sticky = Sticky::None;
            }
            line.quoted = false;
            prev_code = false;
            out.push(line);
            continue;
        }
        if trimmed.starts_with('>') || trimmed.starts_with('＞') {
            out.push(line);
            continue;
        }
        let kind = line_kind(text, trimmed, sticky, prev_code);
        prev_code = kind == Kind::Indented || kind == Kind::Sticky(Sticky::Code);
        match kind {
            Kind::Own => {
                sticky = Sticky::None;
                line.quoted = false;
            }
            Kind::Indented => {}
            Kind::Sticky(s) => sticky = s,
        }
        out.push(line);
    }
    out
}

/// A pasted quotation: a line that opens with `"` or `“` and whose closing mark ends that line
/// or a later one (an email, a ticket, a spec). Returns the index of the quotation's last line.
/// `"Done" means tests pass.` is not one: text goes on after the closing mark.
fn quotation_end(raw: &[(usize, &str)], first: usize) -> Option<usize> {
    let trimmed = raw.get(first)?.1.trim();
    let (open, close) = match trimmed.chars().next()? {
        '"' => ('"', '"'),
        '“' => ('“', '”'),
        '«' => ('«', '»'),
        _ => return None,
    };
    let mut body = &trimmed[open.len_utf8()..];
    for (offset, (_, line)) in raw[first..].iter().enumerate().take(40) {
        if offset > 0 {
            body = line.trim();
            if body.is_empty() {
                return None;
            }
        }
        if let Some(at) = body.find(close) {
            let after = body[at + close.len_utf8()..].trim_matches(|c: char| {
                c.is_whitespace() || c.is_ascii_punctuation() || "。，！？".contains(c)
            });
            return after.is_empty().then_some(first + offset);
        }
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Own,
    Indented,
    Sticky(Sticky),
}

/// What one non-blank, unfenced, unquoted line is, given the region it follows.
fn line_kind(text: &str, trimmed: &str, sticky: Sticky, prev_code: bool) -> Kind {
    match sticky {
        Sticky::Diff if is_diff_body(text) => return Kind::Sticky(Sticky::Diff),
        Sticky::Log | Sticky::Code if !is_user_voice(trimmed) => return Kind::Sticky(sticky),
        Sticky::None | Sticky::Diff | Sticky::Log | Sticky::Code => {}
    }
    if is_diff_header(trimmed) || is_diff_change(text) {
        return Kind::Sticky(Sticky::Diff);
    }
    if indent_width(text) >= 4 && (prev_code || !starts_with_list_marker(trimmed)) {
        return Kind::Indented;
    }
    if LOG_LINE.is_match(trimmed.as_bytes()) {
        return Kind::Sticky(Sticky::Log);
    }
    if CODE_LINE.is_match(trimmed.as_bytes()) {
        return Kind::Sticky(Sticky::Code);
    }
    Kind::Own
}

/// `(byte offset, text without "\n" or "\r\n")` for every line.
fn split_lines(prompt: &str) -> Vec<(usize, &str)> {
    let mut lines = Vec::new();
    let mut start = 0;
    for part in prompt.split('\n') {
        lines.push((start, part.strip_suffix('\r').unwrap_or(part)));
        start += part.len() + 1;
    }
    lines
}

fn opens_fence(trimmed: &str) -> Option<(char, usize)> {
    let c = trimmed.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = trimmed.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

fn closes_fence(trimmed: &str, (c, n): (char, usize)) -> bool {
    let run = trimmed.chars().take_while(|&x| x == c).count();
    run >= n && trimmed[run * c.len_utf8()..].trim().is_empty()
}

fn indent_width(text: &str) -> usize {
    let mut width = 0;
    for c in text.chars() {
        match c {
            ' ' => width += 1,
            '\t' => width += 4,
            _ => break,
        }
    }
    width
}

/// `- x`, `* x`, `+ x`, `• x`, `1. x`, `1) x`, `1、x`.
pub(crate) fn starts_with_list_marker(trimmed: &str) -> bool {
    super::sentences::list_marker_len(trimmed) > 0
}

fn is_diff_header(trimmed: &str) -> bool {
    trimmed.starts_with("diff --git ")
        || trimmed.starts_with("--- a/")
        || trimmed.starts_with("+++ b/")
        || trimmed.starts_with("--- /dev/null")
        || trimmed.starts_with("+++ /dev/null")
        || (trimmed.starts_with("@@ -") && trimmed[4..].contains(" @@"))
        || (trimmed.starts_with("index ")
            && trimmed[6..].split("..").count() == 2
            && trimmed[6..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_hexdigit()))
}

/// `+    let x` or `-fn old()`: a changed line of a pasted diff. A markdown bullet is `- text`
/// with exactly one space, so it is not taken for one; nor are `--flag` or `-1`.
fn is_diff_change(text: &str) -> bool {
    let (sign, rest) = match text.strip_prefix('+') {
        Some(rest) => ('+', rest),
        None => match text.strip_prefix('-') {
            Some(rest) => ('-', rest),
            None => return false,
        },
    };
    match rest.chars().next() {
        None => false,
        Some('\t') => true,
        Some(' ') => rest.starts_with("  ") && !rest.trim().is_empty(),
        Some(c) if c == '-' || c == '+' || c.is_numeric() || c.is_whitespace() => false,
        Some(_) => sign == '+' || looks_like_code(rest),
    }
}

fn looks_like_code(rest: &str) -> bool {
    rest.contains(['(', ';', '{', '=', '}']) || rest.trim_end().ends_with(',')
}

/// Inside a diff: changed lines, context lines (one leading space), hunk headers and
/// "\ No newline at end of file".
fn is_diff_body(text: &str) -> bool {
    text.starts_with(['+', '-', ' ', '\\']) || text.starts_with("@@") || is_diff_header(text.trim())
}

fn next_is_diff_line(rest: &[(usize, &str)]) -> bool {
    rest.iter()
        .find(|(_, t)| !t.trim().is_empty())
        .is_some_and(|(_, t)| is_diff_change(t) || t.starts_with("@@") || t.starts_with(' '))
}

/// A line that is clearly the user talking again after a pasted block with no blank line
/// between: a question, a request, a rule.
fn is_user_voice(trimmed: &str) -> bool {
    const OPENERS: &[&str] = &[
        "please",
        "can ",
        "could ",
        "would ",
        "also",
        "from now on",
        "and ",
        "btw",
        "i ",
        "i'm",
        "i’m",
        "i've",
        "we ",
        "why",
        "what",
        "how ",
        "fix ",
        "so ",
        "ok",
        "anyway",
        "note",
        "remember",
        "always",
        "never",
        "don't",
        "don’t",
        "do not",
        "thanks",
        "any idea",
        "is there",
        "here's",
        "here is",
        "this ",
        "that ",
        "it ",
        "the error",
        "going forward",
        "help",
        "pls",
        "hmm",
        "now ",
    ];
    let lower: String = trimmed
        .chars()
        .take(16)
        .flat_map(char::to_lowercase)
        .collect();
    OPENERS.iter().any(|o| lower.starts_with(o))
}
