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
