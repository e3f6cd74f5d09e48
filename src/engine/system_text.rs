//! The text baton adds to a conversation's system instructions: the house rules, then the
//! standing text (the terminal's brief and its standing instructions). Built once when a
//! conversation opens and passed byte-identical on every turn of it.

use std::path::Path;

/// The heading the standing instructions sit under.
pub const INSTRUCTIONS_HEADING: &str =
    "## Instructions the user gave earlier in this terminal (keep following them)";

/// The fixed paragraph every run gets.
pub fn house_rules(checkout: &Path, screenshots: &Path) -> String {
    format!(
        "You are running inside baton, which runs coding agents in terminals. Your working \
directory is this terminal's own checkout: {}. Work on the files there. Save any screenshots \
you take in {}. baton commits changes and manages conversations by itself: do not talk about \
automatic commits or about how the conversation is handled.",
        checkout.display(),
        screenshots.display()
    )
}

/// House rules + brief + standing instructions, exactly as the CLI receives it.
/// What a conversation carried over from another terminal (a fork or rewind) adds to its
/// system text: the history it carries was written in another checkout, and a CLI may keep
/// the original's instructions (a Codex fork keeps its developer message), so this says which
/// checkout is the one now.
pub fn carried_over(checkout: &Path) -> String {
    format!(
        "\n\nThis conversation was carried over from another terminal's checkout. Where earlier instructions or messages name another working directory, they are replaced by these: your working directory is now {}.",
        checkout.display()
    )
}

pub fn build(
    checkout: &Path,
    screenshots: &Path,
    brief: Option<&str>,
    instructions: &[String],
) -> String {
    let mut out = house_rules(checkout, screenshots);
    if let Some(brief) = brief.map(str::trim).filter(|b| !b.is_empty()) {
        out.push_str("\n\n## What this terminal is for\n");
        out.push_str(brief);
    }
    if !instructions.is_empty() {
        out.push_str("\n\n");
        out.push_str(INSTRUCTIONS_HEADING);
        for line in instructions {
            out.push_str("\n- ");
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::Path;

    #[test]
    fn brief_then_instructions_under_the_heading() {
        let t = build(
            Path::new("/w/api"),
            Path::new("/d/shots"),
            Some("Backend of the billing service"),
            &[
                "Always run cargo fmt before committing.".to_string(),
                "答案用中文".to_string(),
            ],
        );
        let want = format!(
            "{}\n\n## What this terminal is for\nBackend of the billing service\n\n{}\n- Always run cargo fmt before committing.\n- 答案用中文",
            house_rules(Path::new("/w/api"), Path::new("/d/shots")),
            INSTRUCTIONS_HEADING
        );
        assert_eq!(t, want);
        assert!(t.contains("/w/api") && t.contains("/d/shots"));
    }

    #[test]
    fn nothing_but_house_rules_without_brief_or_instructions() {
        let t = build(Path::new("/w"), Path::new("/s"), Some("  "), &[]);
        assert_eq!(t, house_rules(Path::new("/w"), Path::new("/s")));
    }
}
