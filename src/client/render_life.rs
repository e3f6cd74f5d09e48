//! Text for the answers about a terminal's life: fork, rewind, archive, conversation titles,
//! and the lines a transcript shows where a fork happened. Pure; see `render.rs`.

use crate::protocol::views::TitledView;
use crate::protocol::views::{ArchivedView, ForkView, ForkedView, HistoryMode, RewindView};
use crate::protocol::views::{PortsView, SetupState, SetupView};

/// "forked from api at turn 7" / "rewound from api before turn 3".
pub fn forked_from(f: &ForkedView) -> String {
    if f.rewind {
        format!("↳ rewound from {} before turn {}", f.name, f.turn)
    } else {
        format!("↳ forked from {} at turn {}", f.name, f.turn)
    }
}

/// "forked into api-2" / "rewound into api-2 (before turn 3)".
pub fn forked_into(f: &ForkedView) -> String {
    if f.rewind {
        format!("↳ rewound into {} (before turn {})", f.name, f.turn)
    } else {
        format!("↳ forked into {}", f.name)
    }
}

fn notes(out: &mut String, notes: &[String]) {
    for n in notes {
        out.push_str(&format!("  note: {n}\n"));
    }
}

pub fn forked(v: &ForkView) -> String {
    let mut out = format!(
        "forked {} at turn {} into {}\n",
        v.from, v.from_turn, v.name
    );
    if let (Some(b), Some(w)) = (&v.branch, &v.worktree) {
        out.push_str(&format!("  branch:   {b}\n  worktree: {w}\n"));
    }
    out.push_str(match v.session_mode {
        HistoryMode::Fresh => "  history:  a fresh conversation (the standing text)\n",
        _ => "  history:  its first turn resumes a fork of the original's session\n",
    });
    notes(&mut out, &v.notes);
    out
}

/// The prompt comes last and whole, after a line that says so, to copy or pipe.
pub fn rewound(v: &RewindView) -> String {
    let mut out = format!(
        "rewound {} to before turn {} into {}\n",
        v.from, v.before_turn, v.name
    );
    if let Some(b) = &v.branch {
        out.push_str(&format!("  branch:   {b}\n"));
    }
    if let Some(c) = &v.base_commit {
        out.push_str(&format!("  files:    as at {}\n", &c[..c.len().min(12)]));
    }
    out.push_str(match v.history {
        HistoryMode::Fresh => {
            "  history:  a fresh conversation (the provider's history could not be cut)\n"
        }
        _ => "  history:  the provider's history before that turn\n",
    });
    notes(&mut out, &v.notes);
    out.push_str(&format!(
        "turn {}'s prompt, to edit and send to {} (`baton send {} -`):\n{}",
        v.before_turn, v.name, v.name, v.prompt
    ));
    if !v.prompt.ends_with('\n') {
        out.push('\n');
    }
    out
}

pub fn archived(v: &ArchivedView) -> String {
    if v.archived {
        format!(
            "archived {} (hidden from `baton ls`; `baton unarchive {}` shows it again)\n",
            v.name, v.name
        )
    } else {
        format!("unarchived {}\n", v.name)
    }
}

pub fn titled(v: &TitledView) -> String {
    format!(
        "titled conversation {} of {}: {}\n",
        v.conversation, v.name, v.title
    )
}

/// `show`'s lines of a worktree's ports and set-up (none when it has neither).
pub fn setup_lines(ports: Option<&PortsView>, setup: Option<&SetupView>) -> String {
    let mut out = String::new();
    if let Some(p) = ports {
        out.push_str(&format!(
            "  ports:        {}-{} (BATON_PORT={}, BATON_PORTS={})\n",
            p.first,
            u32::from(p.first) + u32::from(p.count) - 1,
            p.first,
            p.count
        ));
    }
    if let Some(s) = setup {
        if s.command.is_some() || s.copied > 0 {
            out.push_str(&format!("  set-up:       {}\n", setup_state(s)));
        }
        notes(&mut out, &s.notes);
    }
    out
}

/// "`npm ci`: failed (exit code 3); 2 files copied".
pub fn setup_state(s: &SetupView) -> String {
    let state = match (s.state, s.exit_code) {
        (SetupState::None, _) => "nothing to run".to_string(),
        (SetupState::Untrusted, _) => "not run: its .baton.toml is not trusted".to_string(),
        (SetupState::Running, _) => "running (the first turn waits for it)".to_string(),
        (SetupState::Done, _) => "done".to_string(),
        (SetupState::Failed, Some(c)) => format!("failed (exit code {c})"),
        (SetupState::Failed, None) => "failed".to_string(),
        (SetupState::TimedOut, _) => "stopped: it took longer than its timeout".to_string(),
        (SetupState::Interrupted, _) => "cut short: the server stopped while it ran".to_string(),
    };
    let command = s
        .command
        .as_deref()
        .map(|c| format!("`{c}`: "))
        .unwrap_or_default();
    let copied = match s.copied {
        0 => String::new(),
        1 => "; 1 file copied (.worktreeinclude)".to_string(),
        n => format!("; {n} files copied (.worktreeinclude)"),
    };
    format!("{command}{state}{copied}")
}

/// `log`'s section of the set-up: its state, its output, its notes.
pub fn setup_log(s: &SetupView) -> String {
    let mut out = format!("──── set-up {}\n", setup_state(s));
    for line in s.output.as_deref().unwrap_or("").lines() {
        out.push_str(&format!("  {line}\n"));
    }
    notes(&mut out, &s.notes);
    out
}
