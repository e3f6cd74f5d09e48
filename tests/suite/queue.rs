//! Input the server owns, end to end: a send is journalled before it is acknowledged, waiting
//! input is the server's (every client sees it, it survives a stop and a `kill -9`), runs in
//! order exactly once, and can be edited, withdrawn, moved, turned into a steer or made to
//! jump until it starts.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

/// `send --detach --json`: the acknowledgement.
pub(super) fn detach(w: &World, name: &str, prompt: &str, extra: &[&str]) -> Value {
    let mut args = vec!["send", name, prompt, "--detach", "--json"];
    args.extend_from_slice(extra);
    let out = w.ok(&args);
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["reply"], "ok", "{v}");
    v["data"].clone()
}

/// The waiting input as (input, mode, prompt), in order.
fn queue(w: &World, name: &str) -> Vec<(u64, String, String)> {
    w.json(&["queue", name])
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["input"].as_u64().unwrap(),
                q["mode"].as_str().unwrap().to_string(),
                q["prompt"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Every turn of `log` as (number, input, mode, status, prompt).
pub(super) fn turns(w: &World, name: &str) -> Vec<(u64, u64, String, String, String)> {
    w.json(&["log", name])["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["number"].as_u64().unwrap(),
                t["input"].as_u64().unwrap_or(0),
                t["mode"].as_str().unwrap_or("").to_string(),
                t["status"].as_str().unwrap_or("running").to_string(),
                t["prompt"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

pub(super) fn all_done(w: &World, name: &str, n: usize) -> bool {
    let t = turns(w, name);
    t.len() == n && t.iter().all(|x| x.3 != "running") && w.show(name)["queued"] == 0
}

fn owned(v: &[(u64, u64, &str, &str, &str)]) -> Vec<(u64, u64, String, String, String)> {
    v.iter()
        .map(|(a, b, c, d, e)| (*a, *b, c.to_string(), d.to_string(), e.to_string()))
        .collect()
}

/// A claude terminal whose first turn is held until `release` is called.
fn held(w: &World) -> (std::path::PathBuf, Value) {
    let dir = w.new_terminal("t", "claude");
    let first = detach(w, "t", "first [[hold:go]]", &[]);
    w.wait_for("the first turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    (dir, first)
}

fn release(dir: &std::path::Path) {
    std::fs::write(dir.join("go"), "").unwrap();
}

#[test]
fn waiting_input_is_the_servers_and_runs_in_order() {
    let w = World::new();
    let (dir, first) = held(&w);
    assert_eq!(first["input"], 1);
    assert_eq!(first["accepted"], true);
    let second = detach(&w, "t", "second", &[]);
    // Without --json, --detach says the input's number, its place and how to follow it.
    let out = w.run(&["send", "t", "third", "--detach"]);
    assert!(out.status.success(), "{}", text(&out));
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        said.contains("accepted as input 3 of t (queue, position 2)"),
        "{said}"
    );
    assert_eq!(
        (second["input"].clone(), second["position"].clone()),
        (2.into(), 1.into())
    );
    let want = vec![
        (2, "queue".to_string(), "second".to_string()),
        (3, "queue".to_string(), "third".to_string()),
    ];
    assert_eq!(queue(&w, "t"), want);
    // `show` carries the same list and its count; any client sees it.
    let show = w.show("t");
    assert_eq!(show["queued"], 2);
    assert_eq!(show["queue"], w.json(&["queue", "t"]));
    assert_eq!(show["state"], "running");
    release(&dir);
    w.wait_for("every input to run", || all_done(&w, "t", 3));
    assert_eq!(
        turns(&w, "t"),
        owned(&[
            (1, 1, "direct", "completed", "first [[hold:go]]"),
            (2, 2, "queue", "completed", "second"),
            (3, 3, "queue", "completed", "third"),
        ])
    );
    // A later send starts at once again, and its number is never one used before.
    w.send("t", "fourth");
    assert_eq!(turns(&w, "t")[3].1, 4);
    assert_eq!(turns(&w, "t")[3].2, "direct");
}

#[test]
fn waiting_input_is_edited_withdrawn_moved_steered_and_made_to_jump() {
    let w = World::new();
    let (_dir, _) = held(&w);
    for p in ["a", "b", "c"] {
        detach(&w, "t", p, &[]);
    }
    w.ok(&["queue", "t", "edit", "3", "b2"]);
    w.ok(&["queue", "t", "rm", "2"]);
    w.ok(&["queue", "t", "move", "4", "1"]);
    assert_eq!(
        queue(&w, "t"),
        vec![
            (4, "queue".to_string(), "c".to_string()),
            (3, "queue".to_string(), "b2".to_string())
        ]
    );
    // A steer that has to wait goes ahead of queued input.
    w.ok(&["queue", "t", "steer", "3"]);
    assert_eq!(
        queue(&w, "t"),
        vec![
            (3, "steer".to_string(), "b2".to_string()),
            (4, "queue".to_string(), "c".to_string())
        ]
    );
    // Input that started, or is gone, cannot change: exit 2, one line, nothing changes.
    for (args, says) in [
        (
            vec!["queue", "t", "edit", "1", "x"],
            "input 1 already started as turn 1",
        ),
        (vec!["queue", "t", "rm", "2"], "input 2 was withdrawn"),
        (vec!["queue", "t", "move", "9", "1"], "t has no input 9"),
        (vec!["queue", "t", "move", "4", "0"], "positions start at 1"),
        // Claude takes steers mid-turn: one handed to its CLI can no longer change.
        (
            vec!["queue", "t", "edit", "3", "y"],
            "input 3 was handed to the running turn",
        ),
    ] {
        let out = w.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // A jump interrupts the running turn (its partial output kept) and runs next.
    w.ok(&["queue", "t", "jump", "4"]);
    w.wait_for("every input to run", || all_done(&w, "t", 3));
    assert_eq!(
        turns(&w, "t"),
        owned(&[
            (1, 1, "direct", "interrupted", "first [[hold:go]]"),
            (2, 4, "jump", "completed", "c"),
            (3, 3, "steer", "completed", "b2"),
        ])
    );
}

#[test]
fn send_jump_interrupts_the_running_turn_and_runs_in_the_same_session() {
    let w = World::new();
    let (_dir, _) = held(&w);
    detach(&w, "t", "queued", &[]);
    let out = w.run(&["send", "t", "right now", "--jump"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("last_user=right now"), "{stdout}");
    w.wait_for("every input to run", || all_done(&w, "t", 3));
    let t = turns(&w, "t");
    assert_eq!(
        t.iter()
            .map(|x| (x.1, x.2.as_str(), x.3.as_str()))
            .collect::<Vec<_>>(),
        vec![
            (1, "direct", "interrupted"),
            (3, "jump", "completed"),
            (2, "queue", "completed")
        ]
    );
    let log = w.json(&["log", "t"]);
    let sessions: Vec<&Value> = log["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["session_id"])
        .collect();
    assert!(
        sessions.windows(2).all(|p| p[0] == p[1]),
        "one provider session: {sessions:?}"
    );
}

#[test]
fn a_steer_codex_cannot_take_runs_next_and_baton_says_so() {
    let w = World::new();
    // A cold exec turn (with the inbox on, a Codex turn runs on an app-server, which takes steers).
    w.exec_only();
    w.new_terminal("t", "codex");
    let client = w.spawn(&["send", "t", "long job [[hang]]"]);
    w.wait_for("the turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    detach(&w, "t", "queued", &[]);
    let steer = detach(&w, "t", "look at the tests too", &["--steer"]);
    assert_eq!(steer["mode"], "steer");
    assert_eq!(steer["position"], 1, "ahead of queued input");
    assert!(
        steer["note"]
            .as_str()
            .unwrap()
            .contains("codex exec cannot take input mid-turn: it runs next"),
        "{steer}"
    );
    w.ok(&["interrupt", "t"]);
    let _ = client.wait_with_output();
    // The interrupt held the queue.
    w.ok(&["queue", "t", "run"]);
    w.wait_for("every input to run", || all_done(&w, "t", 3));
    let t = turns(&w, "t");
    assert_eq!(
        t.iter().map(|x| (x.1, x.2.as_str())).collect::<Vec<_>>(),
        vec![(1, "direct"), (3, "steer"), (2, "queue")]
    );
}

#[test]
fn waiting_input_survives_a_kill_and_runs_once_in_order_after_the_crashed_cli_stopped() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let client = w.spawn(&["send", "t", "crashing [[hang]]"]);
    w.wait_for("the turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    for p in ["two", "three", "four"] {
        detach(&w, "t", p, &[]);
    }
    let crashed = w.last_invocation()["pid"].as_i64().unwrap() as i32;
    kill_server(&w);
    let _ = client.wait_with_output();
    // Any command starts a new server; it stops what is left and runs the queue.
    w.wait_for("every input to run", || all_done(&w, "t", 4));
    assert!(!process_runs(crashed));
    assert_eq!(
        turns(&w, "t")
            .iter()
            .map(|x| (x.1, x.3.as_str(), x.4.as_str()))
            .collect::<Vec<_>>(),
        vec![
            (1, "interrupted", "crashing [[hang]]"),
            (2, "completed", "two"),
            (3, "completed", "three"),
            (4, "completed", "four"),
        ]
    );
    // Each prompt reached a CLI exactly once.
    let prompts: Vec<String> = w.invocations().iter().map(stdin_prompt).collect();
    assert_eq!(prompts, vec!["crashing [[hang]]", "two", "three", "four"]);
}

#[test]
fn accepted_means_journalled_even_when_the_server_dies_right_after() {
    let w = World::new();
    // Cold CLIs: the kill lands before the CLI printed anything (a warm one answers at once:
    // `warm::a_kill_right_after_an_accepted_prompt_on_a_warm_cli_loses_it_never`).
    w.cold();
    w.new_terminal("t", "claude");
    for round in 1..=4u64 {
        let ack = detach(&w, "t", &format!("prompt {round}"), &[]);
        assert!(ack["input"].as_u64().unwrap() >= round);
        kill_server(&w);
        w.wait_for("the prompt to end as a turn after the restart", || {
            let t = turns(&w, "t");
            t.len() == round as usize
                && t.iter().all(|x| x.3 != "running")
                && w.show("t")["queued"] == 0
        });
    }
    // Each prompt is exactly one turn: answered, or (when the kill came after its start was
    // journalled, so it may have reached the model) interrupted and not run again.
    let t = turns(&w, "t");
    for round in 1..=4 {
        let prompt = format!("prompt {round}");
        let of: Vec<_> = t.iter().filter(|x| x.4 == prompt).collect();
        assert_eq!(of.len(), 1, "{prompt}: {t:?}");
        assert!(
            of.iter()
                .all(|x| x.3 == "completed" || x.3 == "interrupted"),
            "{t:?}"
        );
    }
    let numbers: Vec<u64> = t.iter().map(|x| x.0).collect();
    assert_eq!(
        numbers,
        (1..=t.len() as u64).collect::<Vec<_>>(),
        "never reused"
    );
}

#[test]
fn a_stop_says_how_many_inputs_wait_and_the_next_start_runs_them() {
    let w = World::new();
    let (dir, _) = held(&w);
    detach(&w, "t", "later one", &[]);
    detach(&w, "t", "later two", &[]);
    assert_eq!(w.json(&["server", "status"])["waiting_inputs"], 2);
    let out = w.ok(&["server", "stop"]);
    assert!(out.contains("2 inputs wait"), "{out}");
    release(&dir);
    w.wait_for("the waiting input to run after a restart", || {
        all_done(&w, "t", 3)
    });
    assert_eq!(
        turns(&w, "t")
            .iter()
            .map(|x| (x.1, x.3.as_str()))
            .collect::<Vec<_>>(),
        vec![(1, "interrupted"), (2, "completed"), (3, "completed")]
    );
}

#[test]
fn nothing_is_lost_or_numbered_twice_when_the_index_cannot_be_written() {
    let mut w = World::new();
    let fault = w.tmp.path().join("index-full");
    w.env
        .push(("BATON_FAULT_INDEX".into(), fault.display().to_string()));
    let (dir, _) = held(&w);
    detach(&w, "t", "second", &[]);
    // The disk fills up while turn 1 runs: its end reaches only the journal.
    std::fs::write(&fault, "").unwrap();
    release(&dir);
    let id = w.show("t")["id"].as_str().unwrap().to_string();
    let journal = w.data().join("terminals").join(&id).join("journal.jsonl");
    w.wait_for("turn 1 to end in the journal", || {
        std::fs::read_to_string(&journal).is_ok_and(|j| j.contains("turn_finished"))
    });
    // Nothing runs from an index that misses entries; the input waits, journalled.
    assert_eq!(w.invocations().len(), 1);
    let detached = detach(&w, "t", "third", &[]);
    assert_eq!(detached["input"], 3);
    std::fs::remove_file(&fault).unwrap();
    w.wait_for("every input to run", || all_done(&w, "t", 3));
    assert_eq!(
        turns(&w, "t")
            .iter()
            .map(|x| (x.0, x.1, x.3.as_str()))
            .collect::<Vec<_>>(),
        vec![
            (1, 1, "completed"),
            (2, 2, "completed"),
            (3, 3, "completed")
        ]
    );
}

#[test]
fn a_steer_joins_a_running_claude_turn_at_its_next_tool_result() {
    for version in ["2.1.332", "2.1.197"] {
        let mut w = World::new();
        w.env
            .push(("BATON_SHIM_CLAUDE_VERSION".into(), version.into()));
        let dir = w.new_terminal("t", "claude");
        let first = w.spawn(&["send", "t", "fix the bug [[calls:2]] [[hold:go]]"]);
        w.wait_for("the turn to run its tool", || {
            w.show("t")["state"] == "running" && !w.invocations().is_empty()
        });
        // A non-detached steer follows its input: it says which turn it joined.
        let steer = w.spawn(&["send", "t", "also check the tests", "--steer"]);
        w.wait_for("the steer to be accepted", || w.show("t")["queued"] == 1);
        std::fs::write(dir.join("go"), "").unwrap();
        let out = first.wait_with_output().unwrap();
        assert!(out.status.success(), "{version}: {}", text(&out));
        let answer = String::from_utf8(out.stdout).unwrap();
        assert!(
            answer.contains("last_user=also check the tests"),
            "{version}: the model saw the steer in the same turn: {answer}"
        );
        let out = steer.wait_with_output().unwrap();
        assert!(out.status.success(), "{version}: {}", text(&out));
        let said = String::from_utf8(out.stderr).unwrap();
        assert!(
            said.contains("joined the running turn 1"),
            "{version}: {said}"
        );
        assert!(!said.contains("is busy: waiting"), "{version}: {said}");
        // One turn, and the steer is no longer waiting: it ran once, inside turn 1.
        let log = w.json(&["log", "t"]);
        assert_eq!(
            log["turns"].as_array().unwrap().len(),
            1,
            "{version}: {log}"
        );
        assert!(
            log["turns"][0]["notes"]
                .to_string()
                .contains("input 2 joined this turn"),
            "{version}: {log}"
        );
        assert_eq!(w.show("t")["queued"], 0);
        w.send("t", "next");
        assert_eq!(w.json(&["log", "t"])["turns"][1]["input"], 3);
    }
}

#[test]
fn a_send_made_as_soon_as_the_last_one_returned_is_not_queued_behind_it() {
    let w = World::new();
    for provider in ["claude", "codex"] {
        w.new_terminal(provider, provider);
        // Each send starts the moment the one before returned: that turn's input was released
        // before its reply, so the terminal is idle by then (its CLI may still be exiting, and
        // the end's syncs may still run, neither of which is a turn to wait for).
        for i in 0..16 {
            let (_, err) = w.send(provider, &format!("turn {i}"));
            assert!(!err.contains("is busy"), "{provider} turn {i}: {err}");
        }
    }
}
