//! A watching client (the UI) sees every terminal change and every step of every turn.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

/// A watching connection: each call gives the next line the server sends.
fn watch(w: &World) -> impl FnMut() -> Value {
    let mut sock = UnixStream::connect(w.data().join("server.sock")).unwrap();
    sock.write_all(b"{\"cmd\":\"watch\"}\n").unwrap();
    // A missing event must fail the test, not hang it.
    sock.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let mut lines = BufReader::new(sock).lines();
    move || serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap()
}

#[test]
fn a_watcher_sees_the_snapshot_then_each_turn_as_it_happens() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut next = watch(&w);
    let first = next();
    assert_eq!(first["reply"], "watch");
    assert_eq!(first["event"]["what"], "terminals");
    assert_eq!(first["event"]["terminals"][0]["name"], "t");
    w.send("t", "hello there");
    let mut seen = vec![];
    loop {
        let v = next();
        let what = v["event"]["what"].as_str().unwrap().to_string();
        if what == "turn" {
            seen.push(format!(
                "turn:{}",
                v["event"]["event"]["step"].as_str().unwrap()
            ));
        } else {
            seen.push(what.clone());
        }
        if what == "finished" {
            assert_eq!(v["event"]["name"], "t");
            assert_eq!(v["event"]["summary"]["status"], "completed");
            break;
        }
    }
    assert!(seen.contains(&"turn:started".to_string()), "{seen:?}");
    assert!(seen.contains(&"terminal".to_string()), "{seen:?}");
    assert!(
        seen.iter().filter(|s| *s == "turn:turn").count() >= 3,
        "{seen:?}"
    );
    // The terminal's new state follows the end of the turn.
    let after = loop {
        let v = next();
        if v["event"]["what"] == "terminal" {
            break v;
        }
    };
    assert_eq!(after["event"]["terminal"]["state"], "idle");
    assert_eq!(after["event"]["terminal"]["turns"], 1);
}

#[test]
fn a_watcher_that_falls_behind_gets_every_terminal_again_and_goes_on() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut next = watch(&w);
    assert_eq!(next()["event"]["what"], "terminals");
    // This client reads nothing while a long answer streams: some ten thousand deltas, far
    // more than the server keeps for a client (and than the socket buffers).
    let long = "0123456789 abcdefghijklmnopqrstuvwxyz. ".repeat(8000);
    let prompt = format!("talk [[reply:{long}]]");
    let out = w.run_stdin(&["send", "t", "-"], prompt.as_bytes());
    assert!(out.status.success(), "{}", text(&out));
    w.send("t", "and again");
    // What it reads now: the steps it still had, then all terminals again (nothing older
    // than that list follows it), then live events.
    loop {
        let v = next();
        if v["event"]["what"] == "terminals" {
            assert_eq!(v["event"]["terminals"][0]["turns"], 2, "{v}");
            break;
        }
    }
    // And it keeps getting live events.
    w.send("t", "a third");
    loop {
        let v = next();
        if v["event"]["what"] == "finished" {
            assert_eq!(v["event"]["summary"]["status"], "completed");
            break;
        }
    }
}

#[test]
fn a_watcher_that_connects_mid_turn_gets_the_turn_from_its_start_once() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut early = watch(&w);
    assert_eq!(early()["event"]["what"], "terminals");
    let go_on = w.tmp.path().join("go-on");
    w.ok(&[
        "send",
        "t",
        "--detach",
        &format!("two calls [[calls:2]] [[hold:{}]]", go_on.display()),
    ]);
    let step = |v: &Value| {
        v["event"]["event"]["event"]["kind"]
            .as_str()
            .map(str::to_string)
    };
    // What the early watcher saw until the tool call: the late one must get the same.
    let mut seen = Vec::new();
    loop {
        let v = early();
        if v["event"]["what"] == "turn" {
            seen.push(v["event"]["event"].clone());
            if step(&v).as_deref() == Some("tool_use") {
                break;
            }
        }
    }
    let mut late = watch(&w);
    assert_eq!(late()["event"]["what"], "terminals");
    let replayed: Vec<Value> = (0..seen.len())
        .map(|_| late()["event"]["event"].clone())
        .collect();
    assert_eq!(replayed, seen);
    assert_eq!(seen[0]["step"], "started");
    // Released, it goes on live, with no step twice, to its end.
    std::fs::write(&go_on, "").unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (next, out) in [(&mut early, &mut a), (&mut late, &mut b)] {
        loop {
            let v = next();
            if v["event"]["what"] == "turn" {
                out.push(v["event"]["event"].clone());
            }
            if v["event"]["what"] == "finished" {
                break;
            }
        }
    }
    assert_eq!(a, b);
}
