//! The server's watch stream applied to the state: the list of terminals (at start and after
//! this client fell behind), a terminal's change, the steps and end of a turn, renames and
//! removals.

use crate::protocol::views::TerminalView;
use crate::protocol::WatchEvent;
use crate::tui::app::hosts::host_of;
use crate::tui::app::{log_call, App, Effect, TermView};
use crate::words::TurnStatus;

impl App {
    pub(super) fn on_watch(&mut self, ev: WatchEvent) -> Vec<Effect> {
        match ev {
            WatchEvent::Terminals { terminals } => self.on_snapshot(&terminals),
            WatchEvent::Terminal { terminal } => self.on_terminal(*terminal),
            WatchEvent::Turn { name, event } => {
                let Some(t) = self.term_mut(&name) else {
                    return Vec::new();
                };
                if matches!(event, crate::protocol::SendEvent::Started { .. }) {
                    t.unseen = None;
                }
                t.transcript.step(&event);
                Vec::new()
            }
            WatchEvent::Refused { name, error } => {
                self.error(format!("{name}: {}", error.message));
                Vec::new()
            }
            WatchEvent::Finished { name, summary } => {
                let visible = self.visible(&name);
                // "interrupting api…" is stale once api's turn ended; a command's answer (`: send`
                // said "accepted as input …") stays until the next key.
                if self.status_until_end.as_deref() == Some(name.as_str()) {
                    self.status = None;
                    self.status_until_end = None;
                }
                let refresh = self.refresh_diff(&name);
                let Some(t) = self.term_mut(&name) else {
                    return Vec::new();
                };
                // Steps of it were missed while this client fell behind: read it whole.
                let reread = t.transcript.finished(&summary).then(|| log_call(&name));
                if visible {
                    return refresh.into_iter().chain(reread).collect();
                }
                t.unseen = Some(summary.status);
                let body = match summary.status {
                    TurnStatus::Completed => format!("{name}: turn {} completed", summary.number),
                    TurnStatus::Failed => format!("{name}: turn {} failed", summary.number),
                    TurnStatus::Interrupted => {
                        format!("{name}: turn {} interrupted", summary.number)
                    }
                };
                let notify = Effect::Notify {
                    title: self.title.clone(),
                    body,
                };
                std::iter::once(notify).chain(reread).collect()
            }
            WatchEvent::Renamed { name, new_name } => self.renamed(&name, &new_name),
            WatchEvent::Removed { name } => self.removed(&name),
        }
    }

    /// A terminal's change (or a new terminal): its view, its waiting input, its diff face.
    fn on_terminal(&mut self, terminal: TerminalView) -> Vec<Effect> {
        let name = terminal.name.clone();
        let hidden = terminal.archived && !self.show_archived;
        let notify = self.approval_notice(&terminal);
        let notify: Vec<Effect> = notify
            .into_iter()
            .chain(self.lane_notice(&terminal))
            .collect();
        let mut fx = match self.term_mut(&name) {
            Some(t) => {
                t.set_info(terminal);
                live_title(t);
                // What changed may change its diff (`baton merge` landed it).
                self.refresh_diff(&name)
            }
            None => {
                self.terms.push(TermView::new(terminal));
                // A pane may show it already (a fork's reply came first).
                if self.visible(&name) {
                    self.show_effects(&name)
                } else {
                    Vec::new()
                }
            }
        };
        fx.extend(notify);
        self.queue_changed(&name);
        if hidden && self.visible(&name) {
            fx.extend(self.unshow(&name));
        }
        if !hidden && self.panes.iter().all(|p| p.term.is_none()) {
            fx.extend(self.focus(&name));
        }
        fx
    }

    /// The bell / desktop notification when `terminal`, out of view, starts waiting for an
    /// answer it was not waiting for before.
    fn approval_notice(&self, terminal: &TerminalView) -> Option<Effect> {
        let a = terminal.approval.as_ref()?;
        let before = self
            .terms
            .iter()
            .find(|t| t.info.name == terminal.name)
            .and_then(|t| t.info.approval.as_ref());
        if before.is_some_and(|b| b.id == a.id) || self.visible(&terminal.name) {
            return None;
        }
        Some(Effect::Notify {
            title: self.title.clone(),
            body: crate::tui::app::approval::notice(a),
        })
    }

    /// The bell / desktop notification when the integration lane finds `terminal` conflicting
    /// where it did not before.
    fn lane_notice(&self, terminal: &TerminalView) -> Option<Effect> {
        use crate::protocol::lane::LaneStatus;
        let mark = terminal.lane.as_ref()?;
        let conflict =
            |m: &crate::protocol::lane::LaneTerminalView| m.status == LaneStatus::Conflict;
        let before = self
            .terms
            .iter()
            .find(|t| t.info.name == terminal.name)
            .and_then(|t| t.info.lane.as_ref());
        if !conflict(mark) || before.is_some_and(conflict) {
            return None;
        }
        Some(Effect::Notify {
            title: self.title.clone(),
            body: crate::client::render_lane::mark_line(&terminal.name, mark)
                .trim_end()
                .to_string(),
        })
    }

    /// The full list: at start, and again after this client fell behind (re-read what it shows).
    fn on_snapshot(&mut self, terminals: &[TerminalView]) -> Vec<Effect> {
        let first = !self.connected;
        self.connected = true;
        self.replace_terms(None, terminals);
        let mut fx = Vec::new();
        if first {
            // What was typed before this list is put back once the focus settled (below), so
            // the focus moving twice (a layout, then `attach NAME`) cannot put it aside.
            let mut early = String::new();
            if self.draft_owner.is_none() {
                early = self.composer.text().to_string();
                self.composer.set_text("");
            }
            let answered = self.offered.contains(&self.cwd);
            let listed = self.listed();
            // Only this machine's: a remote terminal's folder is on its host.
            let here = listed
                .iter()
                .filter(|t| host_of(&t.info.name).is_none())
                .find(|t| t.info.dir == self.cwd || t.info.checkout.source == self.cwd)
                .map(|t| t.info.name.clone());
            let first_listed = listed.first().map(|t| t.info.name.clone());
            // Where an Enter typed before this list may send: the terminal asked for, or
            // this folder's.
            let meant = self.attach_to.clone().or(here.clone());
            // The offer stands before any focus: the composer is the draft of its terminal.
            if here.is_none() && self.attach_to.is_none() && !answered {
                self.offer = Some(Default::default());
            }
            if self.bring_back_layout() {
                // The layout as it was, the focus where the user left it whatever the folder
                // (keys typed at once are meant for that pane; `baton attach NAME` moves it).
                // Its panes read their history below; its diff faces read their diff.
                let diffs: Vec<String> = (self.panes.iter())
                    .filter(|p| p.diff)
                    .filter_map(|p| p.term.clone())
                    .collect();
                for name in diffs {
                    fx.extend(self.refresh_diff(&name));
                }
            } else if let Some(name) = here.clone().or(first_listed) {
                fx.extend(self.focus(&name));
            }
            // Another host's terminal is focused when that host's list comes (`hosts`).
            let remote = (self.attach_to.as_deref()).is_some_and(|n| host_of(n).is_some());
            if !remote {
                if let Some(name) = self.attach_to.take() {
                    fx.extend(self.attach_focus(&name));
                }
            }
            if self.offer.is_some() {
                // The draft a client left over this folder's offer (`saved`).
                let kept = self.drafts.remove(&self.cwd).unwrap_or_default();
                self.composer.set_text(&kept);
            }
            self.sync_draft();
            self.keep_typed(&early);
            fx.extend(self.early_enter(meant));
        }
        fx.extend(self.reread_shown());
        fx
    }

    /// After a full list: what the panes show reads its history again; every terminal's
    /// waiting input is checked against the selection.
    pub(super) fn reread_shown(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        let shown: Vec<String> = self.panes.iter().filter_map(|p| p.term.clone()).collect();
        for name in shown {
            fx.extend(self.show_effects(&name));
        }
        let names: Vec<String> = self.terms.iter().map(|t| t.info.name.clone()).collect();
        for name in names {
            self.queue_changed(&name);
        }
        fx
    }
}

impl App {
    /// `baton attach NAME`: the pane that shows NAME takes the focus, else the active pane
    /// shows it (an archived one is listed too, so it can be seen where it is).
    pub(in crate::tui) fn attach_focus(&mut self, name: &str) -> Vec<Effect> {
        let Some(t) = self.term(name) else {
            self.error(format!("no terminal {name}"));
            return Vec::new();
        };
        if t.info.archived {
            self.show_archived = true;
        }
        self.choose(name)
    }
}

/// The live conversation's title, as the server has it now, for the transcript's dividers.
pub(super) fn live_title(t: &mut TermView) {
    if let Some(c) = &t.info.conversation {
        if let Some(title) = &c.title {
            t.transcript.set_title(c.number, title);
        }
    }
}
