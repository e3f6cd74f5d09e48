//! The composer's slash commands carried out (`slash.rs` says what the text is): Enter on
//! baton's `/name` acts on the focused terminal, Tab completes the name. The command prompt's
//! commands go through `prompt.rs`, as when typed after prefix `:`.

use super::command::Answer;
use super::slash::{self, Action, Typed};
use super::{App, Effect, Mode};
use crate::protocol::Request;
use crate::tui::input::keys::PrefixAction;

/// What Enter does with the composer's text.
pub(in crate::tui) enum OnEnter {
    /// Send it (as the CLI gets it: `//x` already turned into `/x`).
    Send,
    /// baton's command was run: these are its effects.
    Ran(Vec<Effect>),
}

impl App {
    /// Enter on the composer: a baton slash command runs; `//text` is sent as `/text`.
    pub(in crate::tui) fn slash_enter(&mut self) -> OnEnter {
        let text = self.composer.text().to_string();
        match slash::classify(&text) {
            Typed::Prompt | Typed::Cli => OnEnter::Send,
            Typed::Escaped(sent) => {
                self.composer.set_text(sent);
                OnEnter::Send
            }
            Typed::Glued { name } => {
                self.error(slash::glued(&text, name).trim().to_string());
                OnEnter::Ran(Vec::new())
            }
            Typed::Baton { name, rest } => {
                let Some(term) = self.focused_name() else {
                    self.error(format!(
                        "/{name}: no terminal yet: create one with {}",
                        self.keys.hint(PrefixAction::NewTerminal)
                    ));
                    return OnEnter::Ran(Vec::new());
                };
                let made = slash::action(name, rest, &term);
                let action = match made {
                    Ok(a) => a,
                    Err(e) => {
                        self.error(e);
                        return OnEnter::Ran(Vec::new());
                    }
                };
                self.composer.take();
                OnEnter::Ran(self.slash_action(&text, action))
            }
        }
    }

    fn slash_action(&mut self, typed: &str, action: Action) -> Vec<Effect> {
        match action {
            Action::Command(words) => {
                let home = std::env::var("HOME").ok();
                match super::command::parse_words(&words, &self.cwd, home.as_deref()) {
                    Ok(Some((request, answer))) => {
                        return self.call_command(typed, request, answer)
                    }
                    Ok(None) => {}
                    Err(e) => self.error(e.to_string()),
                }
            }
            Action::Fresh => {
                self.next_fresh = true;
                self.say("the next prompt opens a fresh conversation");
            }
            Action::Model(m) => {
                self.say(slash::model_said(&m));
                self.next_model = Some(m);
            }
            Action::Provider(kind, endpoint) => {
                let own = self.focused().map(|t| t.info.provider);
                let same = Some(kind) == own && endpoint.is_none();
                self.next_provider = (!same).then_some(kind);
                self.next_endpoint = endpoint.filter(|_| !same);
                let shown = self.prompt_provider().unwrap_or_default();
                self.say(format!("the next prompt goes to {shown}"));
            }
            Action::Instructions => self.open_instructions(),
            Action::Cost => {
                if let Some(name) = self.focused_name() {
                    let request = Request::Log { name };
                    return self.call_command(typed, request, Answer::Cost);
                }
            }
            Action::Help => self.mode = Mode::Help { scroll: 0, page: 1 },
        }
        Vec::new()
    }

    /// Tab on a `/…` composer: the command's name completed (Tab again: the next match).
    /// False when the text is not a slash command's start (Tab then switches provider).
    pub(in crate::tui) fn slash_tab(&mut self) -> bool {
        let text = self.composer.text().to_string();
        match slash::complete(&text, self.slash_cycle.as_ref()) {
            Some((done, cycle)) => {
                self.composer.set_text(&done);
                self.slash_cycle = Some(cycle);
                true
            }
            None => text.starts_with('/') && !text.contains(char::is_whitespace),
        }
    }
}

#[cfg(test)]
#[path = "slash_run_tests.rs"]
mod tests;
