//! The standing instructions overlay (prefix `i`, `/instructions`): the focused terminal's
//! lines, one selected; `d` removes it (asked first), `e` edits it and `a` adds one in a
//! one-line editor inside the overlay (Enter saves, Esc leaves it). Changes go through the
//! requests `baton instructions NAME rm N | edit N TEXT | add TEXT` make; the list shown is
//! always the server's (it comes back with the terminal's next announcement).

use crossterm::event::{KeyCode, KeyEvent};

use super::manage::{line_key, LineKey};
use super::{App, Effect, Mode, Tag};
use crate::protocol::{InstructionsAction, Request};

/// The overlay's state: the selected line (0-based) and what it is doing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing {
    pub selected: usize,
    pub step: Step,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Step {
    /// Moving through the list.
    #[default]
    Browse,
    /// Asked whether to remove the selected line (y/n).
    ConfirmRemove,
    /// The editor: line `number`'s new text, or (None) a line to add.
    Edit { number: Option<u32>, text: String },
}

/// What a key does in the overlay, given how many lines the terminal has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The overlay stays (its state may have changed).
    Stay,
    Close,
    /// Ask the server for this change.
    Change(InstructionsAction),
}

impl Standing {
    /// The key `k` on the overlay of a terminal with `lines` (pure: table-tested).
    pub fn key(&mut self, k: &KeyEvent, lines: &[String]) -> Outcome {
        self.selected = self.selected.min(lines.len().saturating_sub(1));
        let number = u32::try_from(self.selected + 1).unwrap_or(u32::MAX);
        match &mut self.step {
            Step::Browse => self.browse(k, lines, number),
            Step::ConfirmRemove => {
                self.step = Step::Browse;
                match k.code {
                    KeyCode::Char('y') if !lines.is_empty() => {
                        Outcome::Change(InstructionsAction::Rm { number })
                    }
                    _ => Outcome::Stay,
                }
            }
            Step::Edit { number, text } => match line_key(text, k) {
                LineKey::Cancel => {
                    self.step = Step::Browse;
                    Outcome::Stay
                }
                LineKey::Edited => Outcome::Stay,
                LineKey::Enter => {
                    let text = std::mem::take(text);
                    let action = match number {
                        Some(n) => InstructionsAction::Edit { number: *n, text },
                        None => InstructionsAction::Add { text },
                    };
                    self.step = Step::Browse;
                    Outcome::Change(action)
                }
            },
        }
    }

    fn browse(&mut self, k: &KeyEvent, lines: &[String], number: u32) -> Outcome {
        let any = !lines.is_empty();
        match k.code {
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = (self.selected + 1).min(lines.len().saturating_sub(1));
            }
            KeyCode::Char('d') | KeyCode::Delete if any => self.step = Step::ConfirmRemove,
            KeyCode::Char('e') | KeyCode::Enter if any => {
                self.step = Step::Edit {
                    number: Some(number),
                    text: lines[self.selected].clone(),
                };
            }
            KeyCode::Char('a') => {
                self.step = Step::Edit {
                    number: None,
                    text: String::new(),
                };
            }
            _ => return Outcome::Close,
        }
        Outcome::Stay
    }

    /// A paste into the editor: its first line.
    pub fn paste(&mut self, s: &str) {
        if let Step::Edit { text, .. } = &mut self.step {
            text.push_str(s.lines().next().unwrap_or(""));
        }
    }
}

impl App {
    /// Prefix `i`, `/instructions`: the overlay, its first line selected.
    pub(in crate::tui) fn open_instructions(&mut self) {
        self.mode = Mode::Instructions(Standing::default());
    }

    pub(in crate::tui) fn instructions_key(&mut self, k: &KeyEvent) -> Vec<Effect> {
        let lines = self
            .focused()
            .map(|t| t.info.instructions.clone())
            .unwrap_or_default();
        let name = self.focused_name();
        let Mode::Instructions(s) = &mut self.mode else {
            return Vec::new();
        };
        match s.key(k, &lines) {
            Outcome::Stay => Vec::new(),
            Outcome::Close => {
                self.mode = Mode::Normal;
                Vec::new()
            }
            Outcome::Change(action) => match name {
                Some(name) => {
                    let tag = Tag::Instructions(name.clone());
                    vec![Effect::Call(tag, Request::Instructions { name, action })]
                }
                None => Vec::new(),
            },
        }
    }

    /// The server's answer to a change made in the overlay: an error in the status line (the
    /// list itself follows the terminal's announcement).
    pub(in crate::tui) fn on_instructions_reply(
        &mut self,
        name: &str,
        result: Result<crate::protocol::Answer, crate::error::BatonError>,
    ) {
        match result {
            Ok(_) => self.say(format!("{name}'s standing instructions changed")),
            Err(e) => self.error(e.message),
        }
    }
}

#[cfg(test)]
#[path = "standing_tests.rs"]
mod tests;
