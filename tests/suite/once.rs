//! One accepted prompt, one turn, under every crash of the server: a start the journal lacks
//! never reached a CLI (its input waits, under its number); a journalled one may have reached
//! the model (one interrupted turn, run again only by `baton queue NAME retry`); a crash during
//! the recovery itself, any number of times, multiplies nothing. Both providers, cold and warm.

use super::common::*;
use super::queue::{all_done, detach, turns};
use serde_json::Value;

/// Terminal t's turns as (number, input, status, prompt).
fn ran(w: &World) -> Vec<(u64, u64, String, String)> {
    turns(w, "t")
        .into_iter()
        .map(|t| (t.0, t.1, t.3, t.4))
        .collect()
}

fn owned(v: &[(u64, u64, &str, &str)]) -> Vec<(u64, u64, String, String)> {
    v.iter()
        .map(|(n, i, s, p)| (*n, *i, s.to_string(), p.to_string()))
        .collect()
}

/// The prompts the CLIs were given, in order.
fn given(w: &World) -> Vec<String> {
    w.invocations().iter().map(stdin_prompt).collect()
}

/// Waits until no server answers (it died at its crash point).
fn server_died(w: &World) {
    w.wait_for("the server to die at its crash point", || {
        w.run(&["server", "status"]).status.code() != Some(0)
    });
}

/// A `provider` terminal whose server dies at `point` of the turn of `prompt` (sent detached),
/// after `before` ran (a warm CLI took it: the crash comes at the next turn's `point`).
fn crashed_at(provider: &str, point: &str, before: Option<&str>) -> World {
    let mut w = World::new();
    w.new_terminal("t", provider);
    w.ok(&["server", "stop"]);
    let at = match before {
        Some(_) => format!("{point}@2"),
        None => point.to_string(),
    };
    w.env.push(("BATON_CRASH_AT".into(), at));
    if let Some(first) = before {
        w.send("t", first);
        w.wait_for("the CLI to be warm", || {
            let warm = w.json(&["server", "status"])["warm"].clone();
            warm.as_array().is_some_and(|a| !a.is_empty())
        });
    }
    let _ = w.run(&["send", "t", "cut", "--detach"]);
    server_died(&w);
    w.env.clear();
    w
}

/// What `ls --json` and `show --json` say of terminal t's turns: (the count, the last turn's
/// number and status).
fn listed(w: &World) -> Vec<(Value, Value, Value)> {
    let ls = w.json(&["ls"]);
    let row = ls
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "t")
        .unwrap()
        .clone();
    let show = w.show("t");
    [row, show]
        .iter()
        .map(|v| {
            let last = &v["last_turn"];
            (
                v["turns"].clone(),
                last["number"].clone(),
                last["status"].clone(),
            )
        })
        .collect()
}

/// Whether terminal t's journal holds a `turn_voided` line.
fn voided(w: &World) -> bool {
    let Ok(dirs) = std::fs::read_dir(w.data().join("terminals")) else {
        return false;
    };
    dirs.flatten().any(|d| {
        std::fs::read_to_string(d.path().join("journal.jsonl"))
            .is_ok_and(|j| j.contains("\"type\":\"turn_voided\""))
    })
}

#[test]
fn a_start_whose_prompt_never_went_out_leaves_its_input_waiting_under_its_number_and_runs_it_once()
{
    for provider in ["claude", "codex"] {
        // `turn-starting`: the CLI started (cold) or was taken (warm), its start not journalled;
        // `turn-started`: the start journalled and synced, its prompt not marked as going out
        // (the gate shut). Either way the prompt was never given to it.
        for point in ["turn-starting", "turn-started"] {
            for before in [None, Some("warm up")] {
                let w = crashed_at(provider, point, before);
                let case = format!("{provider} {point} {before:?}");
                let cut_input = if before.is_some() { 2 } else { 1 };
                w.ok(&["server", "start"]);
                let n = 1 + usize::from(before.is_some());
                w.wait_for("the input to run", || all_done(&w, "t", n));
                let mut want = vec![];
                if let Some(first) = before {
                    want.push((1, 1, "completed", first));
                }
                want.push((n as u64, cut_input, "completed", "cut"));
                assert_eq!(ran(&w), owned(&want), "{case}");
                let mut prompts: Vec<&str> = before.into_iter().collect();
                prompts.push("cut");
                assert_eq!(given(&w), prompts, "{case}");
                // No trace of the attempt: its number was not spent, and nothing lists it.
                let last = (Value::from(n), Value::from(n), Value::from("completed"));
                assert_eq!(listed(&w), vec![last.clone(), last], "{case}");
                assert_eq!(voided(&w), point == "turn-started", "{case}");
            }
        }
    }
}

#[test]
fn a_cli_started_ahead_of_its_turn_whose_prompt_never_went_out_runs_it_once() {
    // (crash point, how the cut turn ends, the prompts the CLIs were given after "open")
    for (point, status, prompts) in [
        ("turn-started", "completed", vec!["open", "cut"]),
        ("turn-prompted", "interrupted", vec!["open"]),
    ] {
        let mut w = World::new();
        w.new_terminal("t", "claude");
        w.send("t", "open");
        // No warm CLI after a stop: the next plain send starts its CLI as it arrives.
        w.ok(&["server", "stop"]);
        w.env.push(("BATON_CRASH_AT".into(), point.into()));
        let _ = w.run(&["send", "t", "cut", "--detach"]);
        server_died(&w);
        w.env.clear();
        w.ok(&["server", "start"]);
        w.wait_for("the cut input to be settled", || all_done(&w, "t", 2));
        let want = [(1, 1, "completed", "open"), (2, 2, status, "cut")];
        assert_eq!(ran(&w), owned(&want), "{point}");
        assert_eq!(given(&w), prompts, "{point}");
        assert_eq!(voided(&w), point == "turn-started", "{point}");
    }
}

/// The log's turns once every input ran, after a crash that cut `cut` as one interrupted turn:
/// `next` was sent after it and ran, and the crash's error names the retry.
fn cut_once(w: &World, provider: &str, cut: &str, before: Option<&str>) {
    let first = u64::from(before.is_some());
    detach(w, "t", "next", &[]);
    w.wait_for("every input to run", || {
        all_done(w, "t", 2 + first as usize)
    });
    let mut want = vec![];
    if let Some(p) = before {
        want.push((1, 1, "completed", p));
    }
    want.push((1 + first, 1 + first, "interrupted", cut));
    want.push((2 + first, 2 + first, "completed", "next"));
    assert_eq!(ran(w), owned(&want), "{provider} {before:?}");
    let log = w.json(&["log", "t"]);
    let error = log["turns"][first as usize]["error"].as_str().unwrap();
    assert!(
        error.contains("the baton server stopped") && error.contains("`baton queue t retry`"),
        "{provider}: {error}"
    );
    assert!(!voided(w), "{provider} {before:?}");
}

#[test]
fn a_start_marked_as_prompting_is_one_interrupted_turn_run_again_only_when_asked() {
    for provider in ["claude", "codex"] {
        for before in [None, Some("warm up")] {
            // Marked (`turn_prompted`), and the gate opens right after: the prompt may have
            // reached the model.
            let w = crashed_at(provider, "turn-prompted", before);
            let first = u64::from(before.is_some());
            cut_once(&w, provider, "cut", before);
            let mut prompts: Vec<&str> = before.into_iter().collect();
            prompts.push("next");
            assert_eq!(given(&w), prompts, "{provider}: not run again by itself");
            // Asked: it runs once more, and cannot be put back twice.
            w.ok(&["queue", "t", "retry"]);
            w.wait_for("the retried prompt to run", || {
                all_done(&w, "t", 3 + first as usize)
            });
            let last = ran(&w).pop().unwrap();
            assert_eq!(
                (last.0, last.2.as_str(), last.3.as_str()),
                (3 + first, "completed", "cut")
            );
            prompts.push("cut");
            assert_eq!(given(&w), prompts, "{provider} {before:?}");
            refused(
                &w,
                &["queue", "t", "retry"],
                "no turn a crash of the server cut short",
            );
        }
    }
}

#[test]
fn a_server_killed_after_its_cli_read_the_prompt_leaves_one_interrupted_turn_not_run_again() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    const CUT: &str = "cut [[hang]]";
    for provider in ["claude", "codex"] {
        for before in [None, Some("warm up")] {
            let w = World::new();
            w.new_terminal("t", provider);
            if let Some(first) = before {
                w.send("t", first);
                warm_pid(&w);
            }
            detach(&w, "t", CUT, &[]);
            w.wait_for("the CLI to read the prompt", || {
                given(&w).last().is_some_and(|p| p == CUT)
            });
            let server = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
            kill(Pid::from_raw(server), Signal::SIGKILL).unwrap();
            w.wait_for("the server to be gone", || !process_runs(server));
            cut_once(&w, provider, CUT, before);
            let mut prompts: Vec<&str> = before.into_iter().collect();
            prompts.extend([CUT, "next"]);
            assert_eq!(given(&w), prompts, "{provider} {before:?}: not run again");
        }
    }
}

#[test]
fn a_crash_during_recovery_again_and_again_never_multiplies_a_prompt() {
    for provider in ["claude", "codex"] {
        // Voided (never went out: runs once) or marked (one interrupted turn, never rerun).
        for (point, status, prompts) in [
            ("turn-started", "completed", vec!["cut"]),
            ("turn-prompted", "interrupted", vec![]),
        ] {
            let mut w = crashed_at(provider, point, None);
            // Every start dies while it closes (or voids) the cut turn.
            w.env.push(("BATON_CRASH_AT".into(), "recovering".into()));
            for _ in 0..3 {
                let _ = w.run(&["server", "start"]);
                server_died(&w);
            }
            w.env.clear();
            w.ok(&["server", "start"]);
            w.wait_for("the cut turn to be closed", || all_done(&w, "t", 1));
            let case = format!("{provider} {point}");
            assert_eq!(ran(&w), owned(&[(1, 1, status, "cut")]), "{case}");
            assert_eq!(w.json(&["queue", "t"]), serde_json::json!([]), "{case}");
            assert_eq!(given(&w), prompts, "{case}");
        }
    }
}

/// The pid of terminal t's warm CLI, once there is one.
fn warm_pid(w: &World) -> i32 {
    let mut pid = None;
    w.wait_for("the CLI to be warm", || {
        pid = w.json(&["server", "status"])["warm"]
            .as_array()
            .and_then(|a| a.first())
            .and_then(|c| c["pid"].as_i64());
        pid.is_some()
    });
    pid.unwrap() as i32
}

#[test]
fn a_warm_cli_killed_between_turns_is_replaced_by_a_cold_one_and_the_turn_runs_once() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    for provider in ["claude", "codex"] {
        let mut w = World::new();
        let gate = w.home().join("release");
        w.env.push((
            "BATON_STALL_AT".into(),
            format!("warm-taken:{}", gate.display()),
        ));
        w.new_terminal("t", provider);
        w.send("t", "one");
        let pid = warm_pid(&w);
        // The next turn has taken the warm CLI (it looked alive); it dies before the prompt.
        let send = w.spawn(&["send", "t", "two"]);
        let reached = w.home().join("release.reached.1");
        w.wait_for("the turn to take the warm CLI", || reached.exists());
        kill(Pid::from_raw(pid), Signal::SIGKILL).unwrap();
        w.wait_for("the warm CLI to be gone", || !process_runs(pid));
        std::fs::write(&gate, "").unwrap();
        let out = send.wait_with_output().unwrap();
        let log = std::fs::read_to_string(w.data().join("server.log")).unwrap_or_default();
        assert!(out.status.success(), "{provider}: {}\n{log}", text(&out));
        let want = [(1, 1, "completed", "one"), (2, 2, "completed", "two")];
        assert_eq!(ran(&w), owned(&want), "{provider}");
        assert_eq!(given(&w), ["one", "two"], "{provider}");
    }
}

#[test]
fn a_cli_dies_with_its_server_and_warden_killed_together() {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    for provider in ["claude", "codex"] {
        let w = World::new();
        w.new_terminal("t", provider);
        detach(&w, "t", "orphan [[hang]]", &[]);
        w.wait_for("the hanging turn's CLI", || {
            w.invocations()
                .last()
                .is_some_and(|i| stdin_prompt(i) == "orphan [[hang]]")
        });
        let cli = w.last_invocation()["pid"].as_i64().unwrap() as i32;
        let status = w.json(&["server", "status"]);
        let server = status["pid"].as_i64().unwrap() as i32;
        let warden = status["warden_pid"].as_i64().unwrap() as i32;
        // Nothing is left to tell the CLI: only the kernel can.
        for pid in [warden, server] {
            kill(Pid::from_raw(pid), Signal::SIGKILL).unwrap();
        }
        w.wait_for("the CLI to die with them", || !process_runs(cli));
    }
}

/// The (start, end) of each simulated Claude CLI that resumed a session, by that session, from
/// the shims' life log (a process with no exit line ran until `now`).
fn lives(path: &std::path::Path) -> std::collections::BTreeMap<String, Vec<(u64, u64)>> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let recs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out: std::collections::BTreeMap<String, Vec<(u64, u64)>> = Default::default();
    for start in recs.iter().filter(|r| r["life"] == "start") {
        let Some(session) = start["resume"].as_str() else {
            continue;
        };
        let end = recs
            .iter()
            .find(|r| r["life"] == "exit" && r["pid"] == start["pid"])
            .map_or(u64::MAX, |r| r["t"].as_u64().unwrap());
        let begun = start["t"].as_u64().unwrap();
        out.entry(session.to_string())
            .or_default()
            .push((begun, end));
    }
    out
}

/// No two CLIs in `life`'s log resumed one session at the same time.
fn one_cli_per_session(life: &std::path::Path) {
    for (session, mut spans) in lives(life) {
        spans.sort();
        for pair in spans.windows(2) {
            assert!(
                pair[0].1 <= pair[1].0,
                "two CLIs resumed {session} at once: {pair:?}"
            );
        }
    }
}

/// A cold claude terminal `t` (each resumed turn's CLI is started as its send arrives:
/// `prestart`) with one turn done, its shims logging their lives; (the world, that log).
fn one_turn_opened() -> (World, std::path::PathBuf) {
    let mut w = World::new();
    let life = w.home().join("life.jsonl");
    w.env
        .push(("BATON_SHIM_LIFE".into(), life.display().to_string()));
    w.cold();
    w.new_terminal("t", "claude");
    w.send("t", "open");
    (w, life)
}

#[test]
fn a_send_while_another_starts_its_cli_ahead_starts_none_of_its_own() {
    // Fault 9, at a chosen point: the first send's CLI is started ahead of its turn and held
    // before it is put in its slot; a second send gets to the start meanwhile.
    let (mut w, life) = one_turn_opened();
    w.ok(&["server", "stop"]);
    let gate = w.home().join("gate");
    w.env.push((
        "BATON_STALL_AT".into(),
        format!("prestart:{}", gate.display()),
    ));
    let first = w.spawn(&["send", "t", "two", "--detach"]);
    let mark = |what: &str| std::path::PathBuf::from(format!("{}.{what}", gate.display()));
    w.wait_for("the first CLI to be held", || mark("reached.1").exists());
    let second = w.spawn(&["send", "t", "three", "--detach"]);
    // It waits for the first to put its CLI in the slot (or, were it not held, starts a CLI of
    // its own and is held at the same point).
    w.wait_for("the second send to get to the start", || {
        mark("waiting.1").exists() || mark("reached.2").exists()
    });
    std::fs::write(&gate, "").unwrap();
    for child in [first, second] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    w.wait_for("three turns", || all_done(&w, "t", 3));
    w.ok(&["server", "stop"]);
    one_cli_per_session(&life);
    // Not even one started and dropped at once (it would hold the session's files open
    // beside the turn's CLI): one CLI per resumed turn.
    let started: Vec<usize> = lives(&life).values().map(Vec::len).collect();
    assert_eq!(started, [2], "CLIs that resumed the session: {started:?}");
}

#[test]
fn concurrent_sends_never_run_two_clis_on_one_session() {
    let (w, life) = one_turn_opened();
    let (clients, each) = (4, 6);
    std::thread::scope(|s| {
        for c in 0..clients {
            let w = &w;
            s.spawn(move || {
                for i in 0..each {
                    let out = w.run(&["send", "t", &format!("c{c} p{i}")]);
                    assert!(out.status.success(), "{}", text(&out));
                }
            });
        }
    });
    assert!(all_done(&w, "t", 1 + clients * each));
    w.ok(&["server", "stop"]);
    one_cli_per_session(&life);
}
