//! The queue held after a user's interrupt: the next waiting prompt does not start by itself;
//! `ls` and `show` say so, and `baton queue NAME run` resumes it.

use super::common::*;

/// A claude terminal whose first turn is held, with `second` waiting behind it.
fn busy_with_one_waiting(w: &World) -> std::path::PathBuf {
    let dir = w.new_terminal("t", "claude");
    w.ok(&["send", "t", "first [[hold:go]]", "--detach"]);
    w.wait_for("the first turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    w.ok(&["send", "t", "second", "--detach"]);
    dir
}

fn last_status(w: &World) -> String {
    w.show("t")["last_turn"]["status"]
        .as_str()
        .unwrap_or("running")
        .to_string()
}

/// `baton interrupt t`, and its turn recorded interrupted.
fn interrupted(w: &World) {
    w.ok(&["interrupt", "t"]);
    w.wait_for("the turn to end", || last_status(w) == "interrupted");
}

#[test]
fn an_interrupt_holds_the_queue_until_queue_run() {
    let w = World::new();
    busy_with_one_waiting(&w);
    interrupted(&w);
    let t = w.show("t");
    assert_eq!(
        (
            t["queue_held"].clone(),
            t["queued"].clone(),
            t["turns"].clone()
        ),
        (true.into(), 1.into(), 1.into()),
        "{t}"
    );
    let held = "queue held after interrupt: `baton queue t run`";
    assert!(w.ok(&["show", "t"]).contains(held));
    assert!(w.ok(&["ls"]).contains(held));
    assert!(w.ok(&["queue", "t"]).contains("queue held after interrupt"));
    assert_eq!(w.json(&["queue", "t"])[0]["held"], true);

    w.ok(&["queue", "t", "run"]);
    w.wait_for("the second turn", || {
        let t = w.show("t");
        t["turns"] == 2 && t["queued"] == 0 && last_status(&w) == "completed"
    });
    assert_eq!(w.show("t")["queue_held"], false);
}

#[test]
fn an_interrupt_with_nothing_waiting_holds_nothing() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.ok(&["send", "t", "first [[hold:go]]", "--detach"]);
    w.wait_for("the turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    interrupted(&w);
    assert_eq!(w.show("t")["queue_held"], false);
    // The next prompt runs at once.
    w.send("t", "again");
}

#[test]
fn a_jump_releases_the_hold() {
    let w = World::new();
    busy_with_one_waiting(&w);
    interrupted(&w);
    // A plain send joins the held queue, and says so.
    let out = w.run(&["send", "t", "third", "--detach"]);
    assert!(text(&out).contains("t's queue is held"), "{}", text(&out));
    // `send` waits until its own turn ended: the jump ran, and nothing is held.
    let out = w.run(&["send", "t", "jumping", "--jump"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(w.show("t")["queue_held"], false);
    w.wait_for("the rest of the queue", || w.show("t")["turns"] == 4);
}
