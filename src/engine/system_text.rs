//! The text baton adds to a conversation's system instructions: the house rules, then the
//! standing text (the terminal's brief and its standing instructions). Built once when a
//! conversation opens and passed byte-identical on every turn of it. A provider session that
//! starts later in the conversation (a switch, a lost session) has no history to hold the
//! prompts its rules came from: its text is the conversation's plus the lines the conversation's
//! text lacks, under their own heading ([`session_text`]), frozen for that session.

use std::path::Path;

/// The heading the standing instructions sit under.
pub const INSTRUCTIONS_HEADING: &str =
    "## Instructions the user gave earlier in this terminal (keep following them)";

/// The heading of the standing instructions a provider session adds to its conversation's
/// text: the lines the terminal gained after the conversation opened.
pub const LATER_HEADING: &str =
    "## More instructions the user gave earlier in this terminal (keep following them too)";

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

/// Where a conversation's system text points: its checkout and its screenshots folder.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    pub checkout: &'a Path,
    pub screenshots: &'a Path,
}

/// The system text `old`, written for `from`, re-pointed at `to` (an imported terminal's
/// conversation carrying on in a new checkout): the house rules and a carried-over note name
/// the new place, the brief and standing instructions stay word for word, and a note that the
/// conversation was carried over is added when the checkout changed (its history names the old
/// paths). A text that does not start with the house rules for `from` (written by another
/// build) has every occurrence of the old paths replaced instead.
pub fn repoint(old: &str, from: Place<'_>, to: Place<'_>) -> String {
    let rules = house_rules(from.checkout, from.screenshots);
    let old_note = carried_over(from.checkout);
    let Some(rest) = old.strip_prefix(&rules) else {
        let text = |p: &Path| p.to_string_lossy().into_owned();
        return old
            .replace(&text(from.checkout), &text(to.checkout))
            .replace(&text(from.screenshots), &text(to.screenshots));
    };
    let (rest, had_note) = match rest.strip_suffix(&old_note) {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let mut out = house_rules(to.checkout, to.screenshots);
    out.push_str(rest);
    if had_note || from.checkout != to.checkout {
        out.push_str(&carried_over(to.checkout));
    }
    out
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
    push_list(&mut out, INSTRUCTIONS_HEADING, instructions);
    out
}

/// `lines` as a list under `heading`, after a blank line; nothing when there are none.
fn push_list(out: &mut String, heading: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    out.push_str("\n\n");
    out.push_str(heading);
    for line in lines {
        out.push_str("\n- ");
        out.push_str(line);
    }
}

/// The standing instructions a conversation's `frozen` text carries: the lines under its
/// [`INSTRUCTIONS_HEADING`].
fn carried(frozen: &str) -> Vec<&str> {
    let Some(at) = frozen.rfind(INSTRUCTIONS_HEADING) else {
        return Vec::new();
    };
    frozen[at + INSTRUCTIONS_HEADING.len()..]
        .split('\n')
        .skip(1)
        .map_while(|l| l.strip_prefix("- "))
        .collect()
}

/// The lines of `current` (the terminal's standing instructions now) that the conversation's
/// `frozen` text does not carry, in their order: what a provider session starting now in that
/// conversation adds to it.
pub fn not_carried(frozen: &str, current: &[String]) -> Vec<String> {
    let carried = carried(frozen);
    current
        .iter()
        .filter(|l| !carried.contains(&l.as_str()))
        .cloned()
        .collect()
}

/// The system text of a provider session of the conversation whose text is `frozen`, adding
/// `added` ([`not_carried`] when the session started) under [`LATER_HEADING`]. With nothing
/// added it is the conversation's text, byte for byte.
pub fn session_text(frozen: &str, added: &[String]) -> String {
    let mut out = frozen.to_string();
    push_list(&mut out, LATER_HEADING, added);
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
    fn repointing_names_the_new_place_and_keeps_the_rest_word_for_word() {
        let instr = ["Use /w/api paths only.".to_string()];
        let old_place = Place {
            checkout: Path::new("/w/api"),
            screenshots: Path::new("/d/shots"),
        };
        let new_place = Place {
            checkout: Path::new("/x/api"),
            screenshots: Path::new("/e/shots"),
        };
        let plain = build(old_place.checkout, old_place.screenshots, Some("b"), &instr);
        let forked = format!("{plain}{}", carried_over(old_place.checkout));
        let moved = format!(
            "{}\n\n## What this terminal is for\nb\n\n{INSTRUCTIONS_HEADING}\n- Use /w/api paths only.{}",
            house_rules(new_place.checkout, new_place.screenshots),
            carried_over(new_place.checkout)
        );
        let same = Place {
            checkout: old_place.checkout,
            screenshots: Path::new("/e/shots"),
        };
        let cases = [
            // (old text, to, want)
            (plain.clone(), new_place, moved.clone()),
            // a fork's note is re-pointed, not doubled
            (forked, new_place, moved),
            // same checkout: only the screenshots change, no note
            (plain.clone(), same, plain.replace("/d/shots", "/e/shots")),
            // another build's text: the paths are replaced wherever they are
            (
                "work in /w/api; shots in /d/shots".to_string(),
                new_place,
                "work in /x/api; shots in /e/shots".to_string(),
            ),
        ];
        for (old, to, want) in cases {
            assert_eq!(repoint(&old, old_place, to), want, "{old}");
        }
    }

    #[test]
    fn a_later_session_adds_the_lines_its_conversation_lacks() {
        let lines = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let place = (Path::new("/w/api"), Path::new("/d/shots"));
        let frozen = build(place.0, place.1, Some("- brief line"), &lines(&["a", "b"]));
        let forked = format!("{frozen}{}", carried_over(place.0));
        let bare = build(place.0, place.1, None, &[]);
        let cases: [(&str, &str, &[&str], &[&str]); 6] = [
            // (why, frozen text, current lines, added)
            ("nothing new", &frozen, &["a", "b"], &[]),
            ("one added since", &frozen, &["a", "b", "c"], &["c"]),
            // a line removed since stays in the conversation's text; nothing to add for it
            ("one removed, one added", &frozen, &["b", "c"], &["c"]),
            // the brief's own "- " lines are not instructions
            ("brief line", &frozen, &["brief line"], &["brief line"]),
            // a fork's note after the list ends it
            ("fork note", &forked, &["a", "d"], &["d"]),
            ("no list at all", &bare, &["a"], &["a"]),
        ];
        for (why, text, current, want) in cases {
            assert_eq!(not_carried(text, &lines(current)), lines(want), "{why}");
        }
        assert_eq!(session_text(&frozen, &[]), frozen);
        assert_eq!(
            session_text(&forked, &lines(&["c", "答案用中文"])),
            format!("{forked}\n\n{LATER_HEADING}\n- c\n- 答案用中文")
        );
    }

    #[test]
    fn nothing_but_house_rules_without_brief_or_instructions() {
        let t = build(Path::new("/w"), Path::new("/s"), Some("  "), &[]);
        assert_eq!(t, house_rules(Path::new("/w"), Path::new("/s")));
    }
}
