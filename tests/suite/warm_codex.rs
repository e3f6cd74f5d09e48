//! Warm Codex: after a clean turn a `codex app-server` resumes the terminal's thread in the
//! background and takes the next prompt as a `turn/start`, without a cold start; the send
//! path's decisions, the fence, the records, interrupts, steers and crashes hold as for a cold
//! turn (facts: fixtures/captures/codex-warm/README.md).

use serde_json::Value;

use super::common::*;
use super::warm::{pid_of, raw_streams, warm, write_config};

/// Waits until terminal `name` has a warm CLI (a Codex app-server once it resumed the
/// thread), and gives its pid.
fn warm_pid(w: &World, name: &str) -> i32 {
    let mut pid = None;
    w.wait_for("the terminal's CLI to be warm", || {
        pid = warm(w)
            .iter()
            .find(|c| c["name"] == name)
            .and_then(|c| c["pid"].as_i64());
        pid.is_some()
    });
    pid.unwrap() as i32
}

fn is_warm_turn(inv: &Value) -> bool {
    inv["argv"][0] == "app-server" && inv.get("turn").is_some()
}

#[test]
fn the_next_codex_prompts_run_in_the_warm_app_server_with_a_cold_turns_records() {
    let w = World::new();
    // A cold first turn (with the inbox on it would start its thread on an app-server).
    w.exec_only();
    let dir = w.new_terminal("t", "codex");
    w.send("t", "one [[ctx:1000]]");
    let cold = w.last_invocation();
    assert_eq!(cold["argv"][0], "exec");
    let pid = warm_pid(&w, "t");
    assert!(w.ok(&["server", "status"]).contains("warm: t · codex pid "));

    let (out, _) = w.send("t", "two [[ctx:300]] [[window:1000]]");
    assert!(out.contains("last_user=two"), "{out}");
    let inv = w.last_invocation();
    assert!(is_warm_turn(&inv), "{inv}");
    assert_eq!(pid_of(&inv), pid);
    assert_eq!(inv["turn"], 0);
    assert_eq!(stdin_prompt(&inv), "two [[ctx:300]] [[window:1000]]");
    // Everything exec gets again on every run: the folder, the model, the approval policy
    // and the fence (the checkout, the screenshots folder and the terminal's tmp).
    let params = &inv["params"];
    assert_eq!(params["cwd"], dir.to_str().unwrap());
    // The approvals inbox is off here: exec's policy (on, it asks: `approvals_codex`).
    assert_eq!(params["approvalPolicy"], "never");
    assert_eq!(params["sandboxPolicy"]["type"], "workspaceWrite");
    assert_eq!(params["sandboxPolicy"]["excludeSlashTmp"], true);
    let roots = params["sandboxPolicy"]["writableRoots"].as_array().unwrap();
    assert_eq!(roots.len(), 2, "{roots:?}");
    assert!(roots
        .iter()
        .all(|r| r.as_str().unwrap().contains("/terminals/")));
    assert_eq!(
        flag(&inv["argv"], "-c"),
        Some("sandbox_mode=\"workspace-write\"")
    );
    // The same records as a cold turn's: one session, context and window, the turn's own
    // tokens (not the thread's running total).
    let show = w.show("t");
    assert_eq!(show["context"]["tokens"], 300);
    assert_eq!(show["context"]["window"], 1000);
    assert_eq!(show["sessions"].as_array().unwrap().len(), 1);
    let (out, _) = w.send("t", "three [[tool:Bash:echo hi]]");
    assert!(out.contains("Shell echo hi"), "{out}");
    assert_eq!(pid_of(&w.last_invocation()), pid);
    let log = w.json(&["log", "t"]);
    let turns = log["turns"].as_array().unwrap();
    assert!(turns.iter().all(|t| t["status"] == "completed"), "{log}");
    assert!(
        turns[1]["answer"]
            .as_str()
            .unwrap()
            .contains("last_user=two"),
        "the answer is the turn's own: {log}"
    );
    let input: Vec<u64> = turns
        .iter()
        .map(|t| t["cost"]["input_tokens"].as_u64().unwrap())
        .collect();
    assert!(input[1] < input[0], "its own tokens: {input:?}");
    assert_eq!(warm(&w)[0]["turns"], 2);
    // Its raw stream (the app-server's lines) is kept, as a cold turn's is.
    assert!(raw_streams(&w, "t").contains(r#""method":"turn/completed""#));
}

#[test]
fn a_rotation_another_model_and_a_switch_stop_the_app_server_and_run_cold() {
    let w = World::new();
    w.exec_only();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    let p1 = warm_pid(&w, "t");
    w.send("t", "two [[ctx:451]] [[window:1000]]");
    assert_eq!(pid_of(&w.last_invocation()), p1);
    // Past 45%: a fresh conversation, so a new thread, cold.
    w.send("t", "three");
    let inv = w.last_invocation();
    assert_eq!(inv["argv"][0], "exec", "{inv}");
    assert!(!has_arg(&inv["argv"], "resume"), "{inv}");
    assert_eq!(w.show("t")["conversation"]["opened_reason"], "size");
    w.wait_for("the old thread's app-server to exit", || !process_runs(p1));

    // Another model: its thread runs cold (the app-server that held it has exited first: a
    // thread takes one writer at a time).
    let p2 = warm_pid(&w, "t");
    w.ok(&["send", "t", "four", "--model", "gpt-6"]);
    let inv = w.last_invocation();
    assert_eq!(inv["argv"][0], "exec", "{inv}");
    assert_eq!(flag(&inv["argv"], "-m"), Some("gpt-6"));
    assert!(has_arg(&inv["argv"], "resume"), "{inv}");
    assert!(!process_runs(p2));
    assert_eq!(w.show("t")["last_turn"]["status"], "completed");

    let p3 = warm_pid(&w, "t");
    w.ok(&["send", "t", "five", "--provider", "claude"]);
    w.wait_for("the app-server to exit at the switch", || !process_runs(p3));
    assert!(warm(&w).iter().all(|c| c["provider"] == "claude"));
}

#[test]
fn warm_app_servers_stay_within_their_own_limit_and_stop_once_idle_or_turned_off() {
    let w = World::new();
    write_config(
        &w,
        "[providers.codex]\nwarm = 1\nwarm_idle_secs = 2\n\n[providers.claude]\nwarm = 1\n",
    );
    w.exec_only();
    w.new_terminal("a", "codex");
    w.new_terminal("b", "codex");
    w.new_terminal("c", "claude");
    w.send("c", "one");
    w.send("a", "one");
    let pa = warm_pid(&w, "a");
    w.send("b", "one");
    let pb = warm_pid(&w, "b");
    w.wait_for("a's app-server to make room", || !process_runs(pa));
    // Claude's warm CLI counts against Claude's limit only.
    let names: Vec<Value> = warm(&w).iter().map(|c| c["name"].clone()).collect();
    assert!(names.contains(&"c".into()), "{names:?}");
    w.wait_for("b's app-server to stop once idle", || !process_runs(pb));

    // Turned off, none is started (with the approvals inbox on, a turn that may ask still
    // runs on an app-server of its own, kept by none: `approvals_codex.rs`).
    let cold = World::new();
    cold.cold();
    cold.exec_only();
    cold.new_terminal("t", "codex");
    cold.send("t", "one");
    cold.send("t", "two");
    assert!(cold
        .all_invocations()
        .iter()
        .all(|i| i["argv"][0] != "app-server"));
    assert!(warm(&cold).is_empty());
}

#[test]
fn an_interrupt_is_the_app_servers_own_and_keeps_what_streamed() {
    let w = World::new();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    let pid = warm_pid(&w, "t");
    w.ok(&["send", "t", "two [[hang]]", "--detach"]);
    w.wait_for("the warm turn to stream", || {
        raw_streams(&w, "t").contains("MOCK-PARTIAL")
    });
    w.ok(&["interrupt", "t"]);
    w.wait_for("the turn to end", || {
        w.show("t")["last_turn"]["status"] == "interrupted"
    });
    let log = w.json(&["log", "t"]);
    assert!(
        log["turns"][1]["answer"]
            .as_str()
            .unwrap()
            .contains("MOCK-PARTIAL"),
        "{log}"
    );
    assert!(raw_streams(&w, "t").contains(r#""status":"interrupted""#));
    // It ended the turn itself (no signal) and takes the next one.
    assert!(process_runs(pid));
    let (out, _) = w.send("t", "three");
    assert!(out.contains("last_user=three"), "{out}");
    let inv = w.last_invocation();
    assert_eq!(pid_of(&inv), pid);
    // Its third: the thread's first turn ran there too (it may ask, so it started the thread).
    assert_eq!(inv["turn"], 2);
}

#[test]
fn a_steer_joins_a_warm_codex_turn_before_its_next_model_call() {
    let w = World::new();
    let dir = w.new_terminal("t", "codex");
    w.send("t", "one");
    warm_pid(&w, "t");
    let first = w.spawn(&["send", "t", "fix the bug [[calls:2]] [[hold:go]]"]);
    w.wait_for("the turn to run its tool", || {
        raw_streams(&w, "t").contains(r#""type":"commandExecution""#)
    });
    let steer = w.spawn(&["send", "t", "also check the tests", "--steer"]);
    // The app-server takes it in at once (its answer to turn/steer): it joined the turn.
    let id = w.show("t")["id"].as_str().unwrap().to_string();
    let journal = w.data().join("terminals").join(id).join("journal.jsonl");
    w.wait_for("the steer to join the turn", || {
        std::fs::read_to_string(&journal).is_ok_and(|j| j.contains(r#""type":"input_steered""#))
    });
    std::fs::write(dir.join("go"), "").unwrap();
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let answer = String::from_utf8(out.stdout).unwrap();
    assert!(
        answer.contains("last_user=also check the tests"),
        "the model saw the steer in the same turn: {answer}"
    );
    let out = steer.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(said.contains("joined the running turn 2"), "{said}");
    assert!(
        !said.contains("is busy: waiting"),
        "it waited for no turn: {said}"
    );
    let log = w.json(&["log", "t"]);
    assert_eq!(log["turns"].as_array().unwrap().len(), 2, "{log}");
    assert_eq!(w.show("t")["queued"], 0);
}

#[test]
fn a_killed_app_server_is_replaced_and_a_killed_server_leaves_none_behind() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let w = World::new();
    w.exec_only();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    let p1 = warm_pid(&w, "t");
    kill(Pid::from_raw(p1), Signal::SIGKILL).unwrap();
    w.wait_for("the app-server to be gone", || !process_runs(p1));
    // The next turn runs cold, resuming the thread, and leaves a new app-server.
    w.send("t", "two");
    let inv = w.last_invocation();
    assert_eq!(inv["argv"][0], "exec", "{inv}");
    assert!(has_arg(&inv["argv"], "resume"), "{inv}");
    let p2 = warm_pid(&w, "t");
    assert_ne!(p2, p1);

    // A server killed while the app-server is idle: it goes with it (EOF on its stdin).
    kill_server(&w);
    w.wait_for("the app-server to exit with its server", || {
        !process_runs(p2)
    });

    // After the restart the first turn is cold, then warm again; a server killed mid-turn
    // leaves the turn interrupted with what streamed.
    w.send("t", "three");
    assert_eq!(w.last_invocation()["argv"][0], "exec");
    let p3 = warm_pid(&w, "t");
    w.ok(&["send", "t", "four [[hang]]", "--detach"]);
    w.wait_for("the warm turn to stream", || {
        raw_streams(&w, "t").contains("MOCK-PARTIAL")
    });
    assert_eq!(pid_of(&w.last_invocation()), p3);
    kill_server(&w);
    w.wait_for("the app-server to stop", || !process_runs(p3));
    let log = w.json(&["log", "t"]);
    let turns = log["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 4, "{log}");
    assert_eq!(turns[3]["status"], "interrupted");
    assert!(
        turns[3]["answer"]
            .as_str()
            .unwrap()
            .contains("MOCK-PARTIAL"),
        "{log}"
    );
    w.send("t", "five");
    assert_eq!(w.show("t")["last_turn"]["status"], "completed");
}

#[test]
fn a_fork_of_a_warm_codex_terminal_frees_its_thread_first() {
    let w = World::new();
    w.new_repo_terminal("api", "api", "codex");
    w.send("api", "one");
    w.send("api", "two");
    let p = warm_pid(&w, "api");
    w.ok(&["fork", "api"]);
    assert!(
        !process_runs(p),
        "the thread's writer was stopped before the fork"
    );
    w.send("api-2", "three, in the fork");
    w.send("api", "three, in the original");
    assert_eq!(w.show("api")["last_turn"]["status"], "completed");
    assert_eq!(w.show("api-2")["last_turn"]["status"], "completed");
}

#[test]
fn a_moved_checkout_stops_the_warm_cli_and_opens_a_fresh_conversation_cold() {
    for provider in ["claude", "codex"] {
        let w = World::new();
        let repo = w.new_repo_terminal("t", "repo", provider);
        w.send("t", "hello there");
        let pid = warm_pid(&w, "t");
        let old = std::path::PathBuf::from(w.show("t")["dir"].as_str().unwrap());
        let new = w.tmp.path().join("work/moved-here");
        git(
            &w,
            &repo,
            &[
                "worktree",
                "move",
                old.to_str().unwrap(),
                new.to_str().unwrap(),
            ],
        );
        let (_, err) = w.send("t", "still there?");
        assert!(err.contains("moved"), "{provider}: {err}");
        let show = w.show("t");
        assert_eq!(show["conversation"]["opened_reason"], "moved", "{provider}");
        let inv = w.last_invocation();
        assert!(
            inv.get("turn").is_none() || inv["turn"] == 0,
            "{provider}: {inv}"
        );
        assert_ne!(
            pid_of(&inv),
            pid,
            "{provider}: a fresh session in a fresh process"
        );
        assert_eq!(inv["cwd"], new.canonicalize().unwrap().to_str().unwrap());
        w.wait_for("the old checkout's warm CLI to exit", || !process_runs(pid));
    }
}

#[test]
fn a_thread_another_codex_has_open_fails_the_turn_plainly_and_keeps_the_thread() {
    let w = World::new();
    w.cold();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    let thread = w.show("t")["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Another Codex process of the user's writes the thread (Codex's lock, as the shim keeps it).
    let locks = w.codex_home().join("thread-writer-locks");
    std::fs::create_dir_all(&locks).unwrap();
    let lock = std::fs::File::create(locks.join(format!("{thread}.lock"))).unwrap();
    lock.try_lock().unwrap();
    let out = w.run(&["send", "t", "two"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another Codex process has it open") && err.contains(&thread),
        "{err}"
    );
    drop(lock);
    // Not a lost session: the next turn resumes the same thread.
    w.send("t", "three");
    let show = w.show("t");
    assert_eq!(show["sessions"].as_array().unwrap().len(), 1, "{show}");
    assert_eq!(show["last_turn"]["status"], "completed");
}

#[test]
fn a_turn_the_app_server_cannot_take_runs_cold_and_loses_nothing() {
    let mut w = World::new();
    // The app-server unloads the thread before the next turn/start (thread not found).
    w.env.push(("BATON_SHIM_CODEX_UNLOADED".into(), "1".into()));
    w.new_terminal("t", "codex");
    w.send("t", "one");
    let pid = warm_pid(&w, "t");
    let (out, err) = w.send("t", "two [[ctx:500]]");
    assert!(out.contains("last_user=two"), "{out}");
    assert!(err.contains("it ran as a cold codex exec"), "{err}");
    let inv = w.last_invocation();
    assert_eq!(inv["argv"][0], "exec", "{inv}");
    assert!(has_arg(&inv["argv"], "resume"), "the same thread: {inv}");
    assert!(
        !process_runs(pid),
        "the app-server that refused it is stopped"
    );
    let show = w.show("t");
    assert_eq!(show["sessions"].as_array().unwrap().len(), 1, "{show}");
    assert_eq!(show["context"]["tokens"], 500);
    let log = w.json(&["log", "t"]);
    assert_eq!(log["turns"].as_array().unwrap().len(), 2, "{log}");
    // And the next turn has an app-server again.
    assert_ne!(warm_pid(&w, "t"), pid);
}

#[test]
fn a_turn_the_app_server_refused_is_answered_at_turn_completed_like_any_cold_turn() {
    let mut w = World::new();
    w.env.push(("BATON_SHIM_CODEX_UNLOADED".into(), "1".into()));
    let dir = w.new_terminal("t", "codex");
    w.send("t", "one");
    let refusing = warm_pid(&w, "t");
    // Its `codex exec` lingers after the answer: the send returns all the same.
    let (out, exec) = send_lingering(&w, "t", "two [[linger:go]]");
    assert!(
        text(&out).contains("it ran as a cold codex exec"),
        "{}",
        text(&out)
    );
    assert!(!process_runs(refusing));
    assert_eq!(w.show("t")["last_turn"]["status"], "completed");
    // The thread's next app-server starts once that exec has exited.
    std::fs::write(dir.join("go"), "").unwrap();
    let pid = warm_pid(&w, "t");
    assert!(!process_runs(exec));
    assert_ne!(pid, refusing);
}

#[test]
fn a_cold_turn_is_answered_at_turn_completed_and_its_threads_app_server_starts_after_its_exit() {
    let w = World::new();
    // A cold first turn (with the inbox on it would start its thread on an app-server).
    w.exec_only();
    let dir = w.new_terminal("t", "codex");
    let (_, exec) = send_lingering(&w, "t", "one [[linger:go]]");
    // The app-server would resume the thread while exec still holds it.
    let log = format!("BATON_SHIM_LOG={}", w.shim_log().display());
    let clis = processes_with(&log, |_, words| words.contains("shims/codex"));
    assert_eq!(
        clis,
        [exec as u32],
        "nothing starts beside the exiting exec"
    );
    std::fs::write(dir.join("go"), "").unwrap();
    let pid = warm_pid(&w, "t");
    assert!(!process_runs(exec));
    let (out, _) = w.send("t", "two");
    assert!(out.contains("last_user=two"), "{out}");
    let inv = w.last_invocation();
    assert!(is_warm_turn(&inv), "{inv}");
    assert_eq!(pid_of(&inv), pid);
}
