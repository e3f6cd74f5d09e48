//! The cap on CLIs starting at once (`[limits] starting`): a burst of sends starts its CLIs in
//! the order the sends came, the others shown waiting with how many are ahead of them.

use std::path::PathBuf;

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

#[test]
fn a_burst_of_sends_starts_one_cli_at_a_time_in_order_the_others_shown_waiting() {
    let (w, gate) = capped_world();
    for name in ["a", "b", "c"] {
        w.new_terminal(name, "claude");
    }
    let mut sends = vec![w.spawn(&["send", "a", "for a", "--detach"])];
    let reached = PathBuf::from(format!("{}.reached.1", gate.display()));
    w.wait_for("a's CLI to take the one place", || reached.exists());
    for (name, ahead) in [("b", 0), ("c", 1)] {
        sends.push(w.spawn(&["send", name, &format!("for {name}"), "--detach"]));
        w.wait_for(&format!("{name} to wait to start"), || {
            w.show(name)["start_ahead"] == ahead
        });
    }
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
