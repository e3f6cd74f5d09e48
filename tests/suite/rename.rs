//! `baton rename`: the same terminal (id, history, instructions) under another name, kept
//! across a reindex, announced to watchers; refused for bad or taken names and while busy.

use pretty_assertions::assert_eq;

use super::common::*;

#[test]
fn a_renamed_terminal_keeps_its_history_and_survives_a_reindex() {
    let w = World::new();
    w.new_terminal("a", "claude");
    w.new_terminal("b", "codex");
    w.ok(&["instructions", "a", "add", "Tests go next to the code."]);
    w.send("a", "one");
    w.send("a", "two");
    let before = w.show("a");
    let log_before = w.json(&["log", "a"]);
    let mut watch = w.watch();

    let out = w.ok(&["rename", "a", "api"]);
    // A whole line, so the shell's prompt does not follow it on the same line.
    assert_eq!(out, "renamed a to api\n");
    let ev = watch.until(|v| v["event"]["what"] == "renamed");
    assert_eq!(ev["event"]["name"], "a");
    assert_eq!(ev["event"]["new_name"], "api");

    let after = w.show("api");
    assert_eq!(after["id"], before["id"]);
    assert_eq!(after["instructions"], before["instructions"]);
    let log_after = w.json(&["log", "api"]);
    assert_eq!(log_after["turns"], log_before["turns"]);
    let out = w.run(&["show", "a"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no terminal named \"a\""));

    // It still runs turns under its new name, and the index rebuilds to the same thing.
    w.send("api", "three");
    let snapshot = |w: &World| (w.json(&["ls"]), w.show("api"), w.json(&["log", "api"]));
    let before = snapshot(&w);
    w.json(&["reindex"]);
    assert_eq!(snapshot(&w), before);
    assert_eq!(
        w.json(&["log", "api"])["turns"].as_array().unwrap().len(),
        3
    );
}

#[test]
fn bad_taken_and_busy_renames_are_refused() {
    let w = World::new();
    w.new_terminal("a", "claude");
    w.new_terminal("b", "claude");
    for (args, needle) in [
        (vec!["rename", "a", "b"], "already exists"),
        (vec!["rename", "a", "x/y"], "slash"),
        (vec!["rename", "a", ""], "empty"),
        (vec!["rename", "nope", "c"], "no terminal named \"nope\""),
    ] {
        let out = w.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let mut child = w.spawn(&["send", "a", "slow [[hang]]"]);
    w.wait_for("a running", || w.show("a")["state"] == "running");
    let out = w.run(&["rename", "a", "c"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("running a turn"));
    w.ok(&["interrupt", "a"]);
    let _ = child.wait();
    w.ok(&["rename", "a", "c"]);
    assert_eq!(w.show("c")["name"], "c");
}
