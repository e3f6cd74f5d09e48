//! The cap on CLIs starting at once (`[limits] starting`): a burst of sends starts its CLIs in
//! the order the sends came, the others shown waiting with how many are ahead of them.

use std::path::{Path, PathBuf};
use std::process::Child;

use super::common::*;

/// `[limits] starting = 1`, cold CLIs, every start held once it has its place until `gate`
/// exists (`PATH.reached.K` marks the K-th).
fn capped_world() -> (World, PathBuf) {
    let mut w = World::new();
    let config = "[limits]\nstarting = 1\n\n[providers.claude]\nwarm = 0\n";
    std::fs::write(w.data().join("config.toml"), config).unwrap();
    let gate = w.home().join("gate");
    w.env.push((
        "BATON_STALL_AT".into(),
        format!("start-placed:{}", gate.display()),
    ));
    (w, gate)
}

/// Sends "for a" to a, whose CLI takes the one place and is held there, then "for b" and
/// "for c", each once the one before waits (`start_ahead` 0, then 1); the sends, in order.
fn a_held_then_b_and_c_waiting(w: &World, gate: &Path) -> Vec<Child> {
    let mut sends = vec![w.spawn(&["send", "a", "for a", "--detach"])];
    let reached = PathBuf::from(format!("{}.reached.1", gate.display()));
    w.wait_for("a's CLI to take the one place", || reached.exists());
    for (name, ahead) in [("b", 0), ("c", 1)] {
        sends.push(w.spawn(&["send", name, &format!("for {name}"), "--detach"]));
        w.wait_for(&format!("{name} to wait to start"), || {
            w.show(name)["start_ahead"] == ahead
        });
    }
    sends
}

#[test]
fn a_burst_of_sends_starts_one_cli_at_a_time_in_order_the_others_shown_waiting() {
    let (w, gate) = capped_world();
    for name in ["a", "b", "c"] {
        w.new_terminal(name, "claude");
    }
    let sends = a_held_then_b_and_c_waiting(&w, &gate);
    let ls = w.ok(&["ls"]);
    assert!(ls.contains("waiting to start (0 ahead)"), "{ls}");
    assert!(ls.contains("waiting to start (1 ahead)"), "{ls}");
    let shown = w.ok(&["show", "c"]);
    assert!(
        shown.starts_with("c  (waiting to start (1 ahead))"),
        "{shown}"
    );
    assert_eq!(w.show("a").get("start_ahead"), None, "a has its place");
    std::fs::write(&gate, "").unwrap();
    for send in sends {
        let out = send.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    w.wait_for("three answers", || {
        ["a", "b", "c"]
            .iter()
            .all(|n| w.show(n)["last_turn"]["status"] == "completed")
    });
    let prompts: Vec<String> = w.invocations().iter().map(stdin_prompt).collect();
    assert_eq!(prompts, ["for a", "for b", "for c"]);
    for name in ["a", "b", "c"] {
        assert_eq!(w.show(name).get("start_ahead"), None, "{name}");
    }
}

/// The line of `screen` that holds `what`, or "".
fn line_with<'a>(screen: &'a str, what: &str) -> &'a str {
    screen.lines().find(|l| l.contains(what)).unwrap_or("")
}

#[test]
fn the_multiplexer_shows_terminals_waiting_to_start_until_their_clis_start() {
    use super::tui::{tmux_missing, Tmux};
    if tmux_missing() {
        return;
    }
    let (w, gate) = capped_world();
    w.new_terminal("a", "claude");
    w.new_terminal("b", "claude");
    let dir = w.new_terminal("c", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("prompt → c");
    let sends = a_held_then_b_and_c_waiting(&w, &gate);
    // The list marks b and c with how many are ahead (the name kept), c's pane says it whole.
    let s = ui.wait_until("b and c waiting, in the list and c's pane", |s| {
        line_with(s, "│1 b ").contains("◌ 0 ahead")
            && line_with(s, "│2 c ").contains("◌ 1 ahead")
            && line_with(s, "2 c · claude").contains("waiting to start (1 ahead)")
    });
    assert!(
        !line_with(&s, "│0 a ").contains("ahead"),
        "a has its place:\n{s}"
    );
    std::fs::write(&gate, "").unwrap();
    for send in sends {
        let out = send.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    // Started and answered: the marks are gone.
    let s = ui.wait_until("the three answered", |s| {
        s.contains("last_user=for c")
            && line_with(s, "│0 a ").contains("✓ done")
            && line_with(s, "│1 b ").contains("✓ done")
    });
    assert!(!s.contains("ahead"), "{s}");
}
