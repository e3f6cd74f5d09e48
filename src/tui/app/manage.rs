//! Renaming and removing terminals from the UI: prefix `,` types a new name in the status line,
//! prefix `X` asks before removing; the server's answers, and the renames and removals other
//! clients made (announced on the watch stream).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::error::BatonError;
use crate::protocol::views::RemovedView;
use crate::protocol::{Answer, Request};
use crate::tui::app::{App, Effect, Mode, Tag};

impl App {
    /// Prefix `,`: a new name for the focused terminal.
    pub(in crate::tui) fn start_rename(&mut self) {
        match self.focused_name() {
            Some(name) => {
                self.mode = Mode::Rename {
                    text: name.clone(),
                    name,
                }
            }
            None => self.say("no terminal to rename"),
        }
    }

    /// Prefix `X`: asks before removing the focused terminal.
    pub(in crate::tui) fn ask_remove(&mut self) {
        match self.focused_name() {
            Some(name) => self.mode = Mode::ConfirmRemove(name),
            None => self.say("no terminal to remove"),
        }
    }

    pub(in crate::tui) fn confirm_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Mode::ConfirmRemove(name) = &self.mode else {
            return Vec::new();
        };
        let name = name.clone();
        self.mode = Mode::Normal;
        if !matches!(k.code, KeyCode::Char('y' | 'Y')) {
            self.say(format!("{name} kept"));
            return Vec::new();
        }
        self.say(format!("removing {name}…"));
        vec![Effect::Call(
            Tag::Remove(name.clone()),
            Request::Rm {
                name,
                delete_branch: false,
                force: false,
            },
        )]
    }

    pub(in crate::tui) fn rename_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Mode::Rename { name, text } = &mut self.mode else {
            return Vec::new();
        };
        match line_key(text, &k) {
            LineKey::Cancel => self.mode = Mode::Normal,
            LineKey::Edited => {}
            LineKey::Enter => {
                let (name, new_name) = (name.clone(), text.trim().to_string());
                // Another host's terminal keeps its host: `u` there is `HOST:u` here.
                let new_name = super::hosts::on_same_host(&name, new_name);
                self.mode = Mode::Normal;
                if new_name == name || new_name.is_empty() {
                    return Vec::new();
                }
                self.say(format!("renaming {name}…"));
                return vec![Effect::Call(
                    Tag::Rename(name.clone(), new_name.clone()),
                    Request::Rename { name, new_name },
                )];
            }
        }
        Vec::new()
    }

    pub(in crate::tui) fn on_manage_reply(
        &mut self,
        tag: Tag,
        result: Result<Answer, BatonError>,
    ) -> Vec<Effect> {
        match (tag, result) {
            (Tag::Diff(name), result) => {
                self.on_diff(&name, result);
                Vec::new()
            }
            (Tag::Rename(old, new), Ok(_)) => {
                let fx = self.renamed(&old, &new);
                self.say(format!("renamed {old} to {new}"));
                fx
            }
            (Tag::Remove(name), Ok(v)) => {
                let fx = self.removed(&name);
                let kept = RemovedView::try_from(v)
                    .ok()
                    .and_then(|v| v.branch)
                    .map(|b| format!(" (its work is on branch {b})"))
                    .unwrap_or_default();
                self.say(format!("removed {name}{kept}"));
                fx
            }
            (Tag::Rename(name, _) | Tag::Remove(name), Err(e)) => {
                self.error(format!("{name}: {}", e.message));
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// Terminal `old` is called `new` now (told by the server, or by our own request's reply:
    /// whichever comes second finds nothing left to do).
    pub fn renamed(&mut self, old: &str, new: &str) -> Vec<Effect> {
        if self.term(old).is_some() {
            // An announcement under the new name may have arrived first: keep our history.
            if let Some(i) = self.terms.iter().position(|t| t.info.name == new) {
                self.terms.remove(i);
            }
        }
        let mut fx = Vec::new();
        if let Some(t) = self.term_mut(old) {
            t.info.name = new.to_string();
            // The shell connection is keyed by name: attach again under the new one.
            if t.shell.take().is_some() {
                fx.push(Effect::ShellForget {
                    name: old.to_string(),
                });
            }
        }
        for p in &mut self.panes {
            if p.term.as_deref() == Some(old) {
                p.term = Some(new.to_string());
            }
        }
        // The draft goes with its terminal.
        if let Some(d) = self.drafts.remove(old) {
            self.drafts.insert(new.to_string(), d);
        }
        if self.draft_owner.as_deref() == Some(old) {
            self.draft_owner = Some(new.to_string());
        }
        if let Some((t, _)) = &mut self.editing {
            if t == old {
                *t = new.to_string();
            }
        }
        if let Mode::Rename { name, .. } | Mode::ConfirmRemove(name) = &mut self.mode {
            if name == old {
                *name = new.to_string();
            }
        }
        fx
    }

    /// Terminal `name` is gone: its panes show another terminal (or nothing).
    pub fn removed(&mut self, name: &str) -> Vec<Effect> {
        let Some(i) = self.terms.iter().position(|t| t.info.name == name) else {
            return Vec::new();
        };
        let gone = self.terms.remove(i);
        // Its draft goes with it (written back as gone).
        self.drafts.remove(name);
        if self.draft_owner.as_deref() == Some(name) {
            self.draft_owner = None;
            self.composer.set_text("");
        }
        if self.editing.as_ref().is_some_and(|(t, _)| t == name) {
            self.editing = None;
        }
        let mut fx = Vec::new();
        if gone.shell.is_some() {
            fx.push(Effect::ShellForget {
                name: name.to_string(),
            });
        }
        if matches!(&self.mode, Mode::Rename { name: n, .. } | Mode::ConfirmRemove(n) if n == name)
        {
            self.mode = Mode::Normal;
        }
        fx.extend(self.unshow(name));
        fx
    }
}

/// What a key typed into a line of the status line (a new name, a command) did to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::tui) enum LineKey {
    /// Esc or C-c: leave it.
    Cancel,
    Enter,
    /// A character typed or erased (C-u: the whole line), or a key it ignores.
    Edited,
}

pub(in crate::tui) fn line_key(text: &mut String, k: &KeyEvent) -> LineKey {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Esc => return LineKey::Cancel,
        KeyCode::Char('c') if ctrl => return LineKey::Cancel,
        KeyCode::Enter => return LineKey::Enter,
        KeyCode::Char('u') if ctrl => text.clear(),
        KeyCode::Backspace => {
            text.pop();
        }
        KeyCode::Char(c) if !ctrl => text.push(c),
        _ => {}
    }
    LineKey::Edited
}
