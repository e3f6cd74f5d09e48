//! The diff face's part of the state and its drawing: prefix `g` toggles it on the active
//! pane, the patch is asked for when shown and again when one of the terminal's turns ends
//! or the terminal changes (a merge), and the pane is drawn scrolled like the transcript.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::DiffView;
use crate::error::BatonError;
use crate::protocol::Request;
use crate::tui::app::{App, Effect, Tag};

/// A scroll so far up that drawing clamps it to the first page.
const TOP: usize = usize::MAX / 2;

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

    /// A turn of `name` ended or it changed (a merge): panes showing its diff read it again.
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

    pub(in crate::tui) fn on_diff(
        &mut self,
        name: &str,
        result: Result<crate::protocol::Answer, BatonError>,
    ) {
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
        // The commit first: a narrow pane's title keeps it and cuts the branch.
        parts.extend(v.against());
        parts.extend(v.branch.clone());
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
