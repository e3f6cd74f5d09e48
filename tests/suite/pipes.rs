//! A reader that goes away early (`baton ls --json | true`) ends baton quietly: exit 0, nothing
//! on stderr, no "failed printing to stdout" panic; a streaming send's turn goes on.

use std::process::{Output, Stdio};

use pretty_assertions::assert_eq;

use super::common::*;

/// Runs `baton ARGS` with stdout a pipe whose read end is already closed, so its first write
/// fails with EPIPE whatever its size.
fn run_with_closed_stdout(w: &World, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    w.cmd(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

fn ends_quietly(w: &World, args: &[&str]) {
    let out = run_with_closed_stdout(w, args);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string()
        ),
        (Some(0), String::new()),
        "{args:?}"
    );
}

#[test]
fn a_closed_stdout_ends_ls_log_and_show_quietly() {
    let w = World::new();
    for name in ["a", "b", "c", "d"] {
        w.new_terminal(name, "claude");
    }
    w.send("a", "hello there, write something");
    for args in [
        vec!["ls", "--json"],
        vec!["ls"],
        vec!["log", "a"],
        vec!["log", "a", "--json"],
        vec!["show", "a"],
        vec!["server", "status"],
    ] {
        ends_quietly(&w, &args);
    }
    // A real error is still printed.
    let out = run_with_closed_stdout(&w, &["log", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no terminal named"));
}

#[test]
fn a_streaming_send_whose_stdout_closes_ends_quietly_and_its_turn_goes_on() {
    let mut w = World::new();
    // Slow enough that the turn is still running when the client's first write fails.
    w.env.push(("BATON_SHIM_DELAY_MS".into(), "150".into()));
    w.new_terminal("t", "claude");
    for (n, json) in [(1, false), (2, true)] {
        let mut args = vec!["send", "t", "write a long answer please"];
        if json {
            args.push("--json");
        }
        let out = run_with_closed_stdout(&w, &args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out));
        // The turn's header goes to stderr before the first stdout write; nothing else may.
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.lines().all(|l| l.starts_with("▸ t · turn")),
            "{args:?}: {err}"
        );
        w.wait_for("the turn to complete in the server", || {
            let show = w.show("t");
            show["turns"] == n && show["last_turn"]["status"] == "completed"
        });
    }
}
