//! The first keys a user types: in the same burst as `baton⏎` (before the screen is up), and
//! while the offer to create a terminal in a new folder shows (it never takes typing meant as
//! a prompt).

use std::time::{Duration, Instant};

use super::*;

/// A shell in `dir` with the world's environment, at its prompt.
fn shell(w: &World, dir: &Path) -> Tmux {
    let ui = Tmux::run(
        dir,
        &format!(
            "env -i {} PS1='ready$ ' bash --norc --noprofile -i",
            env_words(w)
        ),
    );
    ui.wait_for("ready$");
    ui
}

/// Whether the screen shows `what` within `secs` seconds (polled, never a fixed sleep).
fn seen_within(ui: &Tmux, what: &str, secs: u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut pause = Duration::from_millis(10);
    while Instant::now() < deadline {
        if ui.screen().contains(what) {
            return true;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
    false
}

#[test]
fn keys_typed_in_the_burst_that_starts_baton_reach_the_composer() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let ui = shell(&w, &dir);
    let mut lost = Vec::new();
    for i in 0..10 {
        // As `tmux send-keys 'baton' Enter 'word3 here'`: one burst.
        let typed = format!("word{i} here");
        ui.keys(&["clear; ", BATON, "Enter", &typed]);
        ui.wait_for("prompt → api");
        if !seen_within(&ui, &format!("│{typed}"), 5) {
            lost.push(typed);
        }
        // Empty the composer (its draft would be kept), then detach back to the shell.
        ui.keys(&["C-u", "C-b", "d"]);
        ui.wait_for("[detached from baton");
    }
    assert!(lost.is_empty(), "lost: {lost:?}");
}
