//! What keys, pastes and the mouse do, mode by mode: the prefix, the composer's editing keys,
//! the new-terminal form, the help overlay; the start-up offer's keys are `app::offer`'s.

mod help;
pub mod key;
pub mod keys;
pub mod mouse;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::protocol::SendModeArg;
use crate::tui::app::form::{Field, NewForm};
use crate::tui::app::{App, Effect, Exit, Mode, Tag};
use crate::tui::panes::layout::Split;
use keys::PrefixAction;

fn ctrl(k: &KeyEvent) -> bool {
    k.modifiers.contains(KeyModifiers::CONTROL)
}

impl App {
    pub fn on_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        // Key releases and repeats come only with the kitty protocol; act on presses.
        if k.kind == KeyEventKind::Release {
            return Vec::new();
        }
        if self.status.as_ref().is_some_and(|(_, err)| !err) {
            self.status = None;
        }
        match &self.mode {
            Mode::Help { .. } => {
                self.help_key(&k);
                return Vec::new();
            }
            Mode::Instructions(_) => return self.instructions_key(&k),
            Mode::NewTerminal(_) => return self.form_key(k),
            Mode::ConfirmRemove(_) => return self.confirm_key(k),
            Mode::Rename { .. } => return self.rename_key(k),
            Mode::Model { .. } => return self.model_key(k),
            Mode::Copy(_) => return self.copy_key(k),
            Mode::Picker(_) => return self.picker_key(k),
            Mode::Command { .. } => return self.prompt_key(k),
            Mode::Normal => {}
        }
        if self.prefix_armed {
            self.prefix_armed = false;
            return match self.keys.action(&k) {
                Some(a) => self.prefix(a),
                None if self.keys.prefix.matches(&k) => self.shell_prefix(),
                None => {
                    let prefix = self.keys.prefix.label();
                    self.say(format!(
                        "{prefix} {} is not bound; {} lists the keys",
                        keys::event_label(&k),
                        self.keys.hint(PrefixAction::Help)
                    ));
                    Vec::new()
                }
            };
        }
        if self.keys.prefix.matches(&k) {
            self.prefix_armed = true;
            return Vec::new();
        }
        self.status = None;
        if self.shell_focused() {
            return self.shell_key(k);
        }
        if self.offer.is_some() {
            return self.key_over_offer(k);
        }
        if let Some(fx) = self.key_over_approval(&k) {
            return fx;
        }
        self.plain_key(k)
    }

    fn prefix(&mut self, a: PrefixAction) -> Vec<Effect> {
        match a {
            PrefixAction::NewTerminal => {
                self.mode = Mode::NewTerminal(NewForm::new(&self.cwd));
                Vec::new()
            }
            PrefixAction::Next => self.step_focus(1),
            PrefixAction::Prev => self.step_focus(-1),
            PrefixAction::Jump(n) => match self.listed_name(n) {
                Some(name) => self.choose(&name),
                None => {
                    self.say(format!("no terminal {n}"));
                    Vec::new()
                }
            },
            PrefixAction::Detach => {
                self.quit = Some(Exit::Detach);
                Vec::new()
            }
            PrefixAction::Help => {
                self.mode = Mode::Help { scroll: 0, page: 1 };
                Vec::new()
            }
            PrefixAction::Instructions => {
                self.open_instructions();
                Vec::new()
            }
            PrefixAction::ToggleShell => self.toggle_shell(),
            PrefixAction::ToggleDiff => self.toggle_diff(),
            PrefixAction::Rename => {
                self.start_rename();
                Vec::new()
            }
            PrefixAction::Remove => {
                self.ask_remove();
                Vec::new()
            }
            PrefixAction::CopyMode => self.enter_copy(),
            PrefixAction::Fork => self.fork(),
            PrefixAction::Archive => self.toggle_archive(),
            PrefixAction::ShowArchived => self.toggle_show_archived(),
            PrefixAction::SplitBeside => self.split_pane(Split::Beside),
            PrefixAction::SplitBelow => self.split_pane(Split::Below),
            PrefixAction::NextPane => self.next_pane(),
            PrefixAction::Select(side) => self.select_side(side),
            PrefixAction::Zoom => {
                self.toggle_zoom();
                Vec::new()
            }
            PrefixAction::ClosePane => self.close_pane(),
            PrefixAction::Resize(side, cells) => {
                self.resize_pane(side, cells);
                Vec::new()
            }
            PrefixAction::NextLayout => {
                self.next_layout();
                Vec::new()
            }
            PrefixAction::SwapPrev | PrefixAction::SwapNext => {
                self.swap_pane(a == PrefixAction::SwapNext);
                Vec::new()
            }
            PrefixAction::LastPane => self.select_last_pane(),
            PrefixAction::LastTerminal => self.focus_last_term(),
            PrefixAction::Tree => {
                self.open_picker();
                Vec::new()
            }
            PrefixAction::Command => {
                self.open_prompt();
                Vec::new()
            }
        }
    }

    fn step_focus(&mut self, by: isize) -> Vec<Effect> {
        let n = self.listed().len() as isize;
        if n == 0 {
            return Vec::new();
        }
        let cur = self
            .focused_name()
            .and_then(|f| self.listed_index(&f))
            .map_or(0, |i| i as isize);
        let next = (cur + by).rem_euclid(n) as usize;
        match self.listed_name(next) {
            Some(name) => self.focus(&name),
            None => Vec::new(),
        }
    }

    pub(in crate::tui) fn plain_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        if k.code != KeyCode::Esc {
            self.esc_armed = false;
        }
        if let Some(fx) = self.waiting_key(&k) {
            return fx;
        }
        if let Some(a) = keys::input_action(&k) {
            return self.input_key(a);
        }
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        let shift = k.modifiers.contains(KeyModifiers::SHIFT);
        match k.code {
            KeyCode::Enter if alt || shift => self.composer.insert_char('\n'),
            KeyCode::Char('j') if ctrl(&k) => self.composer.insert_char('\n'),
            KeyCode::Enter => return self.submit(SendModeArg::Queue),
            KeyCode::Esc if self.composer.is_empty() && !self.focused_running() => {
                return self.esc_rewind()
            }
            // As in Claude Code: Esc Esc on a draft (no turn running) clears it.
            KeyCode::Esc if !self.focused_running() => self.esc_clear(),
            KeyCode::Esc => return self.interrupt(),
            // As in Claude Code: Ctrl-C first cancels what is typed, then interrupts.
            KeyCode::Char('c') if ctrl(&k) && !self.composer.is_empty() => self.cancel_draft(),
            KeyCode::Char('c') if ctrl(&k) => return self.interrupt(),
            KeyCode::Char('t') if ctrl(&k) => return self.toggle_tools(),
            KeyCode::Char('u') if ctrl(&k) => self.composer.kill_to_start(),
            KeyCode::Char('w') if ctrl(&k) => self.composer.kill_word(),
            KeyCode::Char('a') if ctrl(&k) => self.composer.home(),
            KeyCode::Tab if self.slash_tab() => {}
            KeyCode::Tab => self.cycle_provider(),
            KeyCode::Char('o') if ctrl(&k) => {
                let text = self.prompt_model().unwrap_or_default();
                self.mode = Mode::Model { text };
            }
            KeyCode::PageUp => self.scroll_active(true, None),
            KeyCode::PageDown => self.scroll_active(false, None),
            KeyCode::End if ctrl(&k) => {
                if let Some(p) = self.panes.get_mut(self.active) {
                    p.scroll = 0;
                }
            }
            // The waiting list sits right above an empty composer: Up goes into it.
            KeyCode::Up if self.composer.is_empty() && self.enter_waiting() => {}
            KeyCode::Up if self.composer.on_first_line() => self.history_prev(),
            KeyCode::Down if self.composer.on_last_line() => self.composer.history_next(),
            KeyCode::Up => self.composer.up(),
            KeyCode::Down => self.composer.down(),
            KeyCode::Left => self.composer.left(),
            KeyCode::Right => self.composer.right(),
            KeyCode::Home => self.composer.home(),
            KeyCode::End => self.composer.end(),
            KeyCode::Backspace => self.composer.backspace(),
            KeyCode::Delete => self.composer.delete(),
            KeyCode::Char(c) if !ctrl(&k) => self.composer.insert_char(c),
            _ => {}
        }
        Vec::new()
    }

    /// A key over the help: the scrolling keys scroll it (drawing keeps it in range), any
    /// other closes it.
    fn help_key(&mut self, k: &KeyEvent) {
        let Mode::Help { scroll, page } = &mut self.mode else {
            return;
        };
        let half = (*page / 2).max(1);
        *scroll = match k.code {
            KeyCode::Down | KeyCode::Char('j') => scroll.saturating_add(1),
            KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => scroll.saturating_add(*page),
            KeyCode::PageUp => scroll.saturating_sub(*page),
            KeyCode::Char('d') if ctrl(k) => scroll.saturating_add(half),
            KeyCode::Char('u') if ctrl(k) => scroll.saturating_sub(half),
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => usize::MAX,
            _ => {
                self.mode = Mode::Normal;
                return;
            }
        };
    }

    /// Esc on a draft while nothing runs: the first arms, the second clears it.
    fn esc_clear(&mut self) {
        if self.esc_armed {
            self.esc_armed = false;
            self.cancel_draft();
        } else {
            self.esc_armed = true;
            self.say("Esc again clears the draft");
        }
    }

    /// Ctrl-t: the focused terminal's tool calls expand (results, diffs) or fold back. Turns
    /// this client did not watch get their steps from the server as they expand.
    fn toggle_tools(&mut self) -> Vec<Effect> {
        let Some(name) = self.focused_name() else {
            return Vec::new();
        };
        let Some(t) = self.term_mut(&name) else {
            return Vec::new();
        };
        t.expand_tools = !t.expand_tools;
        let text = if t.expand_tools {
            "tool calls expanded: results and edits shown (C-t folds them)"
        } else {
            "tool calls folded to one line each (C-t expands them)"
        };
        self.say(text);
        self.ask_steps(&name)
    }

    /// Ctrl-C on a draft: it goes (an edit of waiting input is left as it was).
    fn cancel_draft(&mut self) {
        self.composer.clear();
        if self.editing.take().is_some() {
            self.say("edit cancelled: the waiting input is left as it was");
        } else {
            self.say("draft cleared (Ctrl-c again interrupts a running turn)");
        }
    }

    pub(in crate::tui) fn history_prev(&mut self) {
        if !self.composer.is_browsing() {
            let prompts: Vec<String> = self
                .focused()
                .map(|t| t.transcript.prompts().map(str::to_string).collect())
                .unwrap_or_default();
            self.composer.set_history(prompts);
        }
        self.composer.history_prev();
    }

    fn cycle_provider(&mut self) {
        let own = self.focused().map(|t| t.info.provider);
        let next = self.next_provider.or(own).unwrap_or_default().next_cli();
        self.next_provider = (Some(next) != own).then_some(next);
        self.next_endpoint = None;
    }

    /// The one-line model entry: Enter sets the model for the next prompt (empty or
    /// `default`: the provider's default, unpinning the terminal's), Esc leaves it as it was.
    fn model_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Mode::Model { text } = &mut self.mode else {
            return Vec::new();
        };
        match k.code {
            KeyCode::Esc => self.mode = Mode::Normal,
            KeyCode::Char('c') if ctrl(&k) => self.mode = Mode::Normal,
            KeyCode::Char('u') if ctrl(&k) => text.clear(),
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) if !ctrl(&k) => text.push(c),
            KeyCode::Enter => {
                let model = text.trim().to_string();
                self.mode = Mode::Normal;
                let own = self
                    .focused()
                    .filter(|_| self.next_provider.is_none())
                    .and_then(|t| t.info.model.clone());
                let model = match model.as_str() {
                    "" | crate::protocol::DEFAULT_MODEL => own
                        .is_some()
                        .then(|| crate::protocol::DEFAULT_MODEL.to_string()),
                    _ => (Some(&model) != own.as_ref()).then_some(model),
                };
                // The title says a model change; going back to the default is said in words.
                if let Some(m) = model
                    .as_deref()
                    .filter(|m| *m == crate::protocol::DEFAULT_MODEL)
                {
                    self.say(crate::tui::app::slash::model_said(m));
                }
                self.next_model = model;
            }
            _ => {}
        }
        Vec::new()
    }

    /// Scrolls the active pane (or `pane`) a page, or `rows` for the wheel.
    pub(in crate::tui) fn scroll_active(&mut self, up: bool, rows: Option<(usize, usize)>) {
        let (idx, by) = match rows {
            Some((i, r)) => (i, r),
            None => {
                let rows = self.panes.get(self.active).map_or(1, |p| p.rows.max(2));
                (self.active, rows - 1)
            }
        };
        if let Some(p) = self.panes.get_mut(idx) {
            p.scroll = if up {
                p.scroll.saturating_add(by)
            } else {
                p.scroll.saturating_sub(by)
            };
        }
    }

    pub fn on_paste(&mut self, s: &str) -> Vec<Effect> {
        if self.mode == Mode::Normal && self.shell_focused() {
            return self.shell_paste(s);
        }
        match &mut self.mode {
            Mode::NewTerminal(f) => f.paste(s),
            Mode::Normal => self.composer.insert_str(s),
            Mode::Rename { text, .. } | Mode::Model { text } | Mode::Command { text } => {
                text.push_str(s.lines().next().unwrap_or(""))
            }
            Mode::Copy(v) => {
                if let Some(text) = &mut v.prompt {
                    text.push_str(s.lines().next().unwrap_or(""));
                }
            }
            Mode::Picker(p) => {
                p.filter.push_str(s.lines().next().unwrap_or(""));
                p.typing = true;
                p.at = 0;
            }
            Mode::Instructions(o) => o.paste(s),
            Mode::Help { .. } | Mode::ConfirmRemove(_) => {}
        }
        Vec::new()
    }

    fn form_key(&mut self, k: KeyEvent) -> Vec<Effect> {
        let Mode::NewTerminal(f) = &mut self.mode else {
            return Vec::new();
        };
        match k.code {
            KeyCode::Esc => self.mode = Mode::Normal,
            KeyCode::Char('c') if ctrl(&k) => self.mode = Mode::Normal,
            KeyCode::Enter if !f.busy => {
                f.busy = true;
                f.error = None;
                return vec![Effect::Call(Tag::New, f.request())];
            }
            KeyCode::Tab | KeyCode::Down => f.next_field(true),
            KeyCode::BackTab | KeyCode::Up => f.next_field(false),
            KeyCode::Left | KeyCode::Right if f.focus == Field::Provider => f.cycle_provider(),
            KeyCode::Backspace => f.backspace(),
            KeyCode::Char('u') if ctrl(&k) => f.clear(),
            KeyCode::Char(c) if !ctrl(&k) => f.type_char(c),
            _ => {}
        }
        Vec::new()
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
