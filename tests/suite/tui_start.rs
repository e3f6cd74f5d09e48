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

#[test]
fn a_prompt_typed_at_once_over_the_offer_becomes_the_new_terminals_first_prompt() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    w.new_terminal("other", "claude");
    // The three: an R and an e were answers, a y created and an n declined.
    let table = [
        ("parser", "Refactor the parser please"),
        ("build", "yesterday the build broke"),
        ("tests", "now write tests"),
    ];
    for (folder, prompt) in table {
        let dir = w.project(folder);
        let ui = Tmux::start(&w, &dir, "");
        ui.type_text(prompt);
        let s = ui.wait_for(&format!("│{prompt}"));
        assert!(s.contains("No terminal works in"), "{s}");
        ui.keys(&["Enter"]);
        ui.wait_for(&format!("last_user={prompt}"));
        assert_eq!(w.show(folder)["dir"], dir.to_str().unwrap());
        assert_eq!(w.show(folder)["turns"], 1, "{prompt}");
    }
    assert_eq!(
        w.show("other")["turns"],
        0,
        "nothing reached another folder's terminal"
    );
}

#[test]
fn the_offer_declined_in_a_folder_is_not_asked_there_again() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    w.new_terminal("other", "claude");
    let dir = w.project("notes");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("No terminal works in");
    ui.keys(&["Escape"]);
    ui.wait_until("the offer gone", |s| !s.contains("No terminal works in"));
    ui.keys(&["C-b", "d"]);
    ui.wait_for("BATON-EXITED 0");
    // Attached again from the same folder: the composer is other's at once, no offer.
    let again = Tmux::start(&w, &dir, "");
    let s = again.wait_for("prompt → other");
    assert!(!s.contains("No terminal works in"), "{s}");
}

#[test]
fn a_prompt_and_enter_typed_with_baton_are_sent_to_this_folders_terminal() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let ui = shell(&w, &dir);
    ui.keys(&[BATON, "Enter", "fix the tests", "Enter"]);
    ui.wait_for("last_user=fix the tests");
    assert_eq!(w.show("api")["turns"], 1);
}
