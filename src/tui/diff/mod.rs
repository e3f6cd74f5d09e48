//! The diff face: the terminal's branch against the commit it started from (`baton diff
//! --patch`), read when the face is shown and again whenever one of its turns ends; colored
//! like git colors it and scrolled like the transcript. This file holds what a pane knows of
//! the diff and its colored lines; `face` the state's part (toggling, reading) and the drawing.

pub mod face;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use serde_json::Value;

use crate::error::BatonError;
use crate::protocol::{data_as, views};

/// What a pane showing the diff face knows of the terminal's diff.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffView {
    /// The patch, or the server's reason there is none (no worktree…); None until read.
    pub body: Option<Result<String, String>>,
    pub branch: Option<String>,
    pub base: Option<String>,
    /// A request is on its way.
    pub loading: bool,
    /// Bumped on every new body, so drawn lines can be cached.
    pub version: u64,
}

impl DiffView {
    fn set(&mut self, result: Result<Value, BatonError>) {
        self.loading = false;
        self.version += 1;
        match result {
            Ok(v) => match data_as::<views::DiffView>(v) {
                Ok(v) => {
                    self.branch = Some(v.branch);
                    self.base = Some(v.base_commit);
                    self.body = Some(Ok(v.diff));
                }
                Err(e) => {
                    self.branch = None;
                    self.base = None;
                    self.body = Some(Err(e.message));
                }
            },
            Err(e) => {
                self.branch = None;
                self.base = None;
                self.body = Some(Err(e.message));
            }
        }
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
                vec![Line::styled(
                    format!("no changes yet on {on} since it started"),
                    dim,
                )]
            }
            Some(Ok(text)) => text.lines().map(diff_line).collect(),
        }
    }
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
        v.set(Ok(serde_json::json!({"name": "api", "branch": "baton/api", "base_commit": "0123", "diff": ""})));
        assert_eq!(
            v.lines()[0].to_string(),
            "no changes yet on baton/api since it started"
        );
        assert_eq!(v.version, 2);
    }
}
