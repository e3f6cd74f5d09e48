//! The approvals inbox on the Codex shim: a Codex turn on a thread that exists runs on an
//! app-server with approval policy `on-request` (warm, or started for the turn), and its
//! `item/fileChange/requestApproval` / `item/commandExecution/requestApproval` wait in the same
//! inbox as Claude's (fixtures/captures/approvals/codex). A deny's reason reaches the model as a
//! steer right after the decline. A new thread's first turn runs there too (`thread/start` with
//! the system text, fixtures/captures/approvals/codex-first-turn).

use std::path::PathBuf;

use serde_json::Value;

use super::approvals::{
    crash_while_waiting, finished, interrupt_while_waiting, raw_lines, send_waiting,
};
use super::common::{read_dir_files, refused, system_text, World};

/// A Codex terminal `api` whose thread exists (its first turn is exec's, which cannot ask),
/// and the folder `out` beside its checkout.
fn world_with(cold: bool) -> (World, PathBuf) {
    let w = World::new();
    if cold {
        w.cold();
    }
    let dir = w.new_terminal("api", "codex");
    let out = dir.parent().unwrap().join("out");
    std::fs::create_dir_all(&out).unwrap();
    w.send("api", "first");
    (w, out)
}

fn world() -> (World, PathBuf) {
    world_with(false)
}

/// A prompt whose model writes `file` in the folder beside the checkout (outside the sandbox).
fn write_outside(file: &str) -> String {
    format!("[[deny:Write:../out/{file}]] [[reply:done]]")
}

#[test]
fn a_codex_write_outside_waits_and_approve_lands_it() {
    let (w, out) = world();
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    let id = asked["id"].as_str().unwrap().to_string();
    let target = out.join("o.txt");
    assert_eq!(
        (&asked["provider"], &asked["tool"], &asked["target"]),
        (
            &Value::from("codex"),
            &Value::from("apply_patch"),
            &Value::from(target.to_str().unwrap())
        )
    );
    assert_eq!(w.show("api")["approval"]["id"], id.as_str());
    assert!(!target.exists());
    w.ok(&["approve", &id]);
    finished(send);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "written by shim\n"
    );
    refused(&w, &["deny", &id], "already approved");
    let inv = w.last_invocation();
    assert_eq!(inv["params"]["approvalPolicy"], "on-request", "{inv}");
}

#[test]
fn a_codex_deny_refuses_it_and_its_reason_reaches_the_model_as_a_steer() {
    let (w, out) = world();
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    let id = asked["id"].as_str().unwrap();
    let reason = "not there: write it under docs/ instead";
    w.ok(&["deny", id, "--reason", reason]);
    let said = finished(send);
    assert!(!out.join("o.txt").exists());
    // Declined, then the reason joined the turn as the user's message the model answered.
    let lines = raw_lines(&w);
    let declined = lines
        .iter()
        .position(|l| l.contains("\"fileChange\"") && l.contains("\"declined\""))
        .expect("the patch declined");
    let steered = lines
        .iter()
        .position(|l| l.contains("\"userMessage\"") && l.contains(reason))
        .expect("the reason as a user message");
    assert!(declined < steered, "the reason follows the decline");
    assert!(said.contains(&format!("last_user={reason}")), "{said}");
    refused(&w, &["approve", id], "already denied");
}

#[test]
fn a_codex_write_inside_asks_nothing() {
    let (w, _out) = world();
    w.send("api", "[[tool:Write:b.txt]] [[reply:done]]");
    assert_eq!(w.json(&["approvals"]), Value::Array(vec![]));
    assert_eq!(
        w.last_invocation()["params"]["approvalPolicy"],
        "on-request"
    );
}

#[test]
fn a_codex_always_covers_the_next_write_in_that_folder() {
    let (w, out) = world();
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    let id = asked["id"].as_str().unwrap().to_string();
    w.ok(&["approve", &id, "--always"]);
    finished(send);
    w.send("api", &write_outside("p.txt"));
    assert!(out.join("p.txt").exists());
    assert_eq!(w.show("api")["approval_rules"][0]["id"], id.as_str());
}

#[test]
fn a_codex_command_is_asked_with_its_command_and_runs_once_approved() {
    let (w, _out) = world();
    let (send, asked) = send_waiting(&w, "[[deny:Bash:cat /etc/hostname]] [[reply:done]]");
    assert_eq!(
        (&asked["tool"], &asked["target"]),
        (
            &Value::from("exec_command"),
            &Value::from("cat /etc/hostname")
        )
    );
    w.ok(&["approve", asked["id"].as_str().unwrap()]);
    finished(send);
    let ran = raw_lines(&w).into_iter().any(|l| {
        l.contains("\"item/completed\"")
            && l.contains("\"commandExecution\"")
            && l.contains("cat /etc/hostname: output line 1")
    });
    assert!(ran, "the approved command ran");
}

#[test]
fn a_crash_while_a_codex_request_waits_expires_it_never_approves_it() {
    let (w, out) = world();
    crash_while_waiting(&w, &write_outside("o.txt"), &out.join("o.txt"));
}

#[test]
fn an_interrupt_while_a_codex_request_waits_expires_it() {
    let (w, out) = world();
    interrupt_while_waiting(&w, &write_outside("o.txt"), &out.join("o.txt"));
}

#[test]
fn with_no_warm_app_server_a_turn_that_may_ask_starts_one_and_keeps_none() {
    let (w, out) = world_with(true);
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    w.ok(&["approve", asked["id"].as_str().unwrap()]);
    finished(send);
    assert!(out.join("o.txt").exists());
    let inv = w.last_invocation();
    assert_eq!(
        (&inv["argv"][0], &inv["params"]["approvalPolicy"]),
        (&Value::from("app-server"), &Value::from("on-request")),
        "{inv}"
    );
    let status = w.ok(&["server", "status"]);
    assert!(!status.contains("warm: api"), "{status}");
}

#[test]
fn with_ask_never_a_codex_turn_stays_exec_and_asks_nothing() {
    let w = World::new();
    w.cold();
    w.exec_only();
    let dir = w.new_terminal("api", "codex");
    std::fs::create_dir_all(dir.parent().unwrap().join("out")).unwrap();
    w.send("api", "first");
    w.send("api", &write_outside("o.txt"));
    assert_eq!(w.json(&["approvals"]), Value::Array(vec![]));
    assert_eq!(w.last_invocation()["argv"][0], "exec");
    assert!(!dir.parent().unwrap().join("out/o.txt").exists());
}

#[test]
fn the_timeout_denies_a_codex_request_and_the_model_reads_why() {
    let w = World::new();
    std::fs::write(
        w.data().join("config.toml"),
        "[approvals]\ntimeout_secs = 1\n",
    )
    .unwrap();
    let dir = w.new_terminal("api", "codex");
    let out = dir.parent().unwrap().join("out");
    std::fs::create_dir_all(&out).unwrap();
    w.send("api", "first");
    // The send returns once the timeout answered: nobody approves it.
    w.send("api", &write_outside("o.txt"));
    assert!(!out.join("o.txt").exists());
    let told = raw_lines(&w)
        .into_iter()
        .any(|l| l.contains("\"userMessage\"") && l.contains("timeout denied it"));
    assert!(told, "the model read why");
}

/// The terminal's (last) session id.
fn session(w: &World) -> Value {
    w.show("api")["sessions"]
        .as_array()
        .and_then(|s| s.last())
        .map(|s| s["session_id"].clone())
        .unwrap_or(Value::Null)
}

/// The developer messages of the terminal's one Codex thread (its rollout).
fn developer_messages(w: &World) -> Vec<Value> {
    let rollouts: Vec<PathBuf> = read_dir_files(&w.codex_home().join("sessions"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(rollouts.len(), 1, "{rollouts:?}");
    std::fs::read_to_string(&rollouts[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["payload"]["role"] == "developer")
        .collect()
}

#[test]
fn a_fresh_codex_terminals_first_turn_asks_and_its_thread_keeps_the_standing_instructions() {
    let (w, out) = fresh();
    w.ok(&["instructions", "api", "add", "Keep it short."]);
    let (send, asked) = send_waiting(&w, &write_outside("o.txt"));
    assert_eq!(asked["tool"], "apply_patch", "{asked}");
    w.ok(&["approve", asked["id"].as_str().unwrap()]);
    finished(send);
    assert_eq!(
        std::fs::read_to_string(out.join("o.txt")).unwrap(),
        "written by shim\n"
    );
    let first = w.last_invocation();
    assert_eq!(
        (&first["argv"][0], &first["params"]["approvalPolicy"]),
        (&Value::from("app-server"), &Value::from("on-request")),
        "{first}"
    );
    let text = system_text(&first).expect("the system text in thread/start");
    assert!(text.contains("- Keep it short."), "{text}");
    let thread = session(&w);
    assert!(
        thread.is_string(),
        "the new thread is the terminal's session"
    );
    // The next turn resumes that thread (warm), which keeps its one copy of the text.
    w.send("api", "two");
    assert_eq!(system_text(&w.last_invocation()), None);
    assert_eq!(session(&w), thread);
    let developer = developer_messages(&w);
    assert_eq!(developer.len(), 1, "one copy, for both turns");
    assert_eq!(developer[0]["payload"]["content"][0]["text"], text.as_str());
}

/// A fresh Codex terminal (no thread yet) and the folder `out` beside its checkout.
fn fresh() -> (World, PathBuf) {
    let w = World::new();
    let dir = w.new_terminal("api", "codex");
    let out = dir.parent().unwrap().join("out");
    std::fs::create_dir_all(&out).unwrap();
    (w, out)
}

#[test]
fn an_interrupt_while_a_new_threads_first_turn_waits_expires_it() {
    let (w, out) = fresh();
    interrupt_while_waiting(&w, &write_outside("o.txt"), &out.join("o.txt"));
    assert!(session(&w).is_string(), "the new thread is kept");
}

#[test]
fn a_crash_while_a_new_threads_first_turn_waits_expires_it() {
    let (w, out) = fresh();
    crash_while_waiting(&w, &write_outside("o.txt"), &out.join("o.txt"));
}

#[test]
fn a_codex_forks_first_turn_resumes_its_copy_on_an_app_server_and_asks() {
    // A fork's thread is copied when it is made (`fork_now`), so its first turn resumes it:
    // on an app-server, where a write outside waits like any other turn's.
    let (w, out) = world();
    w.ok(&["fork", "api", "fk"]);
    let send = w.spawn(&["send", "fk", &write_outside("f.txt")]);
    let mut asked = Value::Null;
    w.wait_for("the fork's request in the inbox", || {
        asked = w.json(&["approvals"])[0].clone();
        !asked.is_null()
    });
    assert_eq!(
        (&asked["terminal"], &asked["tool"]),
        (&Value::from("fk"), &Value::from("apply_patch")),
        "{asked}"
    );
    w.ok(&["approve", asked["id"].as_str().unwrap()]);
    finished(send);
    assert!(out.join("f.txt").exists());
    assert_eq!(w.last_invocation()["argv"][0], "app-server");
}
