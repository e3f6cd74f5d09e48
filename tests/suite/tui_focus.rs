//! Where the focus is, driven in a real client: a re-attach from another terminal's folder
//! keeps it on the pane the user left (keys typed at once reach that pane's shell), the focused
//! pane is marked without colour, and prefix and a digit focus the pane already showing that
//! terminal rather than showing it twice.

use super::*;

/// The row of the screen where `text` is.
fn row_of(screen: &str, text: &str) -> Option<usize> {
    screen.lines().position(|l| l.contains(text))
}

#[test]
fn a_reattach_from_another_terminals_folder_keeps_the_focus_on_the_shell_left_focused() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let api = w.new_terminal("api", "claude");
    let web = w.new_terminal("web", "codex");
    let ui = Tmux::start(&w, &api, "");
    ui.wait_for("prompt → api");
    // api's shell face focused, web's transcript in a second pane.
    ui.keys(&["C-b", "s"]);
    ui.wait_for("keys go to the shell");
    ui.keys(&["C-b", "%"]);
    ui.wait_for("prompt → web");
    ui.keys(&["C-b", "o"]);
    ui.wait_for("keys go to the shell");
    ui.keys(&["C-b", "d"]);
    ui.wait_for("BATON-EXITED 0");

    // `baton` again, from web's folder: the focus is still on api's shell.
    let again = Tmux::start(&w, &web, "");
    let s = again.wait_until("both panes back", |s| {
        s.contains("0 api · shell") && s.contains("1 web · codex")
    });
    let s = if s.contains("keys go to the shell") {
        s
    } else {
        // The status line comes with the first list; give it the time to.
        again.wait_for("keys go to the shell")
    };
    // Marked without colour: a double line and ▶ on api's title, not on web's.
    let api_row = row_of(&s, "▶ 0 api · shell");
    assert!(api_row.is_some(), "api's pane not marked:\n{s}");
    assert_eq!(s.matches('▶').count(), 1, "{s}");
    let line = s.lines().nth(api_row.unwrap_or(0)).unwrap_or("");
    assert!(
        line.contains("╔ ▶ 0 api") && line.contains("┌ 1 web"),
        "{s}"
    );

    // Typed at once, the words reach the shell (not web's composer, as a prompt).
    again.type_text("echo reached-$((6*7))");
    again.keys(&["Enter"]);
    again.wait_for("reached-42");
    assert_eq!(turn_count(&w, "web"), 0);
    assert_eq!(turn_count(&w, "api"), 0);

    // `baton attach web` asks for the other pane.
    again.keys(&["C-b", "d"]);
    again.wait_for("BATON-EXITED 0");
    let third = Tmux::start(&w, &api, "attach web");
    let s = third.wait_for("▶ 1 web · codex");
    assert!(s.contains("prompt → web"), "{s}");
}

#[test]
fn prefix_and_a_digit_focus_the_pane_that_already_shows_that_terminal() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_three(&w);
    ui.keys(&["C-b", "%"]);
    ui.wait_for("▶ 1 web · codex");
    // 0: api is in the left pane: that pane takes the focus, web's pane stays.
    ui.keys(&["C-b", "0"]);
    let s = ui.wait_for("▶ 0 api · claude");
    assert_eq!(s.matches("0 api · claude").count(), 1, "{s}");
    assert!(s.contains("1 web · codex"), "{s}");
    assert!(s.contains("prompt → api"), "{s}");
    // 2: docs is in no pane: the focused one shows it.
    ui.keys(&["C-b", "2"]);
    let s = ui.wait_for("▶ 2 docs · claude");
    assert!(
        s.contains("1 web · codex") && !s.contains("0 api · claude"),
        "{s}"
    );
    // 1: back to web's pane; what is typed goes to web.
    ui.keys(&["C-b", "1"]);
    ui.wait_for("▶ 1 web · codex");
    ui.type_text("for web");
    ui.keys(&["Enter"]);
    w.wait_for("web's turn", || turn_count(&w, "web") == 1);
    assert_eq!(turn_count(&w, "docs"), 0);
}
