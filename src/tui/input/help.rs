//! The help overlay's list of keys (prefix ?): the keys after the prefix as bound, then the
//! fixed ones, then the composer's slash commands (`app::slash::SLASH`). One table beside the
//! bindings, so the overlay can never disagree with them.

use super::keys::{Keys, PrefixAction, INPUT_KEYS, WAITING_KEYS};
use crate::tui::app::slash::SLASH;

impl Keys {
    /// Every key, as the help overlay lists it: the keys after the prefix, then the others.
    pub fn help(&self) -> Vec<(String, &'static str)> {
        let mut rows = self.prefix_help();
        let (first, rest) = PLAIN_HELP.split_at(1);
        rows.extend(first.iter().map(|(k, v)| (k.to_string(), *v)));
        rows.extend(INPUT_KEYS.iter().map(|(_, k, v)| (k.label(), *v)));
        for c in &SLASH {
            let args = if c.args.is_empty() {
                String::new()
            } else {
                format!(" {}", c.args)
            };
            rows.push((format!("/{}{args}", c.name), c.does));
        }
        rows.push((
            "/other, //text".into(),
            "not baton's: sent to the CLI as typed; //text sends /text",
        ));
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
                "diff face: what its branch adds to its base commit (again: back)",
            ),
            (
                format!("{} / {}", h(A::Next), h(A::Prev)),
                "next / previous terminal",
            ),
            (
                h(A::CopyMode),
                "copy mode: hjkl/w/b/g/G move, v select, y copy (OSC 52), / ? n N search, q leave",
            ),
            (
                h(A::Tree),
                "pick a terminal: ↑↓ j/k move, / or typing filters, Enter shows it here, Esc closes",
            ),
            (
                h(A::Command),
                "command prompt: baton's commands without `baton` (new api --dir ~/src/api, \
                 send api a prompt, rename a b, interrupt api…); the answer in the status line",
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
                "standing instructions of the focused terminal (in it: ↑↓ select · e edit · a add · d remove)",
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
                format!("{p} M-←↑↓→ / C-←↑↓→"),
                "resize the pane: its border moves that way by 5 / by 1",
            ),
            (
                h(A::NextLayout),
                "next layout: even-horizontal, even-vertical, main-horizontal, main-vertical, tiled",
            ),
            (
                format!("{} / {}", h(A::SwapPrev), h(A::SwapNext)),
                "swap the pane with the one before / after it",
            ),
            (
                format!("{} / {}", h(A::LastPane), h(A::LastTerminal)),
                "the pane focused before / the terminal this pane showed before",
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
    (
        "Tab",
        "switch provider for the next prompt; on /…: complete the command (again: the next)",
    ),
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
    ("C-t", "expand / fold tool calls (results, edits as diffs)"),
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
