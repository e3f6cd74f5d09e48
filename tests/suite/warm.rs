//! Warm CLIs: a terminal's Claude process stays up after a clean turn and takes the next
//! prompt without a cold start; everything the send path decides still holds (a rotation, a
//! fresh conversation, another model, a switch, a dead CLI start a cold one), within the limit
//! and the idle time, and a crash leaves none behind.

use serde_json::Value;

use super::common::*;

/// The warm CLIs `server status --json` lists.
pub(super) fn warm(w: &World) -> Vec<Value> {
    w.json(&["server", "status"])["warm"]
        .as_array()
        .unwrap()
        .clone()
}

pub(super) fn pid_of(inv: &Value) -> i32 {
    inv["pid"].as_i64().unwrap() as i32
}

pub(super) fn write_config(w: &World, text: &str) {
    std::fs::write(w.data().join("config.toml"), text).unwrap();
}

/// Every raw stream terminal `name`'s turns left, joined.
pub(super) fn raw_streams(w: &World, name: &str) -> String {
    let id = w.show(name)["id"].as_str().unwrap().to_string();
    let dir = w.data().join("terminals").join(id).join("turns");
    read_dir_files(&dir)
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

#[test]
fn a_2_1_197_cli_still_writing_its_turn_takes_the_next_prompt_once_it_has() {
    // 2.1.197 writes a turn to its session file after its result (3-75 ms on the real CLI):
    // until then the CLI is on its way to the pool, and the next send neither starts a CLI of
    // its own ahead of it nor finds the session short.
    let mut w = World::new();
    w.env
        .push(("BATON_SHIM_CLAUDE_VERSION".into(), "2.1.197".into()));
    w.env
        .push(("BATON_SHIM_LATE_WRITE_MS".into(), "300".into()));
    w.new_terminal("t", "claude");
    for prompt in ["one", "two", "three"] {
        w.send("t", prompt);
    }
    let runs = w.invocations();
    let turns: Vec<(i64, i64)> = runs
        .iter()
        .map(|r| (r["pid"].as_i64().unwrap(), r["turn"].as_i64().unwrap()))
        .collect();
    let pid = turns[0].0;
    assert_eq!(
        turns,
        [(pid, 0), (pid, 1), (pid, 2)],
        "one CLI took all three"
    );
}

#[test]
fn the_next_prompt_runs_in_the_warm_cli_and_records_its_turn_as_a_cold_one_would() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "one");
    let first = w.last_invocation();
    // The CLI joins the pool once its turn's end is handled, after `send` has its reply.
    w.wait_for("the CLI to wait warm", || warm(&w).len() == 1);
    let listed = warm(&w);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["name"], "t");
    assert_eq!(listed[0]["pid"].as_i64(), first["pid"].as_i64());
    assert_eq!(listed[0]["turns"], 1);
    assert!(listed[0]["memory_bytes"].as_u64().unwrap() > 1 << 20);
    assert!(process_runs(pid_of(&first)), "it waits for the next prompt");

    let (out, _) = w.send("t", "two [[ctx:300]] [[window:1000]]");
    assert!(out.contains("last_user=two"), "{out}");
    let runs = w.invocations();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["pid"], runs[0]["pid"], "no second process");
    assert_eq!(runs[1]["turn"], 1);
    assert_eq!(stdin_prompt(&runs[1]), "two [[ctx:300]] [[window:1000]]");
    // The same session, the same records: context, window, its own cost.
    let show = w.show("t");
    assert_eq!(show["context"]["tokens"], 300);
    assert_eq!(show["context"]["window"], 1000);
    assert_eq!(show["sessions"].as_array().unwrap().len(), 1);
    let log = w.json(&["log", "t"]);
    let turns = log["turns"].as_array().unwrap();
    assert!(turns.iter().all(|t| t["status"] == "completed"), "{log}");
    let usd: Vec<f64> = turns
        .iter()
        .map(|t| t["cost"]["usd"].as_f64().unwrap())
        .collect();
    assert!(
        usd[1] < usd[0] * 1.5,
        "the second turn's money is its own, not the process's running total: {usd:?}"
    );
    w.wait_for("the CLI to wait warm again", || {
        warm(&w).first().is_some_and(|c| c["turns"] == 2)
    });
    assert!(w
        .ok(&["server", "status"])
        .contains("warm: t · claude pid "));
}

#[test]
fn a_rotation_a_fresh_conversation_another_model_and_a_switch_each_start_cold() {
    let w = World::new();
    // The switch to Codex runs exec (with the inbox on, its new thread starts on an app-server,
    // which is kept warm).
    w.exec_only();
    w.new_terminal("t", "claude");
    w.send("t", "one [[ctx:451]] [[window:1000]]");
    let p1 = pid_of(&w.last_invocation());
    // Past 45%: a fresh conversation, so a fresh session in a fresh process.
    w.send("t", "two");
    let inv = w.last_invocation();
    let p2 = pid_of(&inv);
    assert_ne!(p2, p1);
    assert_eq!(inv["turn"], 0);
    assert_eq!(w.show("t")["conversation"]["opened_reason"], "size");
    w.wait_for("the rotated-out CLI to exit", || !process_runs(p1));

    w.ok(&["send", "t", "three", "--fresh"]);
    let p3 = pid_of(&w.last_invocation());
    assert_ne!(p3, p2);
    w.wait_for("the CLI of the retired conversation to exit", || {
        !process_runs(p2)
    });

    w.ok(&["send", "t", "four", "--model", "claude-haiku-9"]);
    let inv = w.last_invocation();
    let p4 = pid_of(&inv);
    assert_ne!(p4, p3);
    assert_eq!(flag(&inv["argv"], "--model"), Some("claude-haiku-9"));
    assert!(flag(&inv["argv"], "--resume").is_some(), "{inv}");
    w.wait_for("the CLI on the old model to exit", || !process_runs(p3));

    w.ok(&["send", "t", "five", "--provider", "codex"]);
    w.wait_for("the Claude CLI to exit at the switch", || !process_runs(p4));
    assert!(warm(&w).is_empty());
}

#[test]
fn warm_clis_stay_within_the_limit_and_stop_once_idle_or_turned_off() {
    let w = World::new();
    write_config(&w, "[providers.claude]\nwarm = 1\nwarm_idle_secs = 2\n");
    w.new_terminal("a", "claude");
    w.new_terminal("b", "claude");
    w.send("a", "one");
    let pa = pid_of(&w.last_invocation());
    w.send("b", "one");
    let pb = pid_of(&w.last_invocation());
    // One may stay: the longest idle goes.
    w.wait_for("a's CLI to make room", || !process_runs(pa));
    let listed = warm(&w);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["name"], "b");
    w.wait_for("b's CLI to stop once idle", || !process_runs(pb));
    assert!(warm(&w).is_empty());

    let cold = World::new();
    cold.cold();
    cold.new_terminal("t", "claude");
    cold.send("t", "one");
    let p1 = pid_of(&cold.last_invocation());
    cold.wait_for("the CLI to exit at its turn's end", || !process_runs(p1));
    cold.send("t", "two");
    let inv = cold.last_invocation();
    assert_ne!(pid_of(&inv), p1);
    assert!(flag(&inv["argv"], "--resume").is_some());
    assert!(warm(&cold).is_empty());
}

#[test]
fn an_interrupt_reaches_the_cli_as_its_own_request_and_the_cli_stays_warm() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "one");
    let p1 = pid_of(&w.last_invocation());
    w.ok(&["send", "t", "two [[hang]]", "--detach"]);
    w.wait_for("the warm turn to stream", || {
        w.invocations().len() == 2 && w.show("t")["state"] == "running"
    });
    assert_eq!(pid_of(&w.last_invocation()), p1);
    w.ok(&["interrupt", "t"]);
    w.wait_for("the turn to end", || {
        w.show("t")["last_turn"]["status"] == "interrupted"
    });
    let log = w.json(&["log", "t"]);
    assert!(
        log["turns"][1]["answer"]
            .as_str()
            .unwrap()
            .contains("MOCK-PARTIAL before hang"),
        "{log}"
    );
    // The CLI ended the turn itself (its interrupt request, not a signal) and waits on.
    assert!(process_runs(p1));
    assert_eq!(warm(&w)[0]["pid"].as_i64(), Some(p1 as i64));
    let raw = raw_streams(&w, "t");
    assert!(raw.contains(r#""type":"control_response""#), "{raw}");
    let (out, _) = w.send("t", "three");
    assert!(out.contains("last_user=three"), "{out}");
    let inv = w.last_invocation();
    assert_eq!(pid_of(&inv), p1);
    assert_eq!(inv["turn"], 2);
}

#[test]
fn a_killed_warm_cli_is_replaced_and_a_killed_server_leaves_no_cli_behind() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "one");
    let p1 = pid_of(&w.last_invocation());
    kill(Pid::from_raw(p1), Signal::SIGKILL).unwrap();
    w.wait_for("the warm CLI to be gone", || !process_runs(p1));
    // The next turn starts a CLI of its own, resuming the session.
    w.send("t", "two");
    let inv = w.last_invocation();
    let p2 = pid_of(&inv);
    assert_ne!(p2, p1);
    assert_eq!(inv["turn"], 0);
    assert!(flag(&inv["argv"], "--resume").is_some(), "{inv}");

    // A server killed while its CLI is warm: the CLI goes with it (EOF on its stdin).
    kill_server(&w);
    w.wait_for("the warm CLI to exit with its server", || !process_runs(p2));

    // A server killed mid-turn in a warm CLI: the turn is interrupted, with what streamed.
    w.send("t", "three");
    let p3 = pid_of(&w.last_invocation());
    w.ok(&["send", "t", "four [[hang]]", "--detach"]);
    w.wait_for("the warm turn to stream", || {
        raw_streams(&w, "t").contains("MOCK-PARTIAL before hang")
    });
    assert_eq!(pid_of(&w.last_invocation()), p3);
    kill_server(&w);
    w.wait_for("the CLI to be interrupted", || !process_runs(p3));
    let log = w.json(&["log", "t"]);
    let turns = log["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 4, "{log}");
    assert_eq!(turns[3]["status"], "interrupted");
    assert!(turns[3]["answer"]
        .as_str()
        .unwrap()
        .contains("MOCK-PARTIAL before hang"));
    w.send("t", "five");
}

#[test]
fn a_kill_right_after_an_accepted_prompt_on_a_warm_cli_loses_it_never() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "open");
    for round in 1..=3u64 {
        let prompt = format!("prompt {round}");
        let out = w.run(&["send", "t", &prompt, "--detach"]);
        assert!(out.status.success(), "{}", text(&out));
        kill_server(&w);
        w.wait_for("the prompt to be a turn after the restart", || {
            let t = w.show("t");
            t["queued"] == 0 && t["state"] == "idle"
        });
        let log = w.json(&["log", "t"]);
        let of: Vec<&Value> = log["turns"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["prompt"] == prompt.as_str())
            .collect();
        // Exactly one turn: completed, or interrupted with what streamed (its start was
        // journalled, so the warm CLI may have read it: never run a second time by itself).
        assert_eq!(of.len(), 1, "{prompt}: {log}");
        assert!(
            of[0]["status"] == "completed" || of[0]["status"] == "interrupted",
            "{log}"
        );
    }
}

#[test]
fn a_forks_next_turns_run_in_the_cli_its_first_turn_left_warm() {
    let w = World::new();
    w.new_repo_terminal("api", "api", "claude");
    w.send("api", "one");
    w.send("api", "two");
    w.ok(&["fork", "api"]);
    w.send("api-2", "three, in the fork");
    let first = w.last_invocation();
    assert!(has_arg(&first["argv"], "--fork-session"), "{first}");
    let forked: Vec<Value> = w
        .invocations()
        .into_iter()
        .filter(|i| has_arg(&i["argv"], "--fork-session"))
        .collect();
    assert_eq!(
        forked.len(),
        1,
        "one CLI for the fork's first turn: {forked:?}"
    );
    w.send("api-2", "four, in the fork");
    let next = w.last_invocation();
    assert_eq!(next["pid"], first["pid"], "{next}");
    assert_eq!(next["turn"], 1);
    let sessions = w.show("api-2")["sessions"].clone();
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
}

/// The own memory `server status` lists for terminal `name`'s warm CLI.
fn own_bytes(w: &World, name: &str) -> Option<u64> {
    warm(w)
        .iter()
        .find(|c| c["name"] == name)
        .and_then(|c| c["own_bytes"].as_u64())
}

/// Issue 42: two CLIs per provider stayed warm, whatever they held. Now no count bounds them
/// by default, their own memory does: all providers within `[warm] memory_mb`, the longest
/// idle stopped first.
#[test]
fn warm_clis_are_bounded_by_their_own_memory_not_a_count() {
    let w = World::new();
    write_config(&w, "[warm]\nmemory_mb = 4096\n");
    for t in ["a", "b", "c"] {
        w.new_terminal(t, "claude");
        w.send(t, "one");
    }
    let names = |w: &World| -> Vec<String> {
        let mut n: Vec<String> = warm(w).iter().map(|c| c["name"].to_string()).collect();
        n.sort();
        n
    };
    w.wait_for("three warm CLIs: no count", || warm(&w).len() == 3);
    assert_eq!(names(&w), ["\"a\"", "\"b\"", "\"c\""]);
    let one = own_bytes(&w, "a").unwrap();
    assert!(one > 0);
    let status = w.json(&["server", "status"]);
    assert_eq!(status["warm_budget_bytes"], 4096u64 << 20);
    w.ok(&["server", "stop"]);

    // Room for one and a half: the second kept stops the first, the longest idle.
    let mib = (one * 3 / 2).div_ceil(1 << 20);
    write_config(&w, &format!("[warm]\nmemory_mb = {mib}\n"));
    w.send("a", "two");
    let pa = pid_of(&w.last_invocation());
    w.send("b", "two");
    w.wait_for("a's CLI to make room", || !process_runs(pa));
    w.wait_for("b's CLI kept", || names(&w) == ["\"b\""]);
}
