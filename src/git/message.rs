//! Pure text rules: automatic commit messages, squash-merge messages, branch names.
//!
//! Subject: the prompt's first non-empty line, trimmed, at most [`SUBJECT_MAX`] characters.
//! A longer line is cut at the last space within the final 20 characters (else mid-word) and
//! ends with "…", so a reader sees it was cut; the whole line then opens the body so nothing
//! of it is lost. Body: the rest of the prompt, blank edges dropped, whole lines up to
//! [`BODY_MAX`] characters, then a line saying how many lines were left out. Trailers close
//! the message as `Key: value` lines after a blank line, which `git interpret-trailers` reads.

/// The longest subject, in characters (git's customary 72).
pub const SUBJECT_MAX: usize = 72;
/// The longest body, in characters, before lines are left out.
pub const BODY_MAX: usize = 2000;

const PREFIX: &str = "baton/";

/// What an automatic commit is made of: the turn's prompt and its trailers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    /// The prompt, verbatim.
    pub subject_source: String,
    /// `(key, value)` pairs, in order.
    pub trailers: Vec<(String, String)>,
}

impl CommitInfo {
    /// The trailers of a turn's automatic commit, in the order baton always writes them.
    pub fn for_turn(
        prompt: &str,
        terminal: &str,
        conversation: &str,
        provider: &str,
        session: &str,
        turn: &str,
    ) -> Self {
        let pairs = [
            ("Baton-Terminal", terminal),
            ("Baton-Conversation", conversation),
            ("Baton-Provider", provider),
            ("Baton-Session", session),
            ("Baton-Turn", turn),
        ];
        CommitInfo {
            subject_source: prompt.to_string(),
            trailers: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// The full commit message.
    pub fn message(&self) -> String {
        commit_message(&self.subject_source, &self.trailers)
    }
}

/// The automatic commit message for a prompt (see the module docs for the rules).
pub fn commit_message(prompt: &str, trailers: &[(String, String)]) -> String {
    let clean: Vec<String> = prompt.lines().map(strip_controls).collect();
    let first = clean.iter().position(|l| !l.trim().is_empty());
    let (subject, body_lines) = match first {
        None => ("(empty prompt)".to_string(), Vec::new()),
        Some(i) => {
            let line = clean[i].trim();
            let subject = cut_subject(line);
            let mut rest: Vec<&str> = Vec::new();
            if subject != line {
                rest.push(line);
            }
            rest.extend(clean[i + 1..].iter().map(|l| l.trim_end()));
            (subject, rest)
        }
    };
    let mut out = subject;
    let body = cut_body(&body_lines);
    if !body.is_empty() {
        out.push_str("\n\n");
        out.push_str(&body);
    }
    if !trailers.is_empty() {
        out.push_str("\n\n");
        for (key, value) in trailers {
            out.push_str(&format!("{}: {}\n", trailer_key(key), one_line(value)));
        }
    } else {
        out.push('\n');
    }
    out
}

/// The squash-merge message: what was merged, then each turn's subject as a list.
pub fn squash_message(branch: &str, subjects: &[String]) -> String {
    let mut out = format!("Merge {branch} (squashed)\n");
    if !subjects.is_empty() {
        out.push('\n');
        for s in subjects {
            out.push_str(&format!("- {s}\n"));
        }
    }
    out
}

/// The branch baton gives a terminal: `baton/<name>`, with characters git refuses in a branch
/// name replaced by `-`. None when nothing usable is left.
pub fn branch_name(terminal: &str) -> Option<String> {
    let part = ref_component(terminal)?;
    let full = format!("{PREFIX}{part}");
    git2::Reference::is_valid_name(&format!("refs/heads/{full}")).then_some(full)
}

/// One path component usable both in a ref and as git's worktree name.
pub(crate) fn ref_component(name: &str) -> Option<String> {
    let mut out: String = name
        .trim()
        .chars()
        .map(|c| match c {
            c if c.is_control() || c.is_whitespace() => '-',
            '~' | '^' | ':' | '?' | '*' | '[' | '\\' | '/' => '-',
            c => c,
        })
        .collect();
    while out.contains("..") {
        out = out.replace("..", "-.");
    }
    out = out.replace("@{", "-{");
    if out.starts_with('.') {
        out.replace_range(..1, "-");
    }
    if out.ends_with('.') {
        out.pop();
        out.push('-');
    }
    if out.ends_with(".lock") {
        out.push('-');
    }
    (!out.is_empty() && out != "@").then_some(out)
}

/// The first value of trailer `key` in a commit message, if any.
pub(crate) fn trailer_value<'a>(message: &'a str, key: &str) -> Option<&'a str> {
    let last_paragraph = message.trim_end().rsplit("\n\n").next()?;
    last_paragraph.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim().eq_ignore_ascii_case(key)).then(|| v.trim())
    })
}

fn cut_subject(line: &str) -> String {
    if line.chars().count() <= SUBJECT_MAX {
        return line.to_string();
    }
    let keep: String = line.chars().take(SUBJECT_MAX - 1).collect();
    let floor = keep
        .char_indices()
        .nth(SUBJECT_MAX - 21)
        .map_or(0, |(i, _)| i);
    let cut = match keep.rfind(' ') {
        Some(i) if i >= floor => keep[..i].trim_end(),
        _ => keep.as_str(),
    };
    format!("{cut}…")
}

fn cut_body(lines: &[&str]) -> String {
    let start = lines.iter().position(|l| !l.trim().is_empty());
    let end = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(start), Some(end)) = (start, end) else {
        return String::new();
    };
    let lines = &lines[start..=end];
    let mut out = String::new();
    let mut used = 0;
    for (i, line) in lines.iter().enumerate() {
        let len = line.chars().count() + 1;
        if used + len > BODY_MAX {
            if i == 0 {
                let part: String = line.chars().take(BODY_MAX).collect();
                out.push_str(&part);
                out.push_str("…\n");
            }
            let left = lines.len() - i - usize::from(i == 0);
            if left > 0 {
                let s = if left == 1 { "" } else { "s" };
                out.push_str(&format!(
                    "[… {left} more line{s} of the prompt not shown]\n"
                ));
            }
            break;
        }
        out.push_str(line);
        out.push('\n');
        used += len;
    }
    out.trim_end().to_string()
}

fn strip_controls(line: &str) -> String {
    line.chars()
        .filter(|c| *c == '\t' || !c.is_control())
        .collect()
}

fn trailer_key(key: &str) -> String {
    let k: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if k.is_empty() {
        "Baton".into()
    } else {
        k
    }
}

fn one_line(value: &str) -> String {
    let v: Vec<&str> = value.split_whitespace().collect();
    v.join(" ")
}

#[cfg(test)]
#[path = "message_tests.rs"]
mod tests;
