//! Copy mode's backward search in a real client: `?` searches up, `n` goes on the same way and
//! `N` the other, as tmux's vi copy mode.

use super::*;

#[test]
fn question_mark_searches_up_and_capital_n_turns_back_down() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.send("api", "alpha one");
    w.send("api", "alpha two");
    let ui = Tmux::start(&w, &dir, "");
    ui.tmux(&["set-option", "-s", "set-clipboard", "on"]);
    ui.wait_for("› alpha two");
    // From the bottom, up: the latest "alpha" is in the second turn (`/` would wrap to the
    // first).
    ui.keys(&["C-b", "["]);
    ui.wait_for("copy mode [");
    ui.type_text("?alpha");
    ui.wait_for("search up: alpha");
    ui.keys(&["Enter", "v", "$", "y"]);
    ui.wait_for("copied ");
    let buffer = ui.tmux(&["show-buffer"]);
    assert!(buffer.starts_with("alpha two"), "{buffer:?}");
    // `N` goes the other way: down from the last hit, around to the first turn.
    ui.keys(&["C-b", "["]);
    ui.wait_for("copy mode [");
    ui.type_text("?alpha");
    ui.keys(&["Enter", "N", "v", "$", "y"]);
    ui.wait_until("a new copy", |_| {
        ui.tmux(&["show-buffer"]).starts_with("alpha one")
    });
}
