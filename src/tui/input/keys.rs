//! Key bindings: the tmux-style prefix, what each key after it does (defaults, or `[ui.keys]` in
//! the config), and the help overlay's list (one table, so the overlay and the status line can
//! never disagree with the bindings). The digits (jump to a terminal) and the arrow keys (the
//! pane on that side, as tmux binds them) are fixed; every other action has a configurable key.
//!
//! The keys of waiting input work without the prefix ([`INPUT_KEYS`], [`WAITING_KEYS`]): the
//! list sits right above the composer, so Up from an empty composer goes into it (Up past its
//! top goes on to the earlier prompts, as Up did before), and while one input is selected plain
//! letters act on it (`e` edit, `x` withdraw, `K`/`J` move, `s` steer, `!` jump — vi's K/J
//! and copy mode's letters). Sending as steer or jump is Alt with a letter (`M-s`, `M-j`):
//! tmux passes Alt as an ESC prefix in raw mode, nothing else in baton binds Alt with a
//! letter, and Ctrl-s/Ctrl-j are flow control and the newline. They are in the table (one
//! place for the help and the hints) but not yet in `[ui.keys]`, which has no names for them.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

pub use super::key::{event_label, Key, KeyNameError};
use crate::config::KeysConfig;
use crate::tui::panes::layout::Side;

/// What a key after the prefix does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefixAction {
    NewTerminal,
    Next,
    Prev,
    /// Jump to the terminal numbered N in the list (0-9, as tmux windows).
    Jump(usize),
    Detach,
    Help,
    /// The focused terminal's standing instructions.
    Instructions,
    /// The active pane splits in two, left|right (tmux `%`).
    SplitBeside,
    /// The active pane splits in two, top/bottom (tmux `"`).
    SplitBelow,
    NextPane,
    /// The pane on that side takes the focus (prefix and an arrow key).
    Select(Side),
    /// The active pane fills the window, or goes back to its place (tmux `z`).
    Zoom,
    /// Closes the active pane (its terminal goes on).
    ClosePane,
    /// The active pane switches between the transcript and the terminal's shell.
    ToggleShell,
    /// The active pane switches between the transcript and the terminal's diff.
    ToggleDiff,
    /// A new name for the focused terminal (tmux `,`).
    Rename,
    /// Remove the focused terminal, after asking.
    Remove,
    /// Copy mode over the active pane (tmux `[`).
    CopyMode,
    /// A new terminal carrying on from where the focused one is now.
    Fork,
    /// Archive the focused terminal (an archived one: bring it back to the list).
    Archive,
    /// List archived terminals too, or not.
    ShowArchived,
    /// The active pane's border moves that way by so many cells (prefix and Alt-arrows: 5,
    /// Ctrl-arrows: 1, as tmux binds `resize-pane`).
    Resize(Side, u16),
    /// The panes laid out by the next preset (tmux `next-layout`, Space).
    NextLayout,
    /// The active pane changes places with the one before it in reading order (tmux `{`).
    SwapPrev,
    /// … with the one after it (tmux `}`).
    SwapNext,
    /// The pane that had the focus before (tmux `;`).
    LastPane,
    /// The terminal the active pane showed before (tmux `l`, last window).
    LastTerminal,
    /// The tree picker of terminals (tmux `w`, `choose-tree`).
    Tree,
    /// The command prompt (tmux `:`): baton's commands typed as on the command line.
    Command,
}

/// Every configurable action: its name in `[ui.keys]` and its default key (tmux's where tmux
/// has one). The digits 0-9 always jump.
pub const ACTIONS: [(PrefixAction, &str, char); 26] = [
    (PrefixAction::NewTerminal, "new", 'c'),
    (PrefixAction::Next, "next", 'n'),
    (PrefixAction::Prev, "prev", 'p'),
    (PrefixAction::Detach, "detach", 'd'),
    (PrefixAction::Help, "help", '?'),
    (PrefixAction::Instructions, "instructions", 'i'),
    (PrefixAction::SplitBeside, "split_beside", '%'),
    (PrefixAction::SplitBelow, "split_below", '"'),
    (PrefixAction::NextPane, "next_pane", 'o'),
    (PrefixAction::ClosePane, "close_pane", 'x'),
    (PrefixAction::Zoom, "zoom", 'z'),
    (PrefixAction::ToggleShell, "shell", 's'),
    (PrefixAction::ToggleDiff, "diff", 'g'),
    (PrefixAction::Rename, "rename", ','),
    (PrefixAction::Remove, "remove", 'X'),
    (PrefixAction::CopyMode, "copy", '['),
    (PrefixAction::Fork, "fork", 'f'),
    (PrefixAction::Archive, "archive", 'a'),
    (PrefixAction::ShowArchived, "show_archived", 'A'),
    (PrefixAction::NextLayout, "next_layout", ' '),
    (PrefixAction::SwapPrev, "swap_prev", '{'),
    (PrefixAction::SwapNext, "swap_next", '}'),
    (PrefixAction::LastPane, "last_pane", ';'),
    (PrefixAction::LastTerminal, "last_terminal", 'l'),
    (PrefixAction::Tree, "tree", 'w'),
    (PrefixAction::Command, "command", ':'),
];

/// How many cells prefix and Alt with an arrow resize by (tmux's `M-arrow` binding).
pub const RESIZE_BIG: u16 = 5;

/// What a key does in the composer, without the prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputAction {
    /// Send the prompt to join the running turn.
    SendSteer,
    /// Send the prompt to interrupt the running turn and run next.
    SendJump,
    /// The last waiting input goes back into the composer to be edited.
    EditLast,
    /// Withdraw the last waiting input.
    WithdrawLast,
    /// The next prompt opens a fresh conversation (again: it does not).
    ToggleFresh,
    /// Rewind to before the turn of the earlier prompt shown (Up).
    RewindBrowsed,
}

/// The composer's keys for waiting input, with what the help says of them.
pub const INPUT_KEYS: [(InputAction, Key, &str); 6] = [
    (
        InputAction::SendSteer,
        Key::alt('s'),
        "send as steer: joins the running turn where the CLI can take it, else runs next",
    ),
    (
        InputAction::SendJump,
        Key::alt('j'),
        "send as jump: interrupts the running turn (partial output stays) and runs next",
    ),
    (
        InputAction::EditLast,
        Key::ctrl('e'),
        "take the last waiting input back to edit (Enter saves it in place)",
    ),
    (
        InputAction::WithdrawLast,
        Key::ctrl('x'),
        "withdraw the last waiting input",
    ),
    (
        InputAction::ToggleFresh,
        Key::alt('f'),
        "the next prompt opens a fresh conversation (again: it does not)",
    ),
    (
        InputAction::RewindBrowsed,
        Key::alt('r'),
        "on an earlier prompt (Up): rewind to before its turn, into a new terminal",
    ),
];

/// What a key does while one waiting input is selected (Up from an empty composer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitingAction {
    /// Select the one before (Up) or after (Down); past the ends the selection ends.
    Select(Side),
    /// Move it one place earlier (`Up`) or later (`Down`).
    Move(Side),
    /// Take it back into the composer to be edited.
    Edit,
    Withdraw,
    Steer,
    Jump,
    /// Run the queue held after an interrupt (`baton queue NAME run`).
    Run,
    /// Back to the composer.
    Leave,
}

/// The letters of the selected waiting input (the arrows, Enter, Delete and Esc are fixed).
pub const WAITING_KEYS: [(WaitingAction, char); 7] = [
    (WaitingAction::Edit, 'e'),
    (WaitingAction::Withdraw, 'x'),
    (WaitingAction::Move(Side::Up), 'K'),
    (WaitingAction::Move(Side::Down), 'J'),
    (WaitingAction::Steer, 's'),
    (WaitingAction::Jump, '!'),
    (WaitingAction::Run, 'r'),
];

/// What `k` does to the selected waiting input (None: it leaves the selection and goes to
/// the composer).
pub fn waiting_action(k: &KeyEvent) -> Option<WaitingAction> {
    let shift = k.modifiers.contains(KeyModifiers::SHIFT);
    match k.code {
        KeyCode::Up if shift => Some(WaitingAction::Move(Side::Up)),
        KeyCode::Down if shift => Some(WaitingAction::Move(Side::Down)),
        KeyCode::Up => Some(WaitingAction::Select(Side::Up)),
        KeyCode::Down => Some(WaitingAction::Select(Side::Down)),
        KeyCode::Enter => Some(WaitingAction::Edit),
        KeyCode::Delete => Some(WaitingAction::Withdraw),
        KeyCode::Esc => Some(WaitingAction::Leave),
        KeyCode::Char(c)
            if !k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            WAITING_KEYS
                .iter()
                .find(|(_, key)| *key == c)
                .map(|(a, _)| *a)
        }
        _ => None,
    }
}

/// What `k` does in the composer, if it is one of [`INPUT_KEYS`].
pub fn input_action(k: &KeyEvent) -> Option<InputAction> {
    INPUT_KEYS
        .iter()
        .find(|(_, key, _)| key.matches(k))
        .map(|(a, _, _)| *a)
}

/// The key of `a` in the composer.
pub fn input_key(a: InputAction) -> Key {
    INPUT_KEYS
        .iter()
        .find(|(b, _, _)| *b == a)
        .map_or(Key::plain(' '), |(_, k, _)| *k)
}

/// A `[ui.keys]` setting refused (`Keys::from_config`); each message is one line naming the
/// setting at fault, as the user wrote it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysError {
    /// `setting` (`prefix` or an action's name) is not a key name.
    #[error("[ui.keys] {setting}: {error}")]
    BadKey {
        setting: String,
        error: KeyNameError,
    },
    #[error("[ui.keys] {name}: no such action")]
    NoSuchAction { name: String },
    #[error("[ui.keys] {action} = {key:?} is the prefix key")]
    OnThePrefix { action: &'static str, key: String },
    #[error("[ui.keys] {action} = {key:?}: the digits jump to terminals")]
    OnADigit { action: &'static str, key: String },
    #[error("[ui.keys] {action} = {key:?} is already the key of {other}")]
    Taken {
        action: &'static str,
        key: String,
        other: &'static str,
    },
}

/// The prefix key and what each key after it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    pub prefix: Key,
    bindings: Vec<(PrefixAction, Key)>,
}

impl Default for Keys {
    fn default() -> Keys {
        Keys::for_env(false)
    }
}

impl Keys {
    /// The defaults: prefix Ctrl-b, or Ctrl-a when baton runs inside tmux so tmux keeps its own.
    pub fn for_env(inside_tmux: bool) -> Keys {
        Keys {
            prefix: Key::ctrl(if inside_tmux { 'a' } else { 'b' }),
            bindings: ACTIONS
                .iter()
                .map(|(a, _, c)| (*a, Key::plain(*c)))
                .collect(),
        }
    }

    /// The defaults with `[ui.keys]` applied; the error is one line naming the key at fault.
    pub fn from_config(cfg: &KeysConfig, inside_tmux: bool) -> Result<Keys, KeysError> {
        let bad_key = |setting: &str| {
            let setting = setting.to_string();
            move |error| KeysError::BadKey { setting, error }
        };
        let mut keys = Keys::for_env(inside_tmux);
        if let Some(p) = &cfg.prefix {
            keys.prefix = Key::parse(p).map_err(bad_key("prefix"))?;
        }
        for (name, value) in cfg.entries() {
            let Some(value) = value else { continue };
            let key = Key::parse(value).map_err(bad_key(name))?;
            let Some((_, slot)) = ACTIONS
                .iter()
                .position(|(_, n, _)| *n == name)
                .and_then(|i| keys.bindings.get_mut(i))
            else {
                return Err(KeysError::NoSuchAction {
                    name: name.to_string(),
                });
            };
            *slot = key;
        }
        keys.check()?;
        Ok(keys)
    }

    /// Refuses two actions on one key, an action on the prefix key, and a plain digit (0-9 jump).
    fn check(&self) -> Result<(), KeysError> {
        for (i, (a, key)) in self.bindings.iter().enumerate() {
            let action = name_of(*a);
            let label = key.label();
            if *key == self.prefix {
                return Err(KeysError::OnThePrefix { action, key: label });
            }
            if !key.ctrl && !key.alt && key.ch.is_ascii_digit() {
                return Err(KeysError::OnADigit { action, key: label });
            }
            if let Some((b, _)) = self.bindings[..i].iter().find(|(_, k)| k == key) {
                return Err(KeysError::Taken {
                    action,
                    key: label,
                    other: name_of(*b),
                });
            }
        }
        Ok(())
    }

    /// The key bound to `a` (`Jump` has the digits: `0`).
    pub fn key(&self, a: PrefixAction) -> Key {
        self.bindings
            .iter()
            .find(|(b, _)| *b == a)
            .map_or(Key::plain('0'), |(_, k)| *k)
    }

    /// `C-b c`: the prefix, then the key of `a`.
    pub fn hint(&self, a: PrefixAction) -> String {
        format!("{} {}", self.prefix.label(), self.key(a).label())
    }

    /// What the key after the prefix does. A plain binding also answers to its character typed
    /// with Ctrl or Alt still held, unless that is a key of its own (or the prefix again, which
    /// sends the prefix to the shell).
    pub fn action(&self, k: &KeyEvent) -> Option<PrefixAction> {
        if let Some((a, _)) = self.bindings.iter().find(|(_, key)| key.matches(k)) {
            return Some(*a);
        }
        if self.prefix.matches(k) {
            return None;
        }
        let side = match k.code {
            KeyCode::Char(_) => None,
            KeyCode::Left => Some(Side::Left),
            KeyCode::Right => Some(Side::Right),
            KeyCode::Up => Some(Side::Up),
            KeyCode::Down => Some(Side::Down),
            _ => return None,
        };
        if let Some(side) = side {
            return Some(if k.modifiers.contains(KeyModifiers::ALT) {
                PrefixAction::Resize(side, RESIZE_BIG)
            } else if k.modifiers.contains(KeyModifiers::CONTROL) {
                PrefixAction::Resize(side, 1)
            } else {
                PrefixAction::Select(side)
            });
        }
        let KeyCode::Char(c) = k.code else {
            return None;
        };
        if let Some(d) = c.to_digit(10) {
            return Some(PrefixAction::Jump(d as usize));
        }
        self.bindings
            .iter()
            .find(|(_, key)| !key.ctrl && !key.alt && key.ch == c)
            .map(|(a, _)| *a)
    }
}

fn name_of(a: PrefixAction) -> &'static str {
    ACTIONS
        .iter()
        .find(|(b, _, _)| *b == a)
        .map_or("jump", |(_, n, _)| n)
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
