//! Faults the other suites do not reach: a CLI killed with SIGKILL mid-turn (alone, and with
//! its server), the server dead at chosen points of a turn (`BATON_CRASH_AT`), a data
//! directory whose disk fills, and many clients sending into many terminals at once.

use std::collections::BTreeMap;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::common::*;
use super::queue::{all_done, detach, turns};

fn sigkill(pid: i32) {
    kill(Pid::from_raw(pid), Signal::SIGKILL).unwrap();
}

/// Starts `prompt` (which hangs after streaming a partial answer) with `queued` waiting behind
/// it; returns the running CLI's pid once the partial answer is on disk.
fn hanging_turn_with_a_queue(w: &World, prompt: &str, queued: &[&str]) -> i32 {
    detach(w, "t", prompt, &[]);
    let id = w.show("t")["id"].as_str().unwrap().to_string();
    let turns_dir = w.data().join("terminals").join(&id).join("turns");
    w.wait_for("the partial answer to stream", || {
        read_dir_files(&turns_dir).iter().any(|f| {
            std::fs::read_to_string(f).is_ok_and(|t| t.contains("MOCK-PARTIAL before hang"))
        })
    });
    for q in queued {
        detach(w, "t", q, &[]);
    }
    w.last_invocation()["pid"].as_i64().unwrap() as i32
}

/// A `provider` terminal whose turn `prompt` hangs, "two" and "three" waiting behind it;
/// returns the world and the running CLI's pid.
fn hanging(provider: &str, prompt: &str) -> (World, i32) {
    let w = World::new();
    w.new_terminal("t", provider);
    let cli = hanging_turn_with_a_queue(&w, prompt, &["two", "three"]);
    (w, cli)
}

/// Terminal t's turns as (number, status, prompt).
fn statuses(w: &World) -> Vec<(u64, String, String)> {
    turns(w, "t").into_iter().map(|t| (t.0, t.3, t.4)).collect()
}

fn owned(v: &[(u64, &str, &str)]) -> Vec<(u64, String, String)> {
    v.iter()
        .map(|(n, s, p)| (*n, s.to_string(), p.to_string()))
        .collect()
}

/// Each prompt reached a CLI exactly once, in this order.
fn ran_once_each(w: &World, prompts: &[&str]) {
    let ran: Vec<String> = w.invocations().iter().map(stdin_prompt).collect();
    assert_eq!(ran, prompts);
}

/// The first turn's answer holds what streamed before the kill.
fn kept_the_partial(w: &World) {
    let first = &w.json(&["log", "t"])["turns"][0];
    let answer = first["answer"].as_str().unwrap();
    assert!(answer.contains("MOCK-PARTIAL before hang"), "{first}");
}

#[test]
fn a_cli_killed_mid_turn_fails_its_turn_saying_so_and_the_queue_runs_on() {
    for provider in ["claude", "codex"] {
        let (w, cli) = hanging(provider, "killed [[hang]]");
        sigkill(cli);
        w.wait_for("every input to run", || all_done(&w, "t", 3));
        let first = &w.json(&["log", "t"])["turns"][0];
        let error = first["error"].as_str().unwrap();
        assert!(
            error.contains("signal 9") || error.contains("SIGKILL"),
            "{provider}: {error}"
        );
        kept_the_partial(&w);
        let expected = [
            (1, "failed", "killed [[hang]]"),
            (2, "completed", "two"),
            (3, "completed", "three"),
        ];
        assert_eq!(statuses(&w), owned(&expected), "{provider}");
        ran_once_each(&w, &["killed [[hang]]", "two", "three"]);
    }
}

#[test]
fn a_cli_and_its_server_killed_together_mid_turn_lose_nothing_acknowledged() {
    for provider in ["claude", "codex"] {
        // Deaf: it would outlive its server, so both are killed by hand, server first.
        let (w, cli) = hanging(provider, "both [[hang]] [[deaf]]");
        kill_server(&w);
        sigkill(cli);
        w.wait_for("the CLI to be gone", || !process_runs(cli));
        w.wait_for("every input to run", || all_done(&w, "t", 3));
        let expected = [
            (1, "interrupted", "both [[hang]] [[deaf]]"),
            (2, "completed", "two"),
            (3, "completed", "three"),
        ];
        assert_eq!(statuses(&w), owned(&expected), "{provider}");
        kept_the_partial(&w);
        ran_once_each(&w, &["both [[hang]] [[deaf]]", "two", "three"]);
    }
}

/// The server's warden (`baton server warden`, its child): its pid, as `server status` says.
fn warden(w: &World) -> i32 {
    let pid = w.json(&["server", "status"])["warden_pid"]
        .as_i64()
        .unwrap() as i32;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    assert!(cmdline.ends_with(b"server\0warden\0"), "{cmdline:?}");
    pid
}

#[test]
fn a_cli_whose_server_is_killed_is_interrupted_at_once_by_the_warden_even_a_restarted_one() {
    for provider in ["claude", "codex"] {
        let (w, cli) = hanging(provider, "orphaned [[hang]]");
        let server = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
        // A warden killed by hand is started again at the next CLI start, and told of every
        // CLI still running.
        let first = warden(&w);
        sigkill(first);
        w.wait_for("the first warden to be gone", || !process_runs(first));
        kill(Pid::from_raw(cli), Signal::SIGTERM).unwrap();
        w.wait_for("the next turn to run", || {
            turns(&w, "t").iter().any(|x| x.4 == "two")
        });
        let again = warden(&w);
        assert_ne!(again, first);
        w.wait_for("every input to run", || all_done(&w, "t", 3));
        detach(&w, "t", "orphaned again [[hang]]", &[]);
        w.wait_for("the hanging turn's CLI", || {
            stdin_prompt(&w.last_invocation()) == "orphaned again [[hang]]"
        });
        let cli = w.last_invocation()["pid"].as_i64().unwrap() as i32;
        // No baton command runs from here on: nothing but the warden can stop this CLI.
        sigkill(server);
        w.wait_for("the CLI to be interrupted", || !process_runs(cli));
        w.wait_for("the warden to end", || !process_runs(again));
        w.wait_for("the turn recorded after a restart", || all_done(&w, "t", 4));
        let last = &turns(&w, "t")[3];
        assert_eq!(
            (last.3.as_str(), last.4.as_str()),
            ("interrupted", "orphaned again [[hang]]"),
            "{provider}"
        );
    }
}

#[test]
fn a_server_started_with_sigint_ignored_gives_its_clis_sigint_and_sigterm_that_work() {
    use std::os::unix::process::CommandExt;
    let w = World::new();
    w.new_terminal("t", "claude");
    w.ok(&["server", "stop"]);
    // As `nohup` or `cmd &` in a script leave them: both ignored in the server it starts.
    let mut start = w.cmd(&["server", "start"]);
    // SAFETY: between fork and exec this only sets two signals to be ignored.
    unsafe {
        start.pre_exec(|| {
            use nix::sys::signal::{signal, SigHandler};
            for sig in [Signal::SIGINT, Signal::SIGTERM] {
                signal(sig, SigHandler::SigIgn).map_err(std::io::Error::from)?;
            }
            Ok(())
        });
    }
    assert!(start.status().unwrap().success());
    w.send("t", "hello");
    let ignored = w.last_invocation()["sig_ignored"].as_u64().unwrap();
    let (int, term) = (
        1u64 << (Signal::SIGINT as u64 - 1),
        1u64 << (Signal::SIGTERM as u64 - 1),
    );
    assert_eq!(
        ignored & (int | term),
        0,
        "the CLI started with {ignored:#x} ignored"
    );
}

/// Waits until no server answers (it died at its crash point).
fn server_died(w: &World) {
    w.wait_for("the server to die at its crash point", || {
        w.run(&["server", "status"]).status.code() != Some(0)
    });
}

#[test]
fn a_server_dead_once_a_turn_prompt_is_marked_as_going_out_keeps_one_interrupted_turn() {
    for provider in ["claude", "codex"] {
        let mut w = World::new();
        w.new_terminal("t", provider);
        w.ok(&["server", "stop"]);
        // The server this send starts dies once the turn's start is synced and its prompt
        // marked as going out, right before the gate opens: from the journal, the prompt may
        // have reached the CLI.
        w.env
            .push(("BATON_CRASH_AT".into(), "turn-prompted".into()));
        let _ = w.run(&["send", "t", "first", "--detach"]);
        server_died(&w);
        w.env.clear();
        // The start was journalled with its CLI's pid, in one write (the next start finds that
        // CLI by it), then the mark.
        let id = w.show("t")["id"].as_str().unwrap().to_string();
        let types = journal_types(&w, &id);
        let started = types.iter().position(|k| k == "turn_started").unwrap();
        assert_eq!(
            types.get(started + 1..started + 3),
            Some(&["turn_process".to_string(), "turn_prompted".to_string()][..]),
            "{provider}: {types:?}"
        );
        detach(&w, "t", "second", &[]);
        w.wait_for("every input to run", || all_done(&w, "t", 2));
        let expected = [(1, "interrupted", "first"), (2, "completed", "second")];
        // The cut turn is kept as one turn; its prompt may have reached the model, so it does
        // not run again by itself (`baton queue t retry` would put it back).
        assert_eq!(statuses(&w), owned(&expected), "{provider}");
        ran_once_each(&w, &["second"]);
    }
}

/// The pids of this world's simulated Claude CLIs still running.
fn clis_of(w: &World) -> Vec<u32> {
    let log = format!("BATON_SHIM_LOG={}", w.shim_log().display());
    processes_with(&log, |_, words| words.contains("shims/claude"))
}

#[test]
fn a_server_dead_once_a_cli_started_ahead_of_the_input_loses_nothing_and_that_cli_runs_nothing() {
    let mut w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "first");
    w.ok(&["server", "stop"]);
    // A resumed turn's CLI starts as the send arrives; the server dies right after, before
    // the input is journalled: nothing was accepted, and the CLI never gets a prompt.
    w.env
        .push(("BATON_CRASH_AT".into(), "cli-prestarted".into()));
    let out = w.run(&["send", "t", "second"]);
    assert!(!out.status.success(), "{}", text(&out));
    server_died(&w);
    w.wait_for("the CLI started for it to exit", || clis_of(&w).is_empty());
    w.env.clear();
    assert_eq!(
        w.json(&["queue", "t"]),
        serde_json::json!([]),
        "nothing waits"
    );
    ran_once_each(&w, &["first"]);
    w.send("t", "third");
    let expected = [(1, "completed", "first"), (2, "completed", "third")];
    assert_eq!(statuses(&w), owned(&expected));
    ran_once_each(&w, &["first", "third"]);
    let last = w.last_invocation();
    assert!(
        last["argv"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--resume"),
        "the session carried on: {last}"
    );
}

fn first_prompt(provider: &str) -> &'static str {
    if provider == "claude" {
        "first [[hold:go]]"
    } else {
        "first"
    }
}

#[test]
fn a_server_dead_after_its_cli_finished_keeps_the_turn_as_the_cli_ended_it_and_never_reruns_the_prompt(
) {
    for provider in ["claude", "codex"] {
        let mut w = World::new();
        let dir = w.new_terminal("t", provider);
        w.ok(&["server", "stop"]);
        // The server dies once the CLI has exited, before the turn's end is journalled. The
        // Claude shim can hold its turn, so `second` waits behind it; Codex's comes after.
        w.env.push(("BATON_CRASH_AT".into(), "turn-ran".into()));
        let held = provider == "claude";
        detach(&w, "t", first_prompt(provider), &[]);
        if held {
            w.wait_for("the turn to run", || !w.invocations().is_empty());
            detach(&w, "t", "second", &[]);
            std::fs::write(dir.join("go"), "").unwrap();
        }
        server_died(&w);
        w.env.clear();
        if !held {
            detach(&w, "t", "second", &[]);
        }
        w.wait_for("every input to run", || all_done(&w, "t", 2));
        let log = w.json(&["log", "t"]);
        let first = &log["turns"][0];
        assert_eq!(first["prompt"], first_prompt(provider));
        // The CLI got to its result and exited: the turn is what the CLI made of it.
        assert_eq!(first["status"], "completed", "{provider}: {first}");
        assert!(
            first["notes"]
                .to_string()
                .contains("read back from the CLI's stream"),
            "{provider}: the turn says how its end was recorded: {first}"
        );
        assert!(
            first["context"]["tokens"].as_u64().is_some(),
            "{provider}: the context is read back too: {first}"
        );
        assert!(
            first["answer"].as_str().unwrap().contains("MOCK-REPLY"),
            "{provider}: the whole answer streamed before the crash is kept: {first}"
        );
        assert_eq!(log["turns"][1]["prompt"], "second");
        assert_eq!(log["turns"][1]["status"], "completed");
        ran_once_each(&w, &[first_prompt(provider), "second"]);
    }
}

#[test]
fn a_server_dead_right_after_replying_keeps_the_turn_and_its_commit_as_replied() {
    for provider in ["claude", "codex"] {
        let mut w = World::new();
        w.new_repo_terminal("t", "repo", provider);
        w.ok(&["server", "stop"]);
        // The turn's end is written before its reply and synced after it: the server dies in
        // between, its client already told the turn completed.
        w.env.push(("BATON_CRASH_AT".into(), "turn-replied".into()));
        let (_, err) = w.send("t", "add a file [[write:added.txt]]");
        assert!(err.contains("completed"), "{provider}: {err}");
        server_died(&w);
        w.env.clear();
        let turn = &w.json(&["log", "t"])["turns"][0];
        assert_eq!(turn["status"], "completed", "{provider}: {turn}");
        assert!(turn["commit"].is_string(), "{provider}: {turn}");
        assert!(
            !turn["notes"].to_string().contains("read back"),
            "{provider}: the end is the one the server recorded, not read back: {turn}"
        );
        assert!(turn["answer"].as_str().unwrap().contains("MOCK-REPLY"));
    }
}

#[test]
fn a_recovered_turn_shows_its_tool_targets_relative_to_the_checkout() {
    for provider in ["claude", "codex"] {
        let mut w = World::new();
        w.new_terminal("t", provider);
        w.ok(&["server", "stop"]);
        w.env.push(("BATON_CRASH_AT".into(), "turn-ran".into()));
        detach(&w, "t", "edit [[tool:Edit:src/a.rs]]", &[]);
        server_died(&w);
        w.env.clear();
        w.wait_for("the turn to be recovered", || all_done(&w, "t", 1));
        let log = w.json(&["log", "t"]);
        assert_eq!(
            log["turns"][0]["tools"],
            serde_json::json!(["Edit src/a.rs"]),
            "{provider}: {}",
            log["turns"][0]
        );
    }
}

// 48 turns, eight in a row on each terminal: enough for the races (every client's sends
// interleave on every terminal) in a few seconds on a shared two-core CI runner.
const CLIENTS: usize = 4;
const TERMINALS: usize = 6;
const PROMPTS: usize = 2;

/// The `type`s of the journal lines of the terminal with id `id`, in order (read straight from
/// the file: polling this costs no process).
fn journal_types(w: &World, id: &str) -> Vec<String> {
    let journal = w.data().join("terminals").join(id).join("journal.jsonl");
    std::fs::read_to_string(journal)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn many_clients_sending_into_many_terminals_at_once_run_each_prompt_once_in_order() {
    let w = World::new();
    let names: Vec<String> = (0..TERMINALS).map(|t| format!("t{t}")).collect();
    for (i, name) in names.iter().enumerate() {
        w.new_terminal(name, if i % 2 == 0 { "claude" } else { "codex" });
    }
    // Every client sends its prompts into every terminal, in order, all at the same time.
    std::thread::scope(|s| {
        for c in 0..CLIENTS {
            let (w, names) = (&w, &names);
            s.spawn(move || {
                for k in 0..PROMPTS {
                    for name in names {
                        detach(w, name, &format!("c{c} p{k} {name}"), &[]);
                    }
                }
            });
        }
    });
    let per_terminal = CLIENTS * PROMPTS;
    let ids: Vec<String> = names
        .iter()
        .map(|n| w.show(n)["id"].as_str().unwrap().to_string())
        .collect();
    w.wait_for("every turn to finish", || {
        ids.iter().all(|id| {
            journal_types(&w, id)
                .iter()
                .filter(|k| *k == "turn_finished")
                .count()
                == per_terminal
        })
    });
    for (name, id) in names.iter().zip(&ids) {
        assert!(all_done(&w, name, per_terminal), "{name}");
        let t = turns(&w, name);
        let numbers: Vec<u64> = t.iter().map(|x| x.0).collect();
        assert_eq!(
            numbers,
            (1..=per_terminal as u64).collect::<Vec<_>>(),
            "{name}"
        );
        assert!(t.iter().all(|x| x.3 == "completed"), "{name}: {t:?}");
        // Each client's prompts ran once each, in the order it sent them.
        for c in 0..CLIENTS {
            let mine: Vec<&str> = t
                .iter()
                .map(|x| x.4.as_str())
                .filter(|p| p.starts_with(&format!("c{c} ")))
                .collect();
            let sent: Vec<String> = (0..PROMPTS).map(|k| format!("c{c} p{k} {name}")).collect();
            assert_eq!(mine, sent, "{name}");
        }
        // One at a time: each turn's end is journalled before the next one starts.
        let starts_and_ends: Vec<String> = journal_types(&w, id)
            .into_iter()
            .filter(|k| k == "turn_started" || k == "turn_finished")
            .collect();
        let alternating: Vec<String> = ["turn_started", "turn_finished"]
            .iter()
            .cycle()
            .take(2 * per_terminal)
            .map(|k| k.to_string())
            .collect();
        assert_eq!(starts_and_ends, alternating, "{name}");
    }
    // No prompt reached a CLI twice.
    let mut ran: BTreeMap<String, usize> = BTreeMap::new();
    for inv in w.invocations() {
        *ran.entry(stdin_prompt(&inv)).or_default() += 1;
    }
    assert_eq!(ran.len(), CLIENTS * TERMINALS * PROMPTS);
    assert!(ran.values().all(|n| *n == 1), "{ran:?}");
}

/// The stderr lines a running send prints up to its note that it waits (or up to its exit):
/// read on a thread, so a send that says nothing fails the test after 30 s instead of hanging.
fn first_stderr_lines(child: &mut std::process::Child) -> Vec<String> {
    use std::io::BufRead;
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let waits = line.contains("is kept and waits");
            if tx.send(line).is_err() || waits {
                return;
            }
        }
    });
    let mut lines = Vec::new();
    loop {
        match rx.recv_timeout(std::time::Duration::from_secs(30)) {
            Ok(line) => lines.push(line),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return lines,
            Err(e) => panic!("the send said nothing of why it waits ({e}): {lines:?}"),
        }
    }
}

/// A small tmpfs mounted over a world's data directory, for a disk that fills. Unmounted on
/// drop, once the world's server is stopped.
struct SmallDisk<'a> {
    w: &'a World,
}

impl SmallDisk<'_> {
    /// None (and says why) when this process may not mount: not root, or a sandbox refuses.
    fn mount<'a>(w: &'a World, size: &str) -> Option<SmallDisk<'a>> {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: mounting a small tmpfs needs root");
            return None;
        }
        let data = w.data();
        let out = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(&data)
            .output()
            .unwrap();
        if !out.status.success() {
            eprintln!(
                "skipped: mount refused: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        Some(SmallDisk { w })
    }

    /// Writes a file until the disk is full; returns it.
    fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let filler = self.w.data().join("filler");
        let mut f = std::fs::File::create(&filler).unwrap();
        let chunk = vec![0u8; 64 * 1024];
        loop {
            match f.write(&chunk) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(nix::libc::ENOSPC) => break,
                Err(e) => panic!("filling the disk: {e}"),
            }
        }
        // The last partial page too.
        while f.write(&[0u8]).is_ok_and(|n| n == 1) {}
        filler
    }
}

impl Drop for SmallDisk<'_> {
    fn drop(&mut self) {
        let _ = self.w.run(&["server", "stop"]);
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.w.data())
            .status();
    }
}

#[test]
fn a_full_disk_refuses_a_send_loses_nothing_acknowledged_and_baton_works_once_space_is_freed() {
    let w = World::new();
    let Some(disk) = SmallDisk::mount(&w, "4m") else {
        return;
    };
    w.new_terminal("t", "claude");
    w.send("t", "before the disk filled");
    let before = turns(&w, "t");
    let filler = disk.fill();
    // A line that fits the slack of the journal's last page is journalled, so accepted, even
    // though the index cannot take it: it waits for space, and the server keeps answering
    // (every connection once closed unanswered: the index's log line panicked on the full disk).
    let small = w.run(&["send", "t", "small while full", "--detach"]);
    let status = w.run(&["server", "status"]);
    assert!(status.status.success());
    // A send that waits for space is told so as it is accepted (a foreground one once waited
    // in silence until space was freed, and looked hung).
    let mut waiting = None;
    if small.status.success() {
        let told = String::from_utf8_lossy(&small.stderr);
        assert!(told.contains("input 2 is kept and waits"), "{told}");
        // It waits for space, and `show`, `ls` and `server status` say why nothing runs.
        assert_eq!(w.show("t")["index_behind"], true);
        let status = String::from_utf8_lossy(&status.stdout).into_owned();
        for said in [status, w.ok(&["ls"])] {
            assert!(said.contains("the index is behind the journals"), "{said}");
        }
        let mut fg = w.spawn(&["send", "t", "foreground while full"]);
        let said = first_stderr_lines(&mut fg);
        if said.iter().any(|l| l.contains("is kept and waits")) {
            waiting = Some(fg);
        } else {
            let out = fg.wait_with_output().unwrap();
            let all = format!("{said:?} {}", text(&out));
            assert!(all.contains("No space left"), "{all}");
        }
    }
    // Larger than a page: the journal cannot take it, and the send says why.
    let big = format!("while the disk is full {}", "x".repeat(16 * 1024));
    let out = w.run(&["send", "t", &big, "--detach"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("No space left on device") && stderr.contains("disk full"),
        "{stderr}"
    );
    // What was acknowledged before still reads, and the server still answers.
    assert_eq!(turns(&w, "t"), before);
    assert!(w.run(&["server", "status"]).status.success());
    std::fs::remove_file(&filler).unwrap();
    w.send("t", "after space was freed");
    let mut expected = vec!["before the disk filled"];
    if small.status.success() {
        expected.push("small while full");
        if let Some(fg) = waiting.take() {
            expected.push("foreground while full");
            let out = fg.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", text(&out));
        }
    } else {
        assert!(
            String::from_utf8_lossy(&small.stderr).contains("No space left"),
            "{}",
            text(&small)
        );
    }
    expected.push("after space was freed");
    w.wait_for("every input to run", || all_done(&w, "t", expected.len()));
    let t = turns(&w, "t");
    assert!(t.iter().all(|x| x.3 == "completed"), "{t:?}");
    let prompts: Vec<&str> = t.iter().map(|x| x.4.as_str()).collect();
    assert_eq!(prompts, expected);
    ran_once_each(&w, &expected);
    // The index agrees with the journals once rebuilt.
    w.ok(&["reindex"]);
    assert_eq!(turns(&w, "t"), t);
    assert_eq!(w.show("t")["index_behind"], false);
    drop(disk);
}
