//! Branching a terminal's work from the UI: fork (prefix `f`: a new terminal carrying on from
//! where the focused one is now), rewind (Esc twice on an empty composer: before the last turn;
//! M-r on an earlier prompt shown by Up: before that prompt's turn), and archiving (prefix `a`
//! hides the focused terminal from the list or shows it again, prefix `A` lists the archived
//! ones too). The new terminal of a fork or rewind takes the focus; a rewind's composer holds
//! the rewound turn's prompt, byte for byte, to edit and send again.

use super::{App, Effect, Tag, TermView};
use crate::error::BatonError;
use crate::protocol::views::{ArchivedView, ForkView, HistoryMode, RewindView, TerminalState};
use crate::protocol::{Answer, Request};

fn history_word(h: HistoryMode) -> &'static str {
    match h {
        HistoryMode::Forked => "history forked",
        HistoryMode::Kept => "history kept",
        HistoryMode::Fresh => "fresh",
    }
}

fn with_notes(mut text: String, notes: &[String]) -> String {
    for n in notes {
        text.push_str(" · ");
        text.push_str(n);
    }
    text
}

impl App {
    /// The terminals the list shows, in its order (archived ones only when asked for).
    pub fn listed(&self) -> Vec<&TermView> {
        let mut listed: Vec<&TermView> = (self.terms.iter())
            .filter(|t| self.show_archived || !t.info.archived)
            .collect();
        // This machine's first, then host by host (`hosts`); stable within each.
        listed.sort_by_key(|t| self.group(&t.info.name));
        listed
    }

    /// The name of terminal `n` of the list.
    pub fn listed_name(&self, n: usize) -> Option<String> {
        self.listed().get(n).map(|t| t.info.name.clone())
    }

    /// Where terminal `name` is in the list.
    pub fn listed_index(&self, name: &str) -> Option<usize> {
        self.listed().iter().position(|t| t.info.name == name)
    }

    /// Prefix `f`: fork the focused terminal.
    pub(in crate::tui) fn fork(&mut self) -> Vec<Effect> {
        let Some(name) = self.focused_name() else {
            self.say("no terminal to fork");
            return Vec::new();
        };
        self.say(format!("forking {name}…"));
        vec![Effect::Call(
            Tag::Fork(name.clone()),
            Request::Fork { name, new: None },
        )]
    }

    /// Rewind the focused terminal to just before its turn `turn`.
    pub(in crate::tui) fn rewind(&mut self, turn: u32) -> Vec<Effect> {
        let Some(name) = self.focused_name() else {
            return Vec::new();
        };
        self.say(format!("rewinding {name} to before turn {turn}…"));
        vec![Effect::Call(
            Tag::Rewind(name.clone()),
            Request::Rewind {
                name,
                turn,
                new: None,
            },
        )]
    }

    /// Esc on an empty composer while no turn runs: the first arms, the second rewinds the
    /// focused terminal's last turn.
    pub(in crate::tui) fn esc_rewind(&mut self) -> Vec<Effect> {
        let Some(t) = self.focused() else {
            return Vec::new();
        };
        let name = t.info.name.clone();
        let last = t.transcript.turns.iter().rev().find(|t| t.end.is_some());
        let Some(turn) = last.map(|t| t.number) else {
            self.esc_armed = false;
            self.say(format!("{name} has no turn to rewind"));
            return Vec::new();
        };
        if !self.esc_armed {
            self.esc_armed = true;
            self.say(format!(
                "Esc again: rewind {name} to before turn {turn} (a new terminal; {name} stays)"
            ));
            return Vec::new();
        }
        self.esc_armed = false;
        self.rewind(turn)
    }

    /// M-r while Up shows an earlier prompt: rewind to before that prompt's turn.
    pub(in crate::tui) fn rewind_browsed(&mut self) -> Vec<Effect> {
        let turn = self.composer.browsing_index().and_then(|i| {
            let t = self.focused()?;
            let with_prompt = t.transcript.turns.iter().filter(|t| t.prompt.is_some());
            with_prompt.map(|t| t.number).nth(i)
        });
        match turn {
            Some(turn) => {
                self.composer.stop_browsing();
                self.rewind(turn)
            }
            None => {
                self.say("Up shows an earlier prompt first; M-r then rewinds to before its turn");
                Vec::new()
            }
        }
    }

    /// Prefix `a`: archive the focused terminal (or bring an archived one back).
    pub(in crate::tui) fn toggle_archive(&mut self) -> Vec<Effect> {
        let Some(t) = self.focused() else {
            self.say("no terminal to archive");
            return Vec::new();
        };
        let (name, archived) = (t.info.name.clone(), !t.info.archived);
        if archived && t.info.state == TerminalState::Running {
            self.say(format!("{name} runs a turn: it is archived all the same"));
        }
        vec![Effect::Call(
            Tag::Archive(name.clone()),
            Request::Archive { name, archived },
        )]
    }

    /// Prefix `A`: list the archived terminals too, or not.
    pub(in crate::tui) fn toggle_show_archived(&mut self) -> Vec<Effect> {
        self.show_archived = !self.show_archived;
        let n = self.terms.iter().filter(|t| t.info.archived).count();
        if self.show_archived {
            self.say(format!("showing archived terminals ({n})"));
            return Vec::new();
        }
        self.say(format!("archived terminals hidden ({n})"));
        let hidden: Vec<String> = self
            .terms
            .iter()
            .filter(|t| t.info.archived)
            .map(|t| t.info.name.clone())
            .collect();
        hidden.iter().flat_map(|n| self.unshow(n)).collect()
    }

    /// Panes showing `name` (gone or hidden) show another terminal of the list, or nothing.
    pub(in crate::tui) fn unshow(&mut self, name: &str) -> Vec<Effect> {
        let mut fx = Vec::new();
        for idx in 0..self.panes.len() {
            if self.panes[idx].term.as_deref() != Some(name) {
                continue;
            }
            let names: Vec<String> = self
                .listed()
                .iter()
                .map(|t| t.info.name.clone())
                .filter(|n| n != name)
                .collect();
            let next = names
                .iter()
                .find(|n| !self.visible(n))
                .or(names.first())
                .cloned();
            let p = &mut self.panes[idx];
            p.term = next.clone();
            p.scroll = 0;
            p.shell = false;
            p.diff = false;
            if idx == self.active {
                self.esc_armed = false;
                self.selected = None;
            }
            if let Some(n) = next {
                fx.extend(self.show_effects(&n));
            }
        }
        fx
    }

    /// A new terminal `new` came of `from`: it takes the focus (the server announces it too,
    /// maybe later), and `from`'s history is read again for its "forked into" line.
    fn branched(&mut self, from: &str, new: &str) -> Vec<Effect> {
        let mut fx = self.focus(new);
        if let Some(t) = self.term_mut(from) {
            t.log_requested = false;
        }
        if self.visible(from) {
            fx.extend(self.show_effects(from));
        }
        fx
    }

    pub(in crate::tui) fn on_branch_reply(
        &mut self,
        tag: Tag,
        result: Result<Answer, BatonError>,
    ) -> Vec<Effect> {
        match (tag, result) {
            (Tag::Fork(name), Ok(v)) => {
                let v = match ForkView::try_from(v) {
                    Ok(v) => v,
                    Err(e) => {
                        self.error(format!("{name}: {e}"));
                        return Vec::new();
                    }
                };
                let fx = self.branched(&v.from, &v.name);
                let text = format!(
                    "forked {} at turn {} into {} ({})",
                    v.from,
                    v.from_turn,
                    v.name,
                    history_word(v.session_mode)
                );
                self.say(with_notes(text, &v.notes));
                fx
            }
            (Tag::Rewind(name), Ok(v)) => {
                let v = match RewindView::try_from(v) {
                    Ok(v) => v,
                    Err(e) => {
                        self.error(format!("{name}: {e}"));
                        return Vec::new();
                    }
                };
                let fx = self.branched(&v.from, &v.name);
                let mut text = format!(
                    "rewound {} to before turn {} into {} ({})",
                    v.from,
                    v.before_turn,
                    v.name,
                    history_word(v.history)
                );
                if self.composer.is_empty() {
                    self.composer.set_text(&v.prompt);
                    self.editing = None;
                } else {
                    text.push_str(" · the composer was not empty: the turn's prompt is not in it");
                }
                self.say(with_notes(text, &v.notes));
                fx
            }
            (Tag::Archive(name), Ok(v)) => {
                let archived = ArchivedView::try_from(v).map_or(true, |v| v.archived);
                if let Some(t) = self.term_mut(&name) {
                    t.info.archived = archived;
                }
                if !archived {
                    self.say(format!("{name} is back in the list"));
                    return Vec::new();
                }
                self.say(format!(
                    "archived {name} ({} lists archived terminals)",
                    self.keys
                        .hint(crate::tui::input::keys::PrefixAction::ShowArchived)
                ));
                if self.show_archived {
                    return Vec::new();
                }
                self.unshow(&name)
            }
            (Tag::Fork(name) | Tag::Rewind(name) | Tag::Archive(name), Err(e)) => {
                self.error(format!("{name}: {}", e.message));
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
#[path = "branch_tests.rs"]
mod tests;
