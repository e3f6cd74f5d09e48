//! Input as the server owns it: Enter (or steer, or jump) sends at once and the server queues
//! it; the waiting list is the server's (`TerminalView::queue`, the same in every client), and
//! this client only selects in it and asks for changes (`Request::Queue`). Taking an input back to
//! edit keeps it in its place on the server: Enter then saves the text (`queue edit N`).

use crossterm::event::KeyEvent;

use super::slash_run::OnEnter;
use super::{App, Effect, Tag};
use crate::error::BatonError;
use crate::protocol::views::{AcceptedView, QueuedView};
use crate::protocol::{Answer, QueueAction, QueueChange, Request, SendModeArg, SendRequest};
use crate::tui::input::keys::{self, InputAction, PrefixAction, WaitingAction};
use crate::tui::panes::layout::Side;

impl App {
    /// The focused terminal's waiting input.
    pub fn focused_queue(&self) -> &[QueuedView] {
        self.focused().map_or(&[], |t| &t.info.queue[..])
    }

    /// Enter, M-s or M-j in the composer: the prompt goes to the server at once (it queues it
    /// behind the running turn), or the input taken back to edit is saved in place.
    pub fn submit(&mut self, mode: SendModeArg) -> Vec<Effect> {
        if let Some((name, input)) = self.editing.clone() {
            return self.save_edit(&name, input, mode);
        }
        if self.composer.text().trim().is_empty() {
            return Vec::new();
        }
        if !self.connected && mode == SendModeArg::Queue {
            // Typed in the burst that started baton: sent once the list says where.
            self.early_enter = true;
            return Vec::new();
        }
        let Some(name) = self.focused_name() else {
            self.error(format!(
                "no terminal yet: create one with {}",
                self.keys.hint(PrefixAction::NewTerminal)
            ));
            return Vec::new();
        };
        match self.slash_enter() {
            OnEnter::Ran(fx) => return fx,
            OnEnter::Send => {}
        }
        let prompt = self.composer.take();
        let send = SendRequest {
            provider: self
                .prompt_provider()
                .filter(|_| self.next_provider.is_some()),
            model: self.next_model.take(),
            mode,
            fresh: std::mem::take(&mut self.next_fresh),
            ..SendRequest::new(prompt.clone())
        };
        (self.next_provider, self.next_endpoint) = (None, None);
        vec![Effect::Call(
            Tag::Send {
                name: name.clone(),
                prompt,
            },
            Request::Send {
                name,
                send,
                detach: true,
            },
        )]
    }

    fn save_edit(&mut self, name: &str, input: u32, mode: SendModeArg) -> Vec<Effect> {
        if mode != SendModeArg::Queue {
            self.say(format!(
                "Enter saves the edit of input {input} first; then Up selects it (s steer, ! jump)"
            ));
            return Vec::new();
        }
        self.editing = None;
        let text = self.composer.take();
        if text.trim().is_empty() {
            self.say(format!("edit left: input {input} waits as it was"));
            return Vec::new();
        }
        vec![queue_call(name, input, QueueAction::Edit { text })]
    }

    /// The composer's keys for waiting input ([`keys::INPUT_KEYS`]).
    pub(in crate::tui) fn input_key(&mut self, a: InputAction) -> Vec<Effect> {
        match a {
            InputAction::SendSteer => self.submit(SendModeArg::Steer),
            InputAction::SendJump => self.submit(SendModeArg::Jump),
            InputAction::RewindBrowsed => self.rewind_browsed(),
            InputAction::ToggleFresh => {
                self.next_fresh = !self.next_fresh;
                Vec::new()
            }
            InputAction::EditLast => match self.focused_queue().last().map(|q| q.input) {
                Some(input) => self.on_waiting_input(input, WaitingAction::Edit),
                None => self.nothing_waits(),
            },
            InputAction::WithdrawLast => match self.focused_queue().last().map(|q| q.input) {
                Some(input) => self.on_waiting_input(input, WaitingAction::Withdraw),
                None => self.nothing_waits(),
            },
        }
    }

    fn nothing_waits(&mut self) -> Vec<Effect> {
        self.say("no waiting input");
        Vec::new()
    }

    /// Up from an empty composer: select the last waiting input. False when nothing waits.
    pub(in crate::tui) fn enter_waiting(&mut self) -> bool {
        self.selected = self.focused_queue().last().map(|q| q.input);
        self.selected.is_some()
    }

    /// A key while a waiting input is selected; None: the key is not one of the list's, the
    /// selection ends and the composer takes it.
    pub(in crate::tui) fn waiting_key(&mut self, k: &KeyEvent) -> Option<Vec<Effect>> {
        let input = self.selected?;
        let Some(a) = keys::waiting_action(k) else {
            self.selected = None;
            return None;
        };
        Some(self.on_waiting_input(input, a))
    }

    fn on_waiting_input(&mut self, input: u32, a: WaitingAction) -> Vec<Effect> {
        let Some(name) = self.focused_name() else {
            return Vec::new();
        };
        let queue = self.focused_queue().to_vec();
        let Some(i) = queue.iter().position(|q| q.input == input) else {
            self.selected = None;
            return Vec::new();
        };
        let neighbour = |j: Option<usize>| j.and_then(|j| queue.get(j)).map(|q| q.input);
        let position = queue[i].position;
        match a {
            WaitingAction::Select(Side::Up) => {
                self.selected = neighbour(i.checked_sub(1));
                if self.selected.is_none() {
                    // Past the top of the list: the earlier prompts, as Up did before.
                    self.history_prev();
                }
                Vec::new()
            }
            WaitingAction::Select(_) => {
                self.selected = neighbour(Some(i + 1));
                Vec::new()
            }
            WaitingAction::Leave => {
                self.selected = None;
                Vec::new()
            }
            WaitingAction::Edit => {
                if !self.composer.is_empty() {
                    self.say("send or clear the composer first (C-u), then take the input back");
                    return Vec::new();
                }
                self.composer.set_text(&queue[i].prompt);
                self.editing = Some((name, input));
                self.selected = None;
                Vec::new()
            }
            WaitingAction::Withdraw => {
                // The list loses it: the selection goes to the next one, else the one before.
                self.selected = neighbour(Some(i + 1)).or(neighbour(i.checked_sub(1)));
                vec![queue_call(&name, input, QueueAction::Rm)]
            }
            WaitingAction::Move(side) => {
                let to = match side {
                    Side::Up if position > 1 => position - 1,
                    Side::Up => return Vec::new(),
                    _ if i + 1 < queue.len() => position + 1,
                    _ => return Vec::new(),
                };
                let action = QueueAction::Move { position: to };
                vec![queue_call(&name, input, action)]
            }
            WaitingAction::Steer => vec![queue_call(&name, input, QueueAction::Steer)],
            WaitingAction::Jump => {
                self.selected = None;
                vec![queue_call(&name, input, QueueAction::Jump)]
            }
            WaitingAction::Run => {
                let tag = Tag::Queue {
                    name: name.clone(),
                    edit: None,
                };
                vec![Effect::Call(tag, Request::QueueRun { name })]
            }
        }
    }

    /// Terminal `name`'s queue changed on the server: a selection or an edit of input that is
    /// no longer waiting ends.
    pub(in crate::tui) fn queue_changed(&mut self, name: &str) {
        let waits = |app: &App, input: u32| {
            app.term(name)
                .is_some_and(|t| t.info.queue.iter().any(|q| q.input == input))
        };
        let focused = self.focused_name().as_deref() == Some(name);
        if focused && self.selected.is_some_and(|i| !waits(self, i)) {
            self.selected = None;
        }
        if let Some((_, input)) = self.editing.clone().filter(|(t, _)| t == name) {
            if !waits(self, input) {
                self.editing = None;
                self.error(format!(
                    "{name}: input {input} started or was withdrawn before the edit was saved; \
                     Enter sends the text as new input"
                ));
            }
        }
    }

    /// The server's answer to a send or a change of the queue. The list itself changes with
    /// the watch stream's `Terminal` event (every client's, this one's too).
    pub(in crate::tui) fn on_input_reply(&mut self, tag: Tag, result: Result<Answer, BatonError>) {
        let (name, back) = match tag {
            Tag::Send { name, prompt } => (name, Some(prompt)),
            Tag::Queue { name, edit } => (name, edit),
            _ => return,
        };
        match result {
            Ok(data) => {
                // A send answers what became of it ("codex exec cannot take input mid-turn").
                if let Some(note) = AcceptedView::try_from(data).ok().and_then(|a| a.note) {
                    self.say(format!("{name}: {note}"));
                }
            }
            Err(e) => {
                if let Some(text) = back {
                    self.put_back(&name, &text);
                }
                self.error(format!("{name}: {e}"));
            }
        }
    }
}

/// A change of waiting input `input`; an edit's text comes back to the composer if refused.
fn queue_call(name: &str, input: u32, action: QueueAction) -> Effect {
    let text = match &action {
        QueueAction::Edit { text } => Some(text.clone()),
        QueueAction::Rm | QueueAction::Move { .. } | QueueAction::Steer | QueueAction::Jump => None,
    };
    Effect::Call(
        Tag::Queue {
            name: name.to_string(),
            edit: text,
        },
        Request::Queue {
            name: name.to_string(),
            change: Some(QueueChange { input, action }),
        },
    )
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
