//! What a client keeps across a detach: each terminal's draft, and the layout (the panes, the
//! terminal and face each shows, the focus, the zoom). Pure: the state to save and how a saved
//! one is brought back; `tui::io::saved` reads and writes it.
//!
//! Where it lives, and why there: `ui.json` (0600, in the data directory's `ui/`, 0700) rather
//! than on the server. The drafts and layout are this user's own screen, like tmux's, and not
//! facts the server decides; a file keeps them when the server restarts too. Drafts belong to
//! the terminal (every client of the data directory finds the same one; a client writes back
//! only the drafts it changed, so two clients never undo each other's). The layout is the one
//! the last client to leave had, as tmux brings back a session's windows.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::tui::app::{App, Pane};
use crate::tui::panes::layout::Node;

/// What `ui.json` holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    #[serde(default)]
    pub drafts: BTreeMap<String, String>,
    #[serde(default)]
    pub layout: Option<SavedLayout>,
    /// The folders where the offer to create a terminal was answered or declined
    /// (`app::offer`): it is not asked there again.
    #[serde(default)]
    pub offered: std::collections::BTreeSet<String>,
}

/// The panes as a client left them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedLayout {
    pub tree: Node,
    pub panes: Vec<SavedPane>,
    pub active: usize,
    pub zoomed: bool,
}

/// One pane: the terminal it showed and its face.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedPane {
    pub term: Option<String>,
    #[serde(default)]
    pub face: Face,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    #[default]
    Transcript,
    Shell,
    Diff,
}

/// A draft this client changed: its new text, or None when it was emptied.
pub type DraftChange = (String, Option<String>);

impl SavedLayout {
    /// Whether the layout can be drawn: its tree names each pane once, and the focus is one.
    fn fits(&self) -> bool {
        let mut order = self.tree.panes();
        order.sort_unstable();
        order == (0..self.panes.len()).collect::<Vec<_>>() && self.active < self.panes.len()
    }
}

impl App {
    /// The layout to save.
    pub fn saved_layout(&self) -> SavedLayout {
        let panes = self
            .panes
            .iter()
            .map(|p| SavedPane {
                term: p.term.clone(),
                face: match (p.shell, p.diff) {
                    (true, _) => Face::Shell,
                    (false, true) => Face::Diff,
                    (false, false) => Face::Transcript,
                },
            })
            .collect();
        SavedLayout {
            tree: self.layout.clone(),
            panes,
            active: self.active,
            zoomed: self.zoomed,
        }
    }

    /// Takes what an earlier client left, before the server's first list arrives: its drafts
    /// and its layout (brought back once the list says which terminals still exist).
    pub fn restore(&mut self, saved: Saved) {
        self.drafts = saved.drafts.clone();
        self.drafts_loaded = saved.drafts;
        self.offered = saved.offered;
        self.saved_layout = saved.layout.filter(SavedLayout::fits);
    }

    /// At the first list: the saved layout comes back, panes of terminals gone showing
    /// nothing. False when there was none to bring back (or none of its terminals is left).
    pub(in crate::tui) fn bring_back_layout(&mut self) -> bool {
        let Some(saved) = self.saved_layout.take() else {
            return false;
        };
        let exists = |n: &String| self.term(n).is_some_and(|t| !t.info.archived);
        if !saved
            .panes
            .iter()
            .any(|p| p.term.as_ref().is_some_and(exists))
        {
            return false;
        }
        self.panes = saved
            .panes
            .iter()
            .map(|p| {
                let term = p.term.clone().filter(exists);
                let face = if term.is_some() {
                    p.face
                } else {
                    Face::Transcript
                };
                Pane {
                    term,
                    shell: face == Face::Shell,
                    diff: face == Face::Diff,
                    ..Pane::default()
                }
            })
            .collect();
        self.layout = saved.tree;
        self.active = saved.active;
        self.zoomed = saved.zoomed && self.panes.len() > 1;
        true
    }

    /// The composer belongs to the focused terminal: when the focus moved to another one, the
    /// text goes back to the terminal it was typed for and the new one's draft comes in. An
    /// edit of waiting input is not a draft: leaving it leaves the input as it was.
    pub(in crate::tui) fn sync_draft(&mut self) {
        // The active pane's terminal, even before its view arrived (a fork's reply comes
        // before the server announces it, and the rewound prompt is typed for it).
        // While the offer stands, the composer is the draft of the terminal it would create.
        let now = match self.offer {
            Some(_) => None,
            None => self.panes.get(self.active).and_then(|p| p.term.clone()),
        };
        if now == self.draft_owner {
            return;
        }
        let text = self.composer.text().to_string();
        // Typed for no terminal yet (before the first list came, or for the one the offer
        // would create): it stays in the composer, after the draft already there.
        let mut typed = String::new();
        if let Some(old) = self.draft_owner.take() {
            let edit = self.editing.as_ref().is_some_and(|(t, _)| *t == old);
            if edit {
                self.editing = None;
                self.drafts.remove(&old);
            } else if text.is_empty() {
                self.drafts.remove(&old);
            } else {
                self.drafts.insert(old, text);
            }
        } else {
            typed = text;
        }
        let next = now.as_ref().and_then(|n| self.drafts.remove(n));
        self.composer.set_text(next.as_deref().unwrap_or(""));
        self.keep_typed(&typed);
        self.draft_owner = now;
    }

    /// Text typed for no terminal yet, into the composer after the draft there (on a line of
    /// its own): nothing typed is lost, nothing glued to another prompt.
    pub(in crate::tui) fn keep_typed(&mut self, typed: &str) {
        if typed.is_empty() {
            return;
        }
        let joined = match self.composer.text() {
            "" => typed.to_string(),
            draft => format!("{draft}\n{typed}"),
        };
        self.composer.set_text(&joined);
    }

    /// Text for terminal `name`'s composer (a refused send coming back), wherever it is now;
    /// a draft already there is kept.
    pub(in crate::tui) fn put_back(&mut self, name: &str, text: &str) {
        if self.draft_owner.as_deref() == Some(name) {
            if self.composer.is_empty() {
                self.composer.set_text(text);
            }
            return;
        }
        self.drafts
            .entry(name.to_string())
            .or_insert_with(|| text.to_string());
    }

    /// Every terminal's draft now, the focused one's composer included (not an edit). The
    /// draft typed over the offer is kept under the folder's path (never a terminal's name).
    fn all_drafts(&self) -> BTreeMap<String, String> {
        let mut all = self.drafts.clone();
        if let Some(owner) = &self.draft_owner {
            let edit = self.editing.as_ref().is_some_and(|(t, _)| t == owner);
            if !edit && !self.composer.is_empty() {
                all.insert(owner.clone(), self.composer.text().to_string());
            }
        } else if self.offer.is_some() && !self.composer.is_empty() {
            all.insert(self.cwd.clone(), self.composer.text().to_string());
        }
        all
    }

    /// What is worth writing as soon as it changes: the layout and the drafts put aside by a
    /// change of focus (not every keystroke of the one being typed, which is written when the
    /// client ends).
    pub fn save_point(&self) -> (SavedLayout, BTreeMap<String, String>) {
        (self.saved_layout(), self.drafts.clone())
    }

    /// The drafts were written: from now on only later changes are this client's to write.
    pub fn saved(&mut self) {
        self.drafts_loaded = self.all_drafts();
    }

    /// The drafts this client changed since it read (or last wrote) them, for writing back.
    pub fn changed_drafts(&self) -> Vec<DraftChange> {
        let now = self.all_drafts();
        let mut out: Vec<DraftChange> = now
            .iter()
            .filter(|(k, v)| self.drafts_loaded.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), Some(v.clone())))
            .collect();
        out.extend(
            self.drafts_loaded
                .keys()
                .filter(|k| !now.contains_key(*k))
                .map(|k| (k.clone(), None)),
        );
        out
    }
}

/// `saved` with this client's changes: its drafts, and its layout.
pub fn merged(mut saved: Saved, changes: Vec<DraftChange>, layout: SavedLayout) -> Saved {
    for (name, text) in changes {
        match text {
            Some(t) => saved.drafts.insert(name, t),
            None => saved.drafts.remove(&name),
        };
    }
    saved.layout = Some(layout);
    saved
}

#[cfg(test)]
#[path = "saved_tests.rs"]
mod tests;
