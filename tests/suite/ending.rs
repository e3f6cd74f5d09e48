//! A clean Claude turn ends at its result (a cold Codex turn at its `turn.completed`): the
//! send returns while its CLI still exits, the terminal's next turn starts only once that CLI
//! is gone, a server that dies meanwhile keeps the turn as it ended, `fork` waits for that
//! exit, `rm` stops the CLI, and input that waits long for that exit is told why (`baton
//! interrupt` stops the CLI).

use super::common::*;

/// A cold Claude terminal `t` with one turn, then a second whose CLI lingers after its result
/// until the file `go` exists in the terminal's folder; returns that folder and the lingering
/// pid.
fn lingering_turn(w: &World) -> (std::path::PathBuf, i32) {
    lingering_turn_of(w, "t", "claude")
}

/// [`lingering_turn`] for a terminal `name` of `provider`.
fn lingering_turn_of(w: &World, name: &str, provider: &str) -> (std::path::PathBuf, i32) {
    w.cold();
    if provider == "codex" {
        // A turn that may ask runs on an app-server: this one is exec's.
        w.exec_only();
    }
    let dir = w.new_terminal(name, provider);
    w.send(name, "first");
    let (out, pid) = send_lingering(w, name, "second [[linger:go]]");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("last_user=second"),
        "{}",
        text(&out)
    );
    (dir, pid)
}

#[test]
fn a_clean_turn_is_answered_at_its_result_and_the_next_turn_waits_for_its_cli_to_exit() {
    let w = World::new();
    let (dir, lingering) = lingering_turn(&w);
    let t = w.show("t");
    assert_eq!(t["state"], "idle", "{t}");
    assert_eq!(t["last_turn"]["status"], "completed", "{t}");
    // Input sent now waits for nothing the user can see, and runs once that CLI is gone.
    let next = w.spawn(&["send", "t", "third"]);
    w.wait_for("the third input to wait", || {
        w.json(&["queue", "t"])
            .as_array()
            .is_some_and(|q| q.len() == 1)
    });
    let log = format!("BATON_SHIM_LOG={}", w.shim_log().display());
    let clis = processes_with(&log, |_, words| words.contains("shims/claude"));
    assert_eq!(
        clis,
        [lingering as u32],
        "no CLI starts beside the exiting one"
    );
    assert_eq!(w.invocations().len(), 2);
    std::fs::write(dir.join("go"), "").unwrap();
    let out = next.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(!said.contains("busy"), "{said}");
    assert!(!process_runs(lingering));
    let ran: Vec<String> = w.invocations().iter().map(stdin_prompt).collect();
    assert_eq!(ran, ["first", "second [[linger:go]]", "third"]);
    assert_eq!(w.show("t")["last_turn"]["status"], "completed");
}

#[test]
fn a_server_killed_while_a_finished_turns_cli_exits_keeps_the_turn_and_stops_the_cli() {
    let w = World::new();
    let (_dir, lingering) = lingering_turn(&w);
    kill_server(&w);
    w.wait_for("the warden to stop the CLI", || !process_runs(lingering));
    let log = w.json(&["log", "t"]);
    let turns = log["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{turns:?}");
    assert_eq!(turns[1]["status"], "completed", "{:?}", turns[1]);
    w.send("t", "third");
    let (_, resumed) = claude_session(&w.last_invocation());
    assert_eq!(resumed, claude_session(&w.invocations()[0]).0);
}

#[test]
fn rm_stops_a_finished_turns_exiting_cli_instead_of_refusing() {
    let w = World::new();
    let (_dir, lingering) = lingering_turn(&w);
    // The CLI never exits by itself here; `rm` must neither wait for it nor say a turn runs.
    let out = w.ok(&["rm", "t", "--force"]);
    assert!(out.contains("removed t"), "{out}");
    w.wait_for("the exiting CLI to be stopped", || !process_runs(lingering));
    assert_eq!(w.json(&["ls"]).as_array().map(Vec::len), Some(0));
    assert_eq!(w.invocations().len(), 2);
}

#[test]
fn a_refused_rm_leaves_a_finished_turns_exiting_cli_be() {
    let w = World::new();
    let (dir, lingering) = lingering_turn(&w);
    w.ok(&["send", "t", "third", "--detach"]);
    let out = w.run(&["rm", "t"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("prompts waiting"), "{}", text(&out));
    std::fs::write(dir.join("go"), "").unwrap();
    // The third turn starts only once the lingering CLI's close-out is over, log line and all.
    w.wait_for("the third turn", || w.invocations().len() == 3);
    assert!(!process_runs(lingering));
    let log = std::fs::read_to_string(w.data().join("server.log")).unwrap_or_default();
    assert!(
        !log.contains(&format!("(pid {lingering}) is stopped")),
        "a refusal stops nothing: {log}"
    );
}

#[test]
fn fork_waits_for_a_finished_turns_cli_to_exit_instead_of_refusing() {
    let w = World::new();
    let (_dir, lingering) = lingering_turn(&w);
    // The CLI never exits by itself: the fork waits until it is stopped (10 s after its stdin
    // closed), past the 5 s a busy terminal's lock is waited for.
    let out = w.ok(&["fork", "t", "f"]);
    assert!(out.contains("fork"), "{out}");
    assert!(!process_runs(lingering));
    assert_eq!(w.show("f")["state"], "idle");
}

#[test]
fn input_waiting_for_a_slow_exit_is_told_why_and_interrupt_stops_that_cli() {
    use std::io::BufRead;
    let w = World::new();
    let (_dir, lingering) = lingering_turn(&w);
    let mut next = w.spawn(&["send", "t", "third"]);
    let mut said = std::io::BufReader::new(next.stderr.take().unwrap()).lines();
    let told = said
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.contains("still exiting"))
        .expect("the waiting send is told why it waits");
    assert!(told.contains(&format!("(pid {lingering})")), "{told}");
    assert!(told.contains("baton interrupt t"), "{told}");
    // Input sent from now on is told as it is accepted.
    let detached = w.run(&["send", "t", "fourth", "--detach"]);
    assert!(detached.status.success(), "{}", text(&detached));
    let note = String::from_utf8_lossy(&detached.stderr);
    assert!(note.contains("note: t's last turn is over"), "{note}");
    assert_eq!(w.invocations().len(), 2, "nothing ran meanwhile");
    let out = w.ok(&["interrupt", "t"]);
    assert!(
        out.contains(&format!("CLI (pid {lingering}) was still exiting: stopped")),
        "{out}"
    );
    assert!(next.wait().unwrap().success());
    let rest: Vec<String> = said.map(Result::unwrap).collect();
    assert!(
        !rest.iter().any(|l| l.contains("still exiting")),
        "told once: {rest:?}"
    );
    // Stopping that CLI holds no queue: both waiting prompts run.
    w.wait_for("the fourth turn", || w.invocations().len() == 4);
    assert!(!process_runs(lingering));
    let ran: Vec<String> = w.invocations().iter().map(stdin_prompt).collect();
    assert_eq!(ran[2..], ["third", "fourth"]);
    // The fourth turn's own CLI exits after its answer too: asked before, this would stop it.
    let fourth = w.last_invocation()["pid"].as_i64().unwrap() as i32;
    w.wait_for("the fourth turn's CLI to exit", || {
        w.show("t")["state"] == "idle" && !process_runs(fourth)
    });
    let out = w.run(&["interrupt", "t"]);
    assert!(text(&out).contains("no running turn"), "{}", text(&out));
}

#[test]
fn a_cold_codex_turn_is_answered_at_turn_completed_and_the_next_waits_for_its_exit() {
    let w = World::new();
    let (dir, lingering) = lingering_turn_of(&w, "c", "codex");
    let t = w.show("c");
    assert_eq!(t["state"], "idle", "{t}");
    assert_eq!(t["last_turn"]["status"], "completed", "{t}");
    assert!(
        t["context"]["tokens"].as_u64().is_some_and(|n| n > 0),
        "{t}"
    );
    let next = w.spawn(&["send", "c", "third"]);
    w.wait_for("the third input to wait", || {
        w.json(&["queue", "c"])
            .as_array()
            .is_some_and(|q| q.len() == 1)
    });
    assert_eq!(
        w.invocations().len(),
        2,
        "no CLI starts beside the exiting one"
    );
    std::fs::write(dir.join("go"), "").unwrap();
    let out = next.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(!process_runs(lingering));
    let ran: Vec<String> = w.invocations().iter().map(stdin_prompt).collect();
    assert_eq!(ran, ["first", "second [[linger:go]]", "third"]);
}
