//! The diff face: the terminal's branch against its base commit, the one `baton diff --patch`
//! takes it from (and the title names by short hash), read when the face is shown and again
//! whenever one of its turns ends or the server announces the terminal changed (`baton merge`
//! does); colored like git colors it and scrolled like the transcript. This file holds what a pane knows of
//! the diff and its colored lines; `face` the state's part (toggling, reading) and the drawing.

pub mod face;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use crate::error::BatonError;
use crate::protocol::{views, Answer};

/// What a pane showing the diff face knows of the terminal's diff.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffView {
    /// The patch, or the server's reason there is none (no worktree…); None until read.
    pub body: Option<Result<String, String>>,
    pub branch: Option<String>,
    /// The commit the terminal started from (`base_commit`).
    pub base: Option<String>,
    /// The commit the diff is taken from (`since`: the merge base, or the last tip `baton
    /// merge` landed); empty from a server that predates it.
    pub since: Option<String>,
    /// `since` is the last tip `baton merge` landed.
    pub merged: bool,
    /// A request is on its way.
    pub loading: bool,
    /// Bumped on every new body, so drawn lines can be cached.
    pub version: u64,
}

impl DiffView {
    fn set(&mut self, result: Result<Answer, BatonError>) {
        self.loading = false;
        self.version += 1;
        let read = result.and_then(views::DiffView::try_from);
        match read {
            Ok(v) => {
                self.branch = Some(v.branch);
                self.base = Some(v.base_commit);
                self.since = Some(v.since);
                self.merged = v.merged;
                self.body = Some(Ok(v.diff));
            }
            Err(e) => {
                self.branch = None;
                self.base = None;
                self.since = None;
                self.merged = false;
                self.body = Some(Err(e.message));
            }
        }
    }

    /// What the diff is taken against, by short hash: `against base 1a2b3c4` (where the
    /// terminal started), `against merge base 89abcde` (where its branch meets the base branch
    /// before that: a fork's parent's work is in its diff too), or, once `baton merge` landed
    /// some of the work, `against 89abcde, last merged (base 1a2b3c4)`. None until read.
    pub fn against(&self) -> Option<String> {
        let base = short(self.base.as_deref()?);
        let since = self.since.as_deref().map(short).unwrap_or_default();
        Some(if self.merged && !since.is_empty() {
            format!("against {since}, last merged (base {base})")
        } else if since.is_empty() || since == base {
            format!("against base {base}")
        } else {
            format!("against merge base {since}")
        })
    }

    /// The pane's lines: the patch colored, or a message.
    pub fn lines(&self) -> Vec<Line<'static>> {
        let dim = Style::default().fg(Color::DarkGray);
        match &self.body {
            None => vec![Line::styled("reading the diff…", dim)],
            Some(Err(why)) => why
                .lines()
                .map(|l| Line::styled(l.to_string(), Style::default().fg(Color::Yellow)))
                .collect(),
            Some(Ok(text)) if text.trim().is_empty() => {
                let on = self.branch.as_deref().unwrap_or("its branch");
                let said = if self.merged {
                    format!("nothing left to merge: all of {on} is merged")
                } else {
                    let against = self.against().unwrap_or_default();
                    format!("no changes on {on} {against}")
                };
                vec![Line::styled(said.trim_end().to_string(), dim)]
            }
            Some(Ok(text)) => text.lines().map(diff_line).collect(),
        }
    }
}

/// A commit's short hash (seven characters, as git shows them).
fn short(commit: &str) -> String {
    commit.chars().take(7).collect()
}

/// One patch line, styled by what it is.
pub fn diff_line(l: &str) -> Line<'static> {
    Line::styled(l.replace('\t', "    "), diff_style(l))
}

fn diff_style(l: &str) -> Style {
    let s = Style::default();
    if l.starts_with("+++") || l.starts_with("---") || l.starts_with("diff --git") {
        s.add_modifier(Modifier::BOLD)
    } else if l.starts_with('+') {
        s.fg(Color::Green)
    } else if l.starts_with('-') {
        s.fg(Color::Red)
    } else if l.starts_with("@@") {
        s.fg(Color::Cyan)
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_colored_by_kind() {
        let table = [
            ("+added", Style::default().fg(Color::Green)),
            ("-removed", Style::default().fg(Color::Red)),
            ("@@ -1 +1 @@", Style::default().fg(Color::Cyan)),
            ("+++ b/a.txt", Style::default().add_modifier(Modifier::BOLD)),
            ("--- a/a.txt", Style::default().add_modifier(Modifier::BOLD)),
            (" context", Style::default()),
        ];
        for (line, want) in table {
            assert_eq!(diff_style(line), want, "{line}");
        }
    }

    #[test]
    fn messages_without_a_patch() {
        let mut v = DiffView::default();
        assert_eq!(v.lines()[0].to_string(), "reading the diff…");
        v.set(Err(BatonError::bad_input("api works in place: no branch")));
        assert_eq!(v.lines()[0].to_string(), "api works in place: no branch");
        v.set(Ok(crate::tui::testing::views::answer(
            crate::protocol::AnswerKind::Diff,
            serde_json::json!({"name": "api", "branch": "baton/api", "base_commit": "0123", "diff": ""}),
        )));
        assert_eq!(
            v.lines()[0].to_string(),
            "no changes on baton/api against base 0123"
        );
        assert_eq!(v.version, 2);
    }

    #[test]
    fn the_diff_is_labelled_by_the_commit_it_is_taken_against() {
        let base = "1a2b3c4d5e6f";
        let rows = [
            (None, "", None),
            (Some(base), "", Some("against base 1a2b3c4")),
            (Some(base), base, Some("against base 1a2b3c4")),
            // A fork never merged: its branch meets the base branch before it started.
            (
                Some(base),
                "89abcdef0123",
                Some("against merge base 89abcde"),
            ),
        ];
        for (base_commit, since, want) in rows {
            let mut v = DiffView::default();
            if let Some(b) = base_commit {
                v.set(Ok(crate::tui::testing::views::answer(
                    crate::protocol::AnswerKind::Diff,
                    serde_json::json!({"name": "api", "branch": "baton/api",
                        "base_commit": b, "since": since, "diff": "x"}),
                )));
            }
            assert_eq!(v.against().as_deref(), want, "{base_commit:?} {since:?}");
        }
        // Only a merge says so.
        let mut v = DiffView::default();
        v.set(Ok(crate::tui::testing::views::answer(
            crate::protocol::AnswerKind::Diff,
            serde_json::json!({"name": "api", "branch": "baton/api", "base_commit": base,
                "since": "89abcdef0123", "merged": true, "diff": ""}),
        )));
        let want = "against 89abcde, last merged (base 1a2b3c4)";
        assert_eq!(v.against().as_deref(), Some(want));
        let said = "nothing left to merge: all of baton/api is merged";
        assert_eq!(v.lines()[0].to_string(), said);
    }
}
