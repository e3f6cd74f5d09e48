//! The approvals inbox on the Claude shim (`--permission-prompt-tool stdio`, as
//! fixtures/captures/approvals): a write outside the checkout waits for `baton approve` /
//! `deny`, `--always` covers the next, a crash while one waits expires it, bad ids are refused.

use std::path::{Path, PathBuf};
use std::process::Child;

use serde_json::Value;

use super::common::{kill_server, refused, text, World};

/// A terminal `api` on the Claude shim, and the folder `out` beside its checkout.
fn world() -> (World, PathBuf, PathBuf) {
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let out = dir.parent().unwrap().join("out");
    std::fs::create_dir_all(&out).unwrap();
    (w, dir, out)
}

/// A prompt whose model writes `file` in the folder beside the checkout (refused by the fence).
fn write_outside(file: &str) -> String {
    format!("[[deny:Write:../out/{file}]] [[reply:done]]")
}

/// Starts `send api PROMPT` and waits until its request is in the inbox; (the send, it).
pub(super) fn send_waiting(w: &World, prompt: &str) -> (Child, Value) {
    let send = w.spawn(&["send", "api", prompt]);
    let mut found = Value::Null;
    w.wait_for("the request in the inbox", || {
        let list = w.json(&["approvals"]);
        match list.as_array().and_then(|a| a.first()) {
            Some(v) => {
                found = v.clone();
                true
            }
            None => false,
        }
    });
    (send, found)
}

pub(super) fn finished(send: Child) -> String {
    let out = send.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// Every raw stream line of the terminal's turns.
pub(super) fn raw_lines(w: &World) -> Vec<String> {
    let mut lines = Vec::new();
    let terminals = w.data().join("terminals");
    for t in std::fs::read_dir(terminals).unwrap() {
        let turns = t.unwrap().path().join("turns");
        let Ok(files) = std::fs::read_dir(&turns) else {
            continue;
        };
        for f in files {
            let body = std::fs::read_to_string(f.unwrap().path()).unwrap();
            lines.extend(body.lines().map(str::to_string));
        }
    }
    lines
}

fn exists(p: &Path) -> bool {
    p.exists()
}

#[test]
fn a_write_outside_waits_and_approve_lands_it() {
    let (w, dir, out) = world();
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    let id = asked["id"].as_str().unwrap().to_string();
    let target = out.join("o.txt");
    assert_eq!(
        (&asked["terminal"], &asked["provider"], &asked["tool"]),
        (
            &Value::from("api"),
            &Value::from("claude"),
            &Value::from("Write")
        )
    );
    assert_eq!(asked["target"], target.to_str().unwrap());
    assert_eq!(asked["state"], "waiting");
    // The terminal says it waits, with what it asks; the rest of baton goes on.
    assert_eq!(w.show("api")["approval"]["id"], id.as_str());
    let ls = w.ok(&["ls"]);
    assert!(ls.contains("approval"), "{ls}");
    assert!(!exists(&target));
    let said = w.ok(&["approve", &id]);
    assert!(said.starts_with(&format!("approved {id}")), "{said}");
    finished(send);
    assert!(exists(&target), "the approved write landed");
    assert!(w.show("api").get("approval").is_none());
    // Answered once: a second answer is refused and changes nothing.
    refused(&w, &["approve", &id], "already approved");
    refused(&w, &["deny", &id], "already approved");
    assert!(dir.exists());
}

#[test]
fn deny_refuses_it_with_the_reason_in_the_models_tool_answer() {
    let (w, _dir, out) = world();
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    let id = asked["id"].as_str().unwrap();
    let reason = "not there: write it under docs/ instead";
    let said = w.ok(&["deny", id, "--reason", reason]);
    assert!(said.contains(reason), "{said}");
    finished(send);
    assert!(!exists(&out.join("o.txt")));
    let answer = raw_lines(&w)
        .into_iter()
        .filter(|l| l.contains("\"tool_result\""))
        .find(|l| l.contains(reason));
    let answer: Value =
        serde_json::from_str(&answer.expect("the reason in a tool result")).unwrap();
    assert_eq!(answer["message"]["content"][0]["is_error"], true);
    refused(&w, &["approve", id], "already denied");
}

#[test]
fn a_write_inside_asks_nothing() {
    let (w, _dir, _out) = world();
    w.send("api", "[[tool:Write:b.txt]] [[reply:done]]");
    assert_eq!(w.json(&["approvals"]), Value::Array(vec![]));
    let argv = w.last_invocation()["argv"].clone();
    assert!(
        super::common::has_arg(&argv, "--permission-prompt-tool"),
        "{argv}"
    );
}

#[test]
fn always_covers_the_next_write_in_that_folder_until_the_rule_is_removed() {
    let (w, _dir, out) = world();
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    let id = asked["id"].as_str().unwrap().to_string();
    w.ok(&["approve", &id, "--always"]);
    finished(send);
    // The next write in the same folder runs unasked.
    w.send("api", &write_outside("p.txt"));
    assert!(exists(&out.join("p.txt")));
    let rules = w.show("api")["approval_rules"].clone();
    assert_eq!(rules[0]["id"], id.as_str());
    assert_eq!(rules[0]["target"], out.to_str().unwrap());
    let shown = w.ok(&["show", "api"]);
    assert!(shown.contains("always:"), "{shown}");
    // Removed, it asks again.
    w.ok(&["approvals", "api", "--forget", &id]);
    assert!(w.show("api").get("approval_rules").is_none());
    let (send, again) = send_waiting(&w, &write_outside("q.txt"));
    w.ok(&["deny", again["id"].as_str().unwrap()]);
    finished(send);
    assert!(!exists(&out.join("q.txt")));
}

#[test]
fn a_crash_while_a_request_waits_expires_it_never_approves_it() {
    let (w, _dir, out) = world();
    crash_while_waiting(&w, &write_outside("o.txt"), &out.join("o.txt"));
}

/// `send api PROMPT` waits for approval; the server is killed and started again: the request
/// is gone and expired, `file` never written, the turn closed interrupted.
pub(super) fn crash_while_waiting(w: &World, prompt: &str, file: &Path) {
    let (send, asked) = send_waiting(w, prompt);
    let id = asked["id"].as_str().unwrap();
    kill_server(w);
    let _ = send.wait_with_output();
    w.ok(&["server", "start"]);
    assert_eq!(w.json(&["approvals"]), Value::Array(vec![]));
    refused(w, &["approve", id], "expired");
    w.wait_for("the CLI to be gone and the write never made", || {
        w.show("api")["state"] != "running"
    });
    assert!(!exists(file));
    let last = &w.show("api")["last_turn"];
    assert_eq!(last["status"], "interrupted", "{last}");
}

#[test]
fn bad_ids_are_refused_in_one_line_and_change_nothing() {
    let (w, _dir, _out) = world();
    refused(&w, &["approve", "a000000"], "no approval request");
    refused(
        &w,
        &["deny", "nope", "--reason", "x"],
        "no approval request",
    );
    refused(
        &w,
        &["approvals", "api", "--forget", "a1"],
        "no --always rule",
    );
    // A reason that is not UTF-8 never reaches the server.
    use std::os::unix::ffi::OsStrExt;
    let reason = std::ffi::OsStr::from_bytes(b"\xff\xfe");
    let out = w
        .cmd(&["deny", "a1234", "--reason"])
        .arg(reason)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not valid UTF-8") && err.trim().lines().count() == 1,
        "{err}"
    );
    assert_eq!(w.json(&["approvals"]), Value::Array(vec![]));
}

#[test]
fn ask_never_refuses_as_before() {
    let w = World::new();
    std::fs::write(
        w.data().join("config.toml"),
        "[approvals]\nask = \"never\"\n",
    )
    .unwrap();
    let dir = w.new_terminal("api", "claude");
    std::fs::create_dir_all(dir.parent().unwrap().join("out")).unwrap();
    w.send("api", &write_outside("o.txt"));
    assert_eq!(w.json(&["approvals"]), Value::Array(vec![]));
    assert!(!exists(&dir.parent().unwrap().join("out/o.txt")));
    let argv = w.last_invocation()["argv"].clone();
    assert!(
        !super::common::has_arg(&argv, "--permission-prompt-tool"),
        "{argv}"
    );
}

#[test]
fn an_interrupt_while_a_request_waits_expires_it() {
    let (w, _dir, out) = world();
    interrupt_while_waiting(&w, &write_outside("o.txt"), &out.join("o.txt"));
}

/// `send api PROMPT` waits for approval; `interrupt api`: the request expires, `file` is never
/// written, the turn ends interrupted.
pub(super) fn interrupt_while_waiting(w: &World, prompt: &str, file: &Path) {
    let (send, asked) = send_waiting(w, prompt);
    let id = asked["id"].as_str().unwrap();
    w.ok(&["interrupt", "api"]);
    let _ = send.wait_with_output();
    w.wait_for("the request to be gone", || {
        w.json(&["approvals"]) == Value::Array(vec![])
    });
    refused(w, &["approve", id], "expired");
    assert!(!exists(file));
    assert_eq!(w.show("api")["last_turn"]["status"], "interrupted");
}

#[test]
fn the_timeout_denies_a_request_left_waiting_and_says_so_to_the_model() {
    let w = World::new();
    std::fs::write(
        w.data().join("config.toml"),
        "[approvals]\ntimeout_secs = 1\n",
    )
    .unwrap();
    let dir = w.new_terminal("api", "claude");
    let out = dir.parent().unwrap().join("out");
    std::fs::create_dir_all(&out).unwrap();
    // The send returns once the timeout answered: nobody approves it.
    w.send("api", &write_outside("o.txt"));
    assert!(!exists(&out.join("o.txt")));
    let told = raw_lines(&w)
        .into_iter()
        .any(|l| l.contains("\"tool_result\"") && l.contains("timeout denied it"));
    assert!(told, "the model read why");
}
