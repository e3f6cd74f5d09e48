//! Ways to a terminal in a real client: the tree picker (prefix `w`), the command prompt
//! (prefix `:`) and `baton attach NAME`.

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
    ui.wait_for("rename: NEW_NAME is missing");
    ui.keys(&["C-b", ":"]);
    ui.type_text("interrupt api");
    ui.keys(&["Escape"]);
    ui.wait_until("the prompt closed", |s| !s.contains(":interrupt api"));
}

#[test]
fn attach_name_focuses_that_terminal_and_an_unknown_name_is_refused() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_three(&w);
    ui.keys(&["C-b", "%"]);
    ui.wait_for("prompt → web");
    ui.keys(&["C-b", "d"]);
    ui.wait_for("BATON-EXITED 0");
    let dir = w.home();
    // api's pane takes the focus; docs, shown nowhere, comes into the focused pane (api's,
    // as the last client left it).
    let again = Tmux::start(&w, &dir, "attach api");
    again.wait_for("prompt → api");
    again.wait_for("1 web · codex");
    again.keys(&["C-b", "d"]);
    again.wait_for("BATON-EXITED 0");
    let docs = Tmux::start(&w, &dir, "attach docs");
    let s = docs.wait_for("prompt → docs");
    assert!(s.contains("1 web · codex"), "{s}");
    assert!(!s.contains("0 api · claude"), "{s}");
    let none = Tmux::start(&w, &dir, "attach nope");
    let s = none.wait_for("BATON-EXITED 2");
    assert!(s.contains("nope"), "{s}");
}
