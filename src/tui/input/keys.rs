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
}

/// Every configurable action: its name in `[ui.keys]` and its default key (tmux's where tmux
/// has one). The digits 0-9 always jump.
pub const ACTIONS: [(PrefixAction, &str, char); 19] = [
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
];

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
        let c = match k.code {
            KeyCode::Char(c) => c,
            KeyCode::Left => return Some(PrefixAction::Select(Side::Left)),
            KeyCode::Right => return Some(PrefixAction::Select(Side::Right)),
            KeyCode::Up => return Some(PrefixAction::Select(Side::Up)),
            KeyCode::Down => return Some(PrefixAction::Select(Side::Down)),
            _ => return None,
        };
        if let Some(d) = c.to_digit(10) {
            return Some(PrefixAction::Jump(d as usize));
        }
        self.bindings
            .iter()
            .find(|(_, key)| !key.ctrl && !key.alt && key.ch == c)
            .map(|(a, _)| *a)
    }

    /// Every key, as the help overlay lists it: the keys after the prefix, then the others.
    pub fn help(&self) -> Vec<(String, &'static str)> {
        let mut rows = self.prefix_help();
        let (first, rest) = PLAIN_HELP.split_at(1);
        rows.extend(first.iter().map(|(k, v)| (k.to_string(), *v)));
        rows.extend(INPUT_KEYS.iter().map(|(_, k, v)| (k.label(), *v)));
        rows.extend(rest.iter().map(|(k, v)| (k.to_string(), *v)));
        rows.push((
            "Up (empty composer)".into(),
            "select a waiting input: Up/Down (past the top: earlier prompts), Esc back",
        ));
        let letters: Vec<String> = WAITING_KEYS.iter().map(|(_, c)| c.to_string()).collect();
        rows.push((
            format!("  {}", letters.join(" ")),
            "on it: edit (Enter) · withdraw (Delete) · earlier · later (S-Up/Down) · steer · jump · run the queue held after an interrupt",
        ));
        rows.push(("any key".into(), "closes this help"));
        rows
    }

    /// The keys after the prefix, as bound (so a remapped key shows as the user set it).
    fn prefix_help(&self) -> Vec<(String, &'static str)> {
        use PrefixAction as A;
        let p = self.prefix.label();
        let h = |a| self.hint(a);
        vec![
            (
                h(A::NewTerminal),
                "new terminal (name, dir, provider, brief)",
            ),
            (
                h(A::ToggleShell),
                "shell face: a shell in the terminal's checkout (keys go to it; again: back)",
            ),
            (
                format!("{p} {p}"),
                "send the prefix key itself to the shell",
            ),
            (
                h(A::ToggleDiff),
                "diff face: the terminal's branch since it started (again: back)",
            ),
            (
                format!("{} / {}", h(A::Next), h(A::Prev)),
                "next / previous terminal",
            ),
            (
                h(A::CopyMode),
                "copy mode: hjkl/w/b/g/G move, v select, y copy (OSC 52), / n N search, q leave",
            ),
            (h(A::Rename), "rename the focused terminal"),
            (
                h(A::Fork),
                "fork: a new terminal carrying on from where the focused one is",
            ),
            (
                format!("{} / {}", h(A::Archive), h(A::ShowArchived)),
                "archive the focused terminal (archived: bring it back) / list archived ones",
            ),
            (
                h(A::Remove),
                "remove the focused terminal (asks; its work is committed, its branch kept)",
            ),
            (
                h(A::Instructions),
                "standing instructions of the focused terminal (edit: baton instructions NAME)",
            ),
            (format!("{p} 0-9"), "jump to terminal N of the list"),
            (
                format!("{}  /  {}", h(A::SplitBeside), h(A::SplitBelow)),
                "split the pane: left|right / top|bottom",
            ),
            (
                format!("{p} ←↑↓→ / {}", self.key(A::NextPane).label()),
                "the pane on that side / the next pane",
            ),
            (
                format!("{} / {}", h(A::Zoom), h(A::ClosePane)),
                "zoom the pane (again: back) / close it (its terminal goes on)",
            ),
            (
                h(A::Detach),
                "detach (turns keep running; `baton` brings it back)",
            ),
            (h(A::Help), "this help"),
        ]
    }
}

/// The keys that work without the prefix, as the help overlay lists them.
const PLAIN_HELP: [(&str, &str); 15] = [
    (
        "Enter",
        "send the prompt (the server queues it while a turn runs)",
    ),
    ("Alt-Enter, Shift-Enter, C-j", "new line"),
    ("Up / Down", "earlier prompts (on the first / last line)"),
    ("Tab", "switch provider for the next prompt"),
    (
        "C-o",
        "model for the next prompt (empty: the terminal's own)",
    ),
    (
        "Esc",
        "interrupt the running turn (partial output stays); nothing running: Esc Esc clears the draft",
    ),
    (
        "C-c",
        "clear what is typed; on an empty composer, interrupt the running turn",
    ),
    (
        "Esc Esc (empty composer)",
        "rewind the last turn: a new terminal from before it, its prompt in the composer",
    ),
    ("C-t", "expand / collapse tool lines"),
    (
        "PageUp / PageDown",
        "scroll the transcript (mouse wheel too)",
    ),
    ("C-End", "follow the end of the transcript"),
    (
        "C-u / C-w",
        "delete to line start (at a line start: the whole draft) / the word before",
    ),
    ("Home / End", "start / end of the line"),
    (
        "mouse click / wheel",
        "focus a pane or a terminal of the list / scroll",
    ),
    (
        "mouse drag / double click",
        "select text, copied (OSC 52) on release / copy a word",
    ),
];

fn name_of(a: PrefixAction) -> &'static str {
    ACTIONS
        .iter()
        .find(|(b, _, _)| *b == a)
        .map_or("jump", |(_, n, _)| n)
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
