//! Text for the answers about a terminal's life: fork, rewind, archive, conversation titles,
//! and the lines a transcript shows where a fork happened. Pure; see `render.rs`.

use crate::protocol::views::TitledView;
use crate::protocol::views::{ArchivedView, ForkView, ForkedView, HistoryMode, RewindView};

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
