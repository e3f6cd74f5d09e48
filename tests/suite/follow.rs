//! `baton watch NAME`: the running turn from its start (what already streamed, then live),
//! ending with its summary and `send`'s exit code; `--next` waits for a turn; `--json` lines.

use std::io::{BufRead, Read};

use serde_json::Value;

use super::common::*;

/// A claude terminal whose detached turn is held after its first piece of answer, streamed.
fn held(w: &World) -> std::path::PathBuf {
    let dir = w.new_terminal("t", "claude");
    let mut watch = w.watch();
    w.ok(&["send", "t", "tell me [[hold:go]]", "--detach"]);
    watch.until(|v| v["event"]["event"]["event"]["kind"] == "delta");
    dir
}

#[test]
fn watch_replays_what_streamed_then_follows_to_the_summary() {
    let w = World::new();
    let dir = held(&w);
    let mut watching = w.spawn(&["watch", "t"]);
    let mut first = [0u8; 64];
    let n = watching.stdout.as_mut().unwrap().read(&mut first).unwrap();
    // What streamed before the watch began comes first.
    assert!(
        String::from_utf8_lossy(&first[..n]).starts_with("MOCK-REPLY #1"),
        "{:?}",
        String::from_utf8_lossy(&first[..n])
    );
    std::fs::write(dir.join("go"), "").unwrap();
    let out = watching.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let rest = String::from_utf8_lossy(&out.stdout);
    assert!(rest.contains("last_user=tell me"), "{rest}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("completed"), "{stderr}");
}

#[test]
fn watch_with_no_turn_running_says_so_and_next_waits_for_one() {
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    let out = w.run(&["watch", "t"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("t runs no turn now: `baton watch t --next`"));
    refused(&w, &["watch", "nope"], "no terminal named \"nope\"");

    let mut watching = w.spawn(&["watch", "t", "--next", "--json"]);
    // Held, so the watch gets this turn whether it was already waiting or came just after.
    w.ok(&["send", "t", "hello [[hold:go]]", "--detach"]);
    let mut stdout = std::io::BufReader::new(watching.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    std::fs::write(dir.join("go"), "").unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert!(watching.wait().unwrap().success());
    let lines: Vec<Value> = format!("{first}{rest}")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["event"]["step"], "started", "{lines:?}");
    assert_eq!(lines[0]["event"]["prompt"], "hello [[hold:go]]");
    let last = lines.last().unwrap();
    assert_eq!(
        (last["reply"].clone(), last["data"]["status"].clone()),
        ("ok".into(), "completed".into())
    );
}

#[test]
fn detach_points_at_watch_not_log() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let out = w.run(&["send", "t", "hi", "--detach"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("`baton watch t`"), "{said}");
    assert!(!said.contains("follow it with `baton log"), "{said}");
}
