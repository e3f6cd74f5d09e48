//! The diff face: the terminal's branch against the commit it started from (`baton diff
//! --patch`), read when the face is shown and again whenever one of its turns ends; colored
//! like git colors it and scrolled like the transcript.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use serde_json::Value;

use crate::error::BatonError;
use crate::protocol::{data_as, views, Request};
use crate::tui::app::{App, Effect, Tag};

/// A scroll so far up that drawing clamps it to the first page.
const TOP: usize = usize::MAX / 2;

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

impl App {
    /// Prefix g: the active pane switches between the transcript and the terminal's diff.
    pub(in crate::tui) fn toggle_diff(&mut self) -> Vec<Effect> {
        let Some(p) = self.panes.get_mut(self.active) else {
            return Vec::new();
        };
        let Some(name) = p.term.clone() else {
            let label = self
                .keys
                .hint(crate::tui::input::keys::PrefixAction::NewTerminal);
            self.say(format!("no terminal yet: create one with {label}"));
            return Vec::new();
        };
        p.diff = !p.diff;
        p.shell = false;
        if !p.diff {
            p.scroll = 0;
            return self.show_effects(&name);
        }
        // Start at the top: drawing clamps this to the first page.
        p.scroll = TOP;
        self.request_diff(&name)
    }

    /// A turn of `name` ended: panes showing its diff read it again.
    pub(in crate::tui) fn refresh_diff(&mut self, name: &str) -> Vec<Effect> {
        let shown = self
            .panes
            .iter()
            .any(|p| p.diff && p.term.as_deref() == Some(name));
        if shown {
            self.request_diff(name)
        } else {
            Vec::new()
        }
    }

    fn request_diff(&mut self, name: &str) -> Vec<Effect> {
        let Some(t) = self.term_mut(name) else {
            return Vec::new();
        };
        t.diff.get_or_insert_with(DiffView::default).loading = true;
        vec![Effect::Call(
            Tag::Diff(name.to_string()),
            Request::Diff {
                name: name.to_string(),
                patch: true,
            },
        )]
    }

    pub(in crate::tui) fn on_diff(&mut self, name: &str, result: Result<Value, BatonError>) {
        let Some(t) = self.term_mut(name) else {
            return;
        };
        let view = t.diff.get_or_insert_with(DiffView::default);
        let first = view.body.is_none();
        view.set(result);
        if first {
            // The first patch is read from its top.
            for p in &mut self.panes {
                if p.diff && p.term.as_deref() == Some(name) {
                    p.scroll = TOP;
                }
            }
        }
    }
}

/// The pane's title on the diff face.
pub fn title(name: &str, index: Option<usize>, view: Option<&DiffView>) -> String {
    let mut parts = vec![format!(
        "{}{name}",
        index.map(|i| format!("{i} ")).unwrap_or_default()
    )];
    parts.push("diff".into());
    if let Some(v) = view {
        if let Some(b) = &v.branch {
            let base: String = v.base.as_deref().unwrap_or("").chars().take(7).collect();
            parts.push(format!("{b} since {base}"));
        }
        if v.loading {
            parts.push("reading…".into());
        }
    }
    format!(" {} ", parts.join(" · "))
}

/// Draws pane `i`'s diff face inside its border.
pub fn draw(f: &mut Frame, app: &mut App, i: usize, inner: Rect) {
    let lines = {
        let view = app.panes[i]
            .term
            .as_deref()
            .and_then(|n| app.term(n))
            .and_then(|t| t.diff.as_ref());
        if let Some(Some(Err(_))) = view.map(|v| &v.body) {
            // The server's reason, wrapped to be read whole.
            let lines = view.map(DiffView::lines).unwrap_or_default();
            let wrap = ratatui::widgets::Wrap { trim: false };
            f.render_widget(Paragraph::new(lines).wrap(wrap), inner);
            return;
        }
        view.map_or_else(|| DiffView::default().lines(), DiffView::lines)
    };
    let pane = &mut app.panes[i];
    let rows = usize::from(inner.height);
    pane.rows = rows;
    let max_scroll = lines.len().saturating_sub(rows);
    pane.scroll = pane.scroll.min(max_scroll);
    let end = lines.len() - pane.scroll;
    let start = end.saturating_sub(rows);
    let shown: Vec<Line<'static>> = lines[start..end].to_vec();
    f.render_widget(Paragraph::new(shown), inner);
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
