//! The tree picker (prefix `w`) and the command prompt (prefix `:`) in a real client.

use super::*;

#[test]
fn prefix_w_picks_a_terminal_by_motion_or_by_filter_and_esc_closes() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_three(&w);
    // j moves down a row; Enter shows web in the pane.
    ui.keys(&["C-b", "w"]);
    ui.wait_for("pick a terminal");
    ui.keys(&["j", "Enter"]);
    ui.wait_for("prompt → web");
    // Typing filters: only docs is left, Enter shows it.
    ui.keys(&["C-b", "w"]);
    ui.wait_for("pick a terminal");
    ui.type_text("do");
    let s = ui.wait_for("filter: do_");
    let rows = s.lines().filter(|l| l.contains(" idle  ")).count();
    assert_eq!(rows, 1, "only docs is kept:\n{s}");
    ui.keys(&["Enter"]);
    ui.wait_for("prompt → docs");
    // Esc closes and leaves the focus alone.
    ui.keys(&["C-b", "w"]);
    ui.wait_for("pick a terminal");
    ui.keys(&["k", "Escape"]);
    ui.wait_until("the picker closed", |s| !s.contains("pick a terminal"));
    ui.wait_for("prompt → docs");
}

#[test]
fn prefix_colon_runs_batons_commands_and_says_the_answer_or_the_error() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_three(&w);
    // A send: journalled, then the turn runs in api as any other.
    ui.keys(&["C-b", ":"]);
    ui.type_text("send api 'hello from the prompt'");
    ui.wait_for(":send api 'hello from the prompt'");
    ui.keys(&["Enter"]);
    ui.wait_for("accepted as input 1 of api");
    ui.wait_for("› hello from the prompt");
    // A rename: the list follows.
    ui.keys(&["C-b", ":"]);
    ui.type_text("rename web www");
    ui.keys(&["Enter"]);
    ui.wait_for("renamed web to www");
    ui.wait_for("1 www ");
    // A new terminal in another folder (relative to where baton started) takes the focus.
    let sub = w.home().join("proj");
    std::fs::create_dir_all(&sub).unwrap();
    ui.keys(&["C-b", ":"]);
    ui.type_text(&format!("new proj --dir {}", sub.display()));
    ui.keys(&["Enter"]);
    ui.wait_for("prompt → proj");
    assert_eq!(w.json(&["show", "proj"])["dir"], sub.display().to_string());
    // A mistake: one line saying what the command takes; Esc leaves the prompt untouched.
    ui.keys(&["C-b", ":"]);
    ui.type_text("rename api");
    ui.keys(&["Enter"]);
    ui.wait_for("rename: NEW is missing");
    ui.keys(&["C-b", ":"]);
    ui.type_text("interrupt api");
    ui.keys(&["Escape"]);
    ui.wait_until("the prompt closed", |s| !s.contains(":interrupt api"));
}
