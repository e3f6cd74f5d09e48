//! The tmux keys that reshape the panes, driven in a real client: resizing (prefix with Alt or
//! Ctrl and an arrow), the preset layouts (Space), swapping (`{` `}`), the last pane (`;`) and
//! the last terminal (`l`).

use super::*;

#[test]
fn alt_and_ctrl_arrows_resize_a_pane_and_the_size_comes_back_after_a_detach() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.new_terminal("web", "codex");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("prompt → api");
    ui.keys(&["C-b", "%"]);
    let s = ui.wait_for("1 web · codex");
    let (x, _) = locate(&s, "1 web · codex");
    // The right pane's left border moves left by 5, then right by 1.
    ui.keys(&["C-b", "M-Left"]);
    ui.wait_until("the border 5 cells left", |s| {
        s.contains("1 web · codex") && locate(s, "1 web · codex").0 == x - 5
    });
    ui.keys(&["C-b", "C-Right"]);
    ui.wait_until("the border 4 cells left", |s| {
        s.contains("1 web · codex") && locate(s, "1 web · codex").0 == x - 4
    });
    ui.keys(&["C-b", "d"]);
    ui.wait_for("BATON-EXITED 0");
    let again = Tmux::start(&w, &dir, "attach");
    again.wait_until("the resized layout back", |s| {
        s.contains("1 web · codex") && locate(s, "1 web · codex").0 == x - 4
    });
}

#[test]
fn space_cycles_layouts_braces_swap_and_semicolon_and_l_go_back() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_three(&w);
    ui.keys(&["C-b", "%"]);
    ui.wait_for("prompt → web");
    // Even-horizontal: two panes side by side; even-vertical: one above the other.
    ui.keys(&["C-b", "Space"]);
    let s = ui.wait_for("layout even-horizontal");
    assert_eq!(
        locate(&s, "0 api · claude").1,
        locate(&s, "1 web · codex").1,
        "{s}"
    );
    ui.keys(&["C-b", "Space"]);
    let s = ui.wait_for("layout even-vertical");
    let (api, web) = (corner(&s, "0 api · claude"), corner(&s, "1 web · codex"));
    assert_eq!(api.0, web.0, "{s}");
    assert!(api.1 < web.1, "{s}");
    // `{`: the focused web pane goes above api, and keeps the focus.
    ui.keys(&["C-b", "{"]);
    let s = ui.wait_until("web above api", |s| {
        s.contains("0 api · claude") && locate(s, "1 web · codex").1 < locate(s, "0 api · claude").1
    });
    assert!(s.contains("prompt → web"), "{s}");
    // `;`: the api pane again, then web; `l`: the terminal this pane showed before.
    ui.keys(&["C-b", "\\;"]); // tmux reads a lone ";" as its command separator
    ui.wait_for("prompt → api");
    ui.keys(&["C-b", "\\;"]); // tmux reads a lone ";" as its command separator
    ui.wait_for("prompt → web");
    ui.keys(&["C-b", "n"]);
    ui.wait_for("prompt → docs");
    ui.keys(&["C-b", "l"]);
    ui.wait_for("prompt → web");
}
