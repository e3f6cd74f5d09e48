//! Key bindings: the tmux-style prefix, what each key after it does, and the help overlay's
//! list (one table, so the overlay can never disagree with the bindings).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
    /// A new pane beside the active one (tmux `%`).
    SplitBeside,
    /// A new pane below the active one (tmux `"`).
    SplitBelow,
    NextPane,
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
}

/// The prefix key: Ctrl-b, or Ctrl-a when baton runs inside tmux so tmux keeps its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefix(pub char);

impl Prefix {
    pub fn for_env(inside_tmux: bool) -> Prefix {
        Prefix(if inside_tmux { 'a' } else { 'b' })
    }

    pub fn matches(self, k: &KeyEvent) -> bool {
        k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char(self.0)
    }

    pub fn label(self) -> String {
        format!("C-{}", self.0)
    }
}

pub fn prefix_action(k: &KeyEvent) -> Option<PrefixAction> {
    let KeyCode::Char(c) = k.code else {
        return None;
    };
    Some(match c {
        'c' => PrefixAction::NewTerminal,
        'n' => PrefixAction::Next,
        'p' => PrefixAction::Prev,
        'd' => PrefixAction::Detach,
        '?' => PrefixAction::Help,
        'i' => PrefixAction::Instructions,
        '%' => PrefixAction::SplitBeside,
        '"' => PrefixAction::SplitBelow,
        'o' => PrefixAction::NextPane,
        'x' => PrefixAction::ClosePane,
        's' => PrefixAction::ToggleShell,
        'g' => PrefixAction::ToggleDiff,
        ',' => PrefixAction::Rename,
        'X' => PrefixAction::Remove,
        '[' => PrefixAction::CopyMode,
        d @ '0'..='9' => PrefixAction::Jump(d as usize - '0' as usize),
        _ => return None,
    })
}

/// Every key, as the help overlay lists it.
pub fn help(prefix: Prefix) -> Vec<(String, &'static str)> {
    let p = prefix.label();
    let mut rows: Vec<(String, &'static str)> = vec![
        (
            format!("{p} c"),
            "new terminal (name, dir, provider, brief)",
        ),
        (
            format!("{p} s"),
            "shell face: a shell in the terminal's checkout (keys go to it; again: back)",
        ),
        (
            format!("{p} {p}"),
            "send the prefix key itself to the shell",
        ),
        (
            format!("{p} g"),
            "diff face: the terminal's branch since it started (again: back)",
        ),
        (format!("{p} n / {p} p"), "next / previous terminal"),
        (
            format!("{p} ["),
            "copy mode: hjkl/w/b/g/G move, v select, y copy (OSC 52), / n N search, q leave",
        ),
        (format!("{p} ,"), "rename the focused terminal"),
        (
            format!("{p} X"),
            "remove the focused terminal (asks; its work is committed, its branch kept)",
        ),
        (
            format!("{p} i"),
            "standing instructions of the focused terminal (edit: baton instructions NAME)",
        ),
        (format!("{p} 0-9"), "jump to terminal N of the list"),
        (format!("{p} %  /  {p} \""), "split: a pane beside / below"),
        (format!("{p} o / {p} x"), "next pane / close the pane"),
        (
            format!("{p} d"),
            "detach (turns keep running; `baton` brings it back)",
        ),
        (format!("{p} ?"), "this help"),
    ];
    let plain: [(&str, &'static str); 14] = [
        ("Enter", "send the prompt (queued while a turn runs)"),
        ("Alt-Enter, Shift-Enter, C-j", "new line"),
        ("Up / Down", "earlier prompts (on the first / last line)"),
        ("Tab", "switch provider for the next prompt"),
        (
            "Esc, C-c",
            "interrupt the running turn (partial output stays)",
        ),
        ("C-e", "edit the last waiting prompt"),
        ("C-x", "remove the last waiting prompt"),
        ("C-t", "expand / collapse tool lines"),
        (
            "PageUp / PageDown",
            "scroll the transcript (mouse wheel too)",
        ),
        ("C-End", "follow the end of the transcript"),
        (
            "C-u / C-w",
            "delete to line start / the word before (C-u clears a form field)",
        ),
        ("Home / End", "start / end of the line"),
        ("mouse click", "focus a terminal in the list or a pane"),
        ("any key", "closes this help"),
    ];
    rows.extend(plain.iter().map(|(k, v)| (k.to_string(), *v)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), m)
    }

    #[test]
    fn prefix_follows_tmux() {
        assert!(Prefix::for_env(false).matches(&key('b', KeyModifiers::CONTROL)));
        assert!(Prefix::for_env(true).matches(&key('a', KeyModifiers::CONTROL)));
        assert!(!Prefix::for_env(true).matches(&key('a', KeyModifiers::NONE)));
    }

    #[test]
    fn keys_after_the_prefix() {
        let table = [
            ('c', Some(PrefixAction::NewTerminal)),
            ('3', Some(PrefixAction::Jump(3))),
            ('%', Some(PrefixAction::SplitBeside)),
            ('d', Some(PrefixAction::Detach)),
            ('s', Some(PrefixAction::ToggleShell)),
            ('g', Some(PrefixAction::ToggleDiff)),
            (',', Some(PrefixAction::Rename)),
            ('X', Some(PrefixAction::Remove)),
            ('[', Some(PrefixAction::CopyMode)),
            ('x', Some(PrefixAction::ClosePane)),
            ('z', None),
        ];
        for (c, want) in table {
            assert_eq!(prefix_action(&key(c, KeyModifiers::NONE)), want, "{c}");
        }
    }
}
