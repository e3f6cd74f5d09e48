//! The offer to create a terminal in the folder baton was opened in, when none works there.
//!
//! It is never modal: a user who lives in tmux and Claude Code types a prompt the moment the
//! screen opens (often before it is drawn), and no letter may be taken as an answer. So the
//! offer is a line over the composer, and while it stands the composer holds a draft for the
//! terminal about to be created (never for the terminal another pane shows):
//! - Enter on a typed prompt creates the terminal here and sends it that prompt (Enter on an
//!   empty composer creates it with none);
//! - answers are keys that cannot be typed text: Ctrl-y creates it (the draft waits in its
//!   composer), Ctrl-e opens the new-terminal form first (Esc there comes back to the offer),
//!   Esc (or Ctrl-c on an empty composer) declines, and the draft moves, whole, to the
//!   composer of the terminal shown;
//! - moving the focus to a terminal sets the offer aside as a decline would;
//! - keys that act on a terminal (steer, jump, the waiting list, interrupt) do nothing while
//!   it stands: they would act on another folder's terminal.
//!
//! An Enter typed before the server's first list (in the burst that started baton) is kept
//! and acted on when it comes: sent to this folder's terminal (or the one `baton attach NAME`
//! named), or creating this folder's over the offer; never to a terminal of another folder.
//!
//! Each folder is asked once: once answered or declined, it is kept in the UI's saved state
//! (`saved::Saved::offered`) and not asked again (prefix `c` makes a terminal there later).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::protocol::{Request, SendModeArg};
use crate::tui::app::form::NewForm;
use crate::tui::app::{App, Effect, Mode, Tag};
use crate::tui::input::keys::PrefixAction;

/// The offer standing over the composer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offer {
    /// The terminal was asked for; the server has not answered yet.
    pub creating: bool,
    /// Once it exists, the composer's prompt is sent to it (Enter on a typed prompt).
    pub send: bool,
}

/// What a key does while the offer stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferKey {
    /// Create the terminal here; `send`: the composer's prompt goes to it.
    Create {
        send: bool,
    },
    /// The new-terminal form, filled in for here.
    Edit,
    Decline,
    /// Editing the draft: the composer's own key.
    Type,
    /// A key that would act on a terminal: nothing.
    Ignore,
}

/// The key's meaning over the offer. Pure.
pub fn offer_key(k: &KeyEvent, blank: bool) -> OfferKey {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    let newline = k
        .modifiers
        .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT);
    match k.code {
        KeyCode::Enter if newline => return OfferKey::Type,
        KeyCode::Enter => return OfferKey::Create { send: !blank },
        KeyCode::Char('y') if ctrl => return OfferKey::Create { send: false },
        // Over the offer, before the composer's C-e (which edits a terminal's waiting input).
        KeyCode::Char('e') if ctrl => return OfferKey::Edit,
        KeyCode::Esc => return OfferKey::Decline,
        KeyCode::Char('c') if ctrl && blank => return OfferKey::Decline,
        _ => {}
    }
    if crate::tui::input::keys::input_action(k).is_some() {
        return OfferKey::Ignore;
    }
    match k.code {
        KeyCode::Char('c' | 'u' | 'w' | 'a' | 'j') => OfferKey::Type,
        KeyCode::Char(_) if ctrl => OfferKey::Ignore,
        // Up and Down move in a draft; on an empty one they would open a terminal's list.
        KeyCode::Up | KeyCode::Down if blank => OfferKey::Ignore,
        KeyCode::Char(_)
        | KeyCode::Backspace
        | KeyCode::Delete
        | KeyCode::Left
        | KeyCode::Right
        | KeyCode::Up
        | KeyCode::Down
        | KeyCode::Home
        | KeyCode::End
        | KeyCode::PageUp
        | KeyCode::PageDown => OfferKey::Type,
        _ => OfferKey::Ignore,
    }
}

impl App {
    /// A key for the composer while the offer stands.
    pub(in crate::tui) fn key_over_offer(&mut self, k: KeyEvent) -> Vec<Effect> {
        let blank = self.composer.text().trim().is_empty();
        let creating = self.offer.is_some_and(|o| o.creating);
        match offer_key(&k, blank) {
            OfferKey::Type => return self.plain_key(k),
            OfferKey::Create { send } if creating => {
                if let Some(o) = &mut self.offer {
                    o.send |= send;
                }
            }
            OfferKey::Create { send } => return self.create_here(send),
            OfferKey::Edit if !creating => {
                self.mode = Mode::NewTerminal(NewForm::new(&self.cwd));
            }
            OfferKey::Decline if !creating => {
                self.offer_aside();
                let new = self.keys.hint(PrefixAction::NewTerminal);
                self.say(format!("no terminal here: {new} makes one later"));
            }
            OfferKey::Edit | OfferKey::Decline | OfferKey::Ignore => {}
        }
        Vec::new()
    }

    /// Asks the server for a terminal in the folder baton was opened in.
    fn create_here(&mut self, send: bool) -> Vec<Effect> {
        self.offer = Some(Offer {
            creating: true,
            send,
        });
        self.offered.insert(self.cwd.clone());
        self.say("creating a terminal here…");
        let req = Request::New {
            name: None,
            dir: self.cwd.clone(),
            provider: None,
            model: None,
            brief: None,
            in_place: false,
        };
        vec![Effect::Call(Tag::New, req)]
    }

    /// The offer is declined (or the user went to a terminal): not asked again here.
    pub(in crate::tui) fn offer_aside(&mut self) {
        self.offer = None;
        self.offered.insert(self.cwd.clone());
    }

    /// After a message: a focus the user moved to a terminal sets the offer aside.
    pub(super) fn offer_after(&mut self, focused_before: Option<String>) {
        let standing = self.offer.is_some_and(|o| !o.creating);
        if standing && focused_before.is_some() && self.focused_name() != focused_before {
            self.offer_aside();
        }
    }

    /// A terminal was created (by the offer or the form): the offer is answered, and the
    /// prompt typed for it is sent once the focus brought it into its composer.
    pub(super) fn offer_answered(&mut self, offer: Option<Offer>) -> Vec<Effect> {
        if offer.is_none() {
            return Vec::new();
        }
        self.offered.insert(self.cwd.clone());
        if offer.is_some_and(|o| o.send) {
            return self.submit(SendModeArg::Queue);
        }
        Vec::new()
    }

    /// At the first list, an Enter typed before it: the prompt goes to the terminal it was
    /// meant for (`meant`: the one `baton attach NAME` asked for, else this folder's), or
    /// creates this folder's over the offer. Never to another folder's terminal, which the
    /// user did not see had the focus: the prompt then waits in the composer.
    pub(super) fn early_enter(&mut self, meant: Option<String>) -> Vec<Effect> {
        if !std::mem::take(&mut self.early_enter) || self.composer.text().trim().is_empty() {
            return Vec::new();
        }
        if self.offer.is_some() {
            return self.create_here(true);
        }
        match self.focused_name() {
            Some(name) if meant.as_deref() == Some(name.as_str()) => {
                self.submit(SendModeArg::Queue)
            }
            Some(name) => {
                self.say(format!(
                    "not sent: no terminal works here; Enter sends it to {name}"
                ));
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// The server refused the terminal: the offer stands again, the draft where it was.
    pub(super) fn offer_refused(&mut self) {
        if let Some(o) = &mut self.offer {
            *o = Offer::default();
        }
    }
}

#[cfg(test)]
#[path = "offer_tests.rs"]
mod tests;
