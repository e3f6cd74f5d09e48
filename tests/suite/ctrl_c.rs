//! Ctrl-c on a foreground `baton send`: it interrupts the prompt's own turn (partial output
//! kept, the interrupted summary printed, exit 130), and never another prompt's turn while the
//! prompt still waits behind it.

use std::io::Read;
use std::process::Child;

use super::common::*;

fn sigint(child: &Child) {
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

/// Reads the child's stdout until it printed something (so it saw its turn start).
fn first_output(child: &mut Child) -> String {
    let mut buf = [0u8; 256];
    let n = child.stdout.as_mut().unwrap().read(&mut buf).unwrap();
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[test]
fn ctrl_c_interrupts_the_turn_of_a_foreground_send() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut send = w.spawn(&["send", "t", "[[hold:go]] held"]);
    assert!(!first_output(&mut send).is_empty());
    // The press is waited for beside the connection, on the command's one thread: a thread
    // blocked in a read costs every `send` ~1 ms at its exit.
    let threads = std::fs::read_dir(format!("/proc/{}/task", send.id()))
        .unwrap()
        .count();
    assert_eq!(threads, 1, "a foreground send waits on one thread");
    sigint(&send);
    let out = send.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("interrupting t's turn"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let last = &w.show("t")["last_turn"];
    assert_eq!(last["status"], "interrupted", "{last}");
}

#[test]
fn ctrl_c_while_the_prompt_waits_leaves_it_queued_and_the_running_turn_alone() {
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    w.ok(&["send", "t", "first [[hold:go]]", "--detach"]);
    w.wait_for("the first turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    let send = w.spawn(&["send", "t", "second"]);
    w.wait_for("the second prompt to wait", || w.show("t")["queued"] == 1);
    sigint(&send);
    let out = send.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(
        text(&out).contains("still waits in t's queue"),
        "{}",
        text(&out)
    );
    let t = w.show("t");
    assert_eq!(
        (t["state"].clone(), t["queued"].clone()),
        ("running".into(), 1.into())
    );
    std::fs::write(dir.join("go"), "").unwrap();
    w.wait_for("both turns", || {
        let t = w.show("t");
        t["turns"] == 2 && t["state"] == "idle"
    });
}

/// The signals `pid` blocks, from /proc.
fn blocked(pid: i64) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("SigBlk:")).unwrap();
    u64::from_str_radix(line.trim_start_matches("SigBlk:").trim(), 16).unwrap()
}

#[test]
fn a_server_a_foreground_send_starts_does_not_inherit_a_blocked_sigint() {
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    w.ok(&["server", "stop"]);
    let send = w.spawn(&["send", "t", "[[hold:go]] held"]);
    w.wait_for("the turn to run", || !w.invocations().is_empty());
    let server = w.json(&["server", "status"])["pid"].as_i64().unwrap();
    let cli = w.last_invocation()["pid"].as_i64().unwrap();
    const SIGINT_BIT: u64 = 1 << 1;
    assert_eq!(blocked(server) & SIGINT_BIT, 0, "the server blocks SIGINT");
    assert_eq!(blocked(cli) & SIGINT_BIT, 0, "the CLI blocks SIGINT");
    std::fs::write(dir.join("go"), "").unwrap();
    assert!(send.wait_with_output().unwrap().status.success());
}
