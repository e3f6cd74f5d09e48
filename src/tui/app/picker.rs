//! The tree picker of terminals (prefix `w`, as tmux's `choose-tree`): the listed terminals
//! with their state, the one under the cursor shown in the active pane on Enter. Arrows, `j`/`k`
//! and C-n/C-p move; `/` or any other character typed filters (by name or conversation title,
//! any case), Backspace edits the filter, Esc closes. Pure: table-tested.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::tui::app::{App, Effect, Mode, TermView};

/// The picker's state: the filter typed so far and the row under the cursor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picker {
    pub filter: String,
    /// `/` was typed (or a character that is not a motion): every character now filters.
    pub typing: bool,
    /// The row under the cursor, among the terminals the filter keeps.
    pub at: usize,
}

/// Whether terminal `t` is kept by `filter`: its name or title holds it, any case.
pub fn keeps(t: &TermView, filter: &str) -> bool {
    let filter = filter.to_lowercase();
    t.info.name.to_lowercase().contains(&filter)
        || t.title()
            .is_some_and(|title| title.to_lowercase().contains(&filter))
}

impl App {
    /// Prefix `w`: the picker opens on the focused terminal.
    pub(in crate::tui) fn open_picker(&mut self) {
        let focused = self.focused_name();
        let at = self
            .listed()
            .iter()
            .position(|t| Some(&t.info.name) == focused.as_ref())
            .unwrap_or(0);
        self.mode = Mode::Picker(Picker {
            at,
            ..Picker::default()
        });
    }

    /// The terminals the picker's filter keeps, in the list's order.
    pub fn picked(&self, p: &Picker) -> Vec<&TermView> {
        self.listed()
            .into_iter()
            .filter(|t| keeps(t, &p.filter))
            .collect()
    }

    pub(in crate::tui) fn picker_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Mode::Picker(mut p) = self.mode.clone() else {
            return Vec::new();
        };
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        let motion = |c| !p.typing && (c == 'j' || c == 'k');
        match k.code {
            KeyCode::Esc => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            KeyCode::Char('c') if ctrl => {
                self.mode = Mode::Normal;
                return Vec::new();
            }
            KeyCode::Enter => {
                let name = self.picked(&p).get(p.at).map(|t| t.info.name.clone());
                self.mode = Mode::Normal;
                // As tmux's choose-tree: a pane already showing it takes the focus.
                return match name {
                    Some(name) => self.choose(&name),
                    None => Vec::new(),
                };
            }
            KeyCode::Up | KeyCode::BackTab => p.at = p.at.saturating_sub(1),
            KeyCode::Char('p') if ctrl => p.at = p.at.saturating_sub(1),
            KeyCode::Char('k') if motion('k') => p.at = p.at.saturating_sub(1),
            KeyCode::Down | KeyCode::Tab => p.at += 1,
            KeyCode::Char('n') if ctrl => p.at += 1,
            KeyCode::Char('j') if motion('j') => p.at += 1,
            KeyCode::Char('/') if !p.typing => p.typing = true,
            KeyCode::Backspace => {
                p.filter.pop();
                p.at = 0;
            }
            KeyCode::Char('u') if ctrl => {
                p.filter.clear();
                p.at = 0;
            }
            KeyCode::Char(c) if !ctrl => {
                p.typing = true;
                p.filter.push(c);
                p.at = 0;
            }
            _ => {}
        }
        p.at = p.at.min(self.picked(&p).len().saturating_sub(1));
        self.mode = Mode::Picker(p);
        Vec::new()
    }
}

#[cfg(test)]
#[path = "picker_tests.rs"]
mod tests;
