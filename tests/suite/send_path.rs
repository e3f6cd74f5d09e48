//! The send path end to end: resume, rotation at 45%, the cumulative-usage traps, provider
//! switches, lost sessions, directory moves, server restarts, model pinning.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

fn session_flag(inv: &Value) -> (Option<String>, Option<String>) {
    claude_session(inv)
}

/// The thread a codex invocation resumed (`… resume <id>`), if any.
/// The thread a Codex run resumed: `exec … resume ID`, or the thread of a warm app-server's
/// turn.
fn codex_resumed(inv: &Value) -> Option<String> {
    if inv["argv"][0] == "app-server" {
        return inv["params"]["threadId"].as_str().map(String::from);
    }
    flag(&inv["argv"], "resume").map(String::from)
}

#[test]
fn first_send_runs_claude_headless_with_the_prompt_on_stdin_only() {
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let prompt = "Add a /health endpoint.\n  Keep ünïcödé ✓ and \"quotes\" and $HOME intact.\n";
    let (out, err) = w.send("api", prompt);
    let inv = w.last_invocation();
    assert_eq!(inv["cli"], "claude");
    assert_eq!(stdin_prompt(&inv), prompt);
    assert_eq!(inv["cwd"], dir.to_str().unwrap());
    let argv = &inv["argv"];
    assert!(
        !argv
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().contains("health")),
        "prompt leaked into argv: {argv}"
    );
    for f in ["-p", "--verbose"] {
        assert!(has_arg(argv, f), "{f} missing in {argv}");
    }
    assert_eq!(flag(argv, "--output-format"), Some("stream-json"));
    let (new_id, resumed) = session_flag(&inv);
    assert!(resumed.is_none());
    let show = w.show("api");
    assert_eq!(show["conversation"]["number"], 1);
    assert_eq!(show["conversation"]["opened_reason"], "first");
    assert_eq!(show["sessions"][0]["provider"], "claude");
    assert_eq!(
        show["sessions"][0]["session_id"].as_str(),
        new_id.as_deref()
    );
    assert_eq!(show["state"], "idle");
    assert!(show["context"]["tokens"].as_u64().unwrap() > 0);
    assert!(out.contains("MOCK-REPLY"), "{out}");
    assert!(err.contains("── completed · claude"), "{err}");
    assert!(err.contains("conversation 1"), "{err}");
}

#[test]
fn claude_resumes_at_44_9_percent_and_rotates_at_45_1_percent() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "first [[ctx:449]] [[window:1000]]");
    let (first_id, _) = session_flag(&w.last_invocation());
    w.send("t", "second [[ctx:451]] [[window:1000]]");
    assert_eq!(
        session_flag(&w.last_invocation()).1,
        first_id,
        "44.9% must resume"
    );
    let show = w.show("t");
    assert_eq!(show["context"]["tokens"], 451);
    assert_eq!(show["context"]["window"], 1000);
    let (_, err) = w.send("t", "third");
    let (new_id, resumed) = session_flag(&w.last_invocation());
    assert_eq!(resumed, None, "45.1% must rotate");
    assert_ne!(new_id, first_id);
    let show = w.show("t");
    assert_eq!(show["conversation"]["number"], 2);
    assert_eq!(show["conversation"]["opened_reason"], "size");
    assert!(err.contains("opened: size"), "{err}");
}

#[test]
fn codex_resumes_at_44_9_percent_and_rotates_at_45_1_percent() {
    let w = World::new();
    // Exec's command line (with the inbox on, Codex turns run on an app-server).
    w.exec_only();
    w.new_terminal("t", "codex");
    w.send("t", "first [[ctx:449]] [[window:1000]]");
    assert_eq!(codex_resumed(&w.last_invocation()), None);
    let thread = w.show("t")["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    w.send("t", "second [[ctx:451]] [[window:1000]]");
    assert_eq!(
        codex_resumed(&w.last_invocation()).as_deref(),
        Some(thread.as_str())
    );
    w.send("t", "third");
    assert_eq!(
        codex_resumed(&w.last_invocation()),
        None,
        "45.1% must rotate"
    );
    let show = w.show("t");
    assert_eq!(show["conversation"]["number"], 2);
    assert_eq!(show["conversation"]["opened_reason"], "size");
}

#[test]
fn two_call_claude_turn_is_judged_by_its_last_call_not_the_summed_usage() {
    let w = World::new();
    w.new_terminal("t", "claude");
    // Each call holds 300 of 1000 tokens: result.usage sums to 60%, the context is 30%.
    w.send(
        "t",
        "read two files [[calls:2]] [[ctx:300]] [[window:1000]]",
    );
    let first = session_flag(&w.last_invocation()).0;
    assert_eq!(w.show("t")["context"]["tokens"], 300);
    w.send("t", "go on");
    assert_eq!(
        session_flag(&w.last_invocation()).1,
        first,
        "must resume, not rotate"
    );
    assert_eq!(w.show("t")["conversation"]["number"], 1);
}

#[test]
fn codex_cumulative_turn_completed_usage_does_not_rotate() {
    let w = World::new();
    w.new_terminal("t", "codex");
    for i in 0..3 {
        w.send("t", &format!("step {i} [[ctx:300]] [[window:1000]]"));
    }
    // turn.completed.usage is now ~900 of 1000 (cumulative); the context is 300.
    w.send("t", "step 4");
    assert!(codex_resumed(&w.last_invocation()).is_some());
    let show = w.show("t");
    assert_eq!(show["conversation"]["number"], 1);
    assert_eq!(show["sessions"].as_array().unwrap().len(), 1);
}

#[test]
fn provider_switch_keeps_the_conversation_and_starts_a_new_session() {
    let w = World::new();
    // Exec's command line (with the inbox on, Codex turns run on an app-server).
    w.exec_only();
    w.new_terminal("t", "claude");
    w.send("t", "on claude");
    let conv = w.show("t")["conversation"]["id"].clone();
    let out = w.run(&["send", "t", "--provider", "codex", "now on codex"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("provider switched"));
    let inv = w.last_invocation();
    assert_eq!(inv["cli"], "codex");
    assert_eq!(codex_resumed(&inv), None);
    let show = w.show("t");
    assert_eq!(show["conversation"]["id"], conv);
    assert_eq!(show["provider"], "codex");
    let sessions = show["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[1]["provider"], "codex");
    // Staying on codex resumes its thread.
    w.send("t", "more on codex");
    assert_eq!(
        codex_resumed(&w.last_invocation()).as_deref(),
        sessions[1]["session_id"].as_str()
    );
    // Switching back starts yet another claude session: the first one missed the codex turns.
    let out = w.run(&["send", "t", "--provider", "claude", "back on claude"]);
    assert!(out.status.success(), "{}", text(&out));
    let (new_id, resumed) = session_flag(&w.last_invocation());
    assert_eq!(resumed, None);
    assert_ne!(new_id.as_deref(), sessions[0]["session_id"].as_str());
    let show = w.show("t");
    assert_eq!(show["conversation"]["id"], conv);
    assert_eq!(show["sessions"].as_array().unwrap().len(), 3);
}

#[test]
fn resume_falls_back_when_session_file_deleted() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "hello there");
    let id = w.show("t")["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let files: Vec<_> = read_dir_files(&w.home().join(".claude/projects"))
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_str().unwrap() == format!("{id}.jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "session file not where Claude keeps it");
    std::fs::remove_file(&files[0]).unwrap();
    let (_, err) = w.send("t", "are you there?");
    assert!(err.contains("new session"), "{err}");
    let show = w.show("t");
    assert_eq!(show["conversation"]["number"], 1, "same conversation");
    let sessions = show["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[1]["reason"], "lost");
    assert_ne!(sessions[1]["session_id"].as_str(), Some(id.as_str()));
}

#[test]
fn a_fresh_session_after_a_lost_one_carries_the_rules_given_since() {
    let w = World::new();
    w.cold();
    w.new_terminal("t", "claude");
    w.send("t", "hello there");
    let first = system_text(&w.last_invocation()).expect("claude's text");
    w.ok(&["instructions", "t", "add", "Keep it short."]);
    let id = w.show("t")["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    for p in read_dir_files(&w.home().join(".claude/projects")) {
        if p.file_name().unwrap().to_str().unwrap() == format!("{id}.jsonl") {
            std::fs::remove_file(p).unwrap();
        }
    }
    w.send("t", "are you there?");
    let fresh = system_text(&w.last_invocation()).expect("claude's text");
    assert_eq!(
        fresh,
        format!("{first}\n\n## More instructions the user gave earlier in this terminal (keep following them too)\n- Keep it short.")
    );
    assert_eq!(w.show("t")["sessions"][1]["reason"], "lost");
    // Its resumes get the very same text.
    w.send("t", "still there?");
    let inv = w.last_invocation();
    assert!(session_flag(&inv).1.is_some(), "a resume: {inv}");
    assert_eq!(system_text(&inv), Some(fresh));
}

#[test]
fn codex_resume_falls_back_when_rollout_deleted() {
    let w = World::new();
    // Exec's command line (with the inbox on, Codex turns run on an app-server).
    w.exec_only();
    w.new_terminal("t", "codex");
    w.send("t", "hello there");
    let id = w.show("t")["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let rollouts: Vec<_> = read_dir_files(&w.codex_home().join("sessions"))
        .into_iter()
        .filter(|p| p.to_str().unwrap().ends_with(&format!("-{id}.jsonl")))
        .collect();
    assert_eq!(rollouts.len(), 1);
    std::fs::remove_file(&rollouts[0]).unwrap();
    w.send("t", "are you there?");
    let show = w.show("t");
    assert_eq!(show["conversation"]["number"], 1);
    assert_eq!(show["sessions"].as_array().unwrap().len(), 2);
    assert_eq!(codex_resumed(&w.last_invocation()), None);
}

#[test]
fn dir_pointing_elsewhere_opens_a_fresh_conversation() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "hello there");
    let other = w.project("elsewhere");
    let out = w.run(&[
        "send",
        "t",
        "--dir",
        other.to_str().unwrap(),
        "continue here",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let inv = w.last_invocation();
    assert_eq!(inv["cwd"], other.to_str().unwrap());
    assert_eq!(session_flag(&inv).1, None);
    let show = w.show("t");
    assert_eq!(show["dir"], other.to_str().unwrap());
    assert_eq!(show["conversation"]["number"], 2);
    assert_eq!(show["conversation"]["opened_reason"], "moved");
}

#[test]
fn server_restarted_between_two_turns_still_resumes() {
    for provider in ["claude", "codex"] {
        let w = World::new();
        w.new_terminal("t", provider);
        w.send("t", "before the restart");
        let id = w.show("t")["sessions"][0]["session_id"]
            .as_str()
            .unwrap()
            .to_string();
        w.ok(&["server", "stop"]);
        assert!(!w.data().join("server.sock").exists());
        w.send("t", "after the restart");
        let inv = w.last_invocation();
        let resumed = match provider {
            "claude" => session_flag(&inv).1,
            _ => codex_resumed(&inv),
        };
        assert_eq!(resumed.as_deref(), Some(id.as_str()), "{provider}");
        assert_eq!(w.show("t")["conversation"]["number"], 1);
    }
}

#[test]
fn claude_2_1_197_resumes_on_the_model_the_session_started_on() {
    let mut w = World::new();
    // The resumed command line names the model (a warm CLI runs on it already).
    w.cold();
    w.env
        .push(("BATON_SHIM_CLAUDE_VERSION".into(), "2.1.197".into()));
    w.new_terminal("t", "claude");
    w.send("t", "hello from 197");
    assert_eq!(flag(&w.last_invocation()["argv"], "--model"), None);
    assert_eq!(w.show("t")["context"]["window"], 1_000_000);
    w.send("t", "again");
    let inv = w.last_invocation();
    assert_eq!(flag(&inv["argv"], "--model"), Some("claude-opus-4-8[1m]"));
    assert_eq!(w.show("t")["context"]["window"], 1_000_000);
}

#[test]
fn the_context_counts_each_calls_final_output_on_both_claude_versions() {
    // 2.1.197 writes its session file only after its result, where 2.1.332 has the call's
    // final output count before: the count must not fall back to the stream's first chunk.
    for version in ["2.1.332", "2.1.197"] {
        for cold in [true, false] {
            let mut w = World::new();
            if cold {
                w.cold();
            }
            w.env
                .push(("BATON_SHIM_CLAUDE_VERSION".into(), version.into()));
            w.new_terminal("t", "claude");
            w.send("t", "hello [[ctx:20000]]");
            assert_eq!(
                w.show("t")["context"]["tokens"],
                20000,
                "{version} cold={cold}"
            );
            w.send("t", "again [[ctx:30000]]");
            assert_eq!(
                w.show("t")["context"]["tokens"],
                30000,
                "{version} cold={cold}"
            );
        }
    }
}

#[test]
fn codex_runs_with_json_and_skip_git_repo_check_and_options_before_resume() {
    let w = World::new();
    w.cold();
    w.exec_only();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    w.send("t", "two");
    let argv = w.last_invocation()["argv"].clone();
    let a: Vec<&str> = argv
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(a[0], "exec");
    assert!(a.contains(&"--json") && a.contains(&"--skip-git-repo-check"));
    let resume_at = a.iter().position(|x| *x == "resume").unwrap();
    assert_eq!(resume_at, a.len() - 2, "resume <id> must come last: {a:?}");
    assert_eq!(flag(&argv, "--sandbox"), Some("workspace-write"));
}

/// A child's stdout, read as it comes on a thread of its own.
struct Stdout(
    std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    Option<std::thread::JoinHandle<()>>,
);

impl Stdout {
    fn follow(child: &mut std::process::Child) -> Stdout {
        use std::io::Read;
        let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut pipe = child.stdout.take().unwrap();
        let sink = buf.clone();
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        Stdout(buf, Some(reader))
    }

    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// Everything, once the child closed its stdout (after it exited).
    fn all(&mut self) -> String {
        if let Some(reader) = self.1.take() {
            reader.join().unwrap();
        }
        self.text()
    }
}

/// The raw stream of a terminal's turn, one JSON value per line.
fn raw_turn(w: &World, name: &str, turn_id: &str) -> Vec<Value> {
    let id = w.show(name)["id"].as_str().unwrap().to_string();
    let path = w
        .data()
        .join("terminals")
        .join(id)
        .join("turns")
        .join(format!("{turn_id}.jsonl"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn claude_answer_streams_before_the_turn_ends_and_the_journal_keeps_it_whole() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let answer = "Streaming works: this answer reaches the terminal piece by piece, long before \
                  the turn is over.";
    let go_on = w.tmp.path().join("go-on");
    let prompt = format!("stream it [[reply:{answer}]] [[hold:{}]]", go_on.display());
    let mut child = w.spawn(&["send", "t", &prompt]);
    let mut stdout = Stdout::follow(&mut child);
    // The shim holds after the first delta: whatever is on stdout now arrived mid-turn.
    w.wait_for("the first delta on stdout", || !stdout.text().is_empty());
    let partial = stdout.text();
    assert!(
        answer.starts_with(&partial) && partial.len() < answer.len(),
        "a partial answer, unfinished: {partial:?}"
    );
    assert_eq!(w.show("t")["state"], "running");
    std::fs::write(&go_on, "").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(stdout.all(), format!("{answer}\n"), "printed once, whole");
    let log = w.json(&["log", "t"]);
    let turn = &log["turns"][0];
    assert_eq!(turn["answer"], answer);
    // The journalled answer is the text of the CLI's own full message, byte for byte.
    let raw = raw_turn(&w, "t", turn["id"].as_str().unwrap());
    let full: Vec<&Value> = raw
        .iter()
        .filter(|l| l["type"] == "assistant")
        .map(|l| &l["message"]["content"][0]["text"])
        .collect();
    assert_eq!(full, vec![&Value::from(answer)]);
    let deltas = raw
        .iter()
        .filter(|l| l["event"]["delta"]["type"] == "text_delta")
        .count();
    assert!(deltas >= 2, "the answer came in {deltas} deltas");
}

#[test]
fn interrupt_mid_stream_keeps_the_partial_answer() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut watch = w.watch();
    let never = w.tmp.path().join("never");
    let prompt = format!(
        "stop me [[reply:An answer cut short by the user.]] [[hold:{}]]",
        never.display()
    );
    let mut child = w.spawn(&["send", "t", &prompt]);
    let mut stdout = Stdout::follow(&mut child);
    let first = watch.until(|e| e["event"]["event"]["event"]["kind"] == "delta");
    let piece = first["event"]["event"]["event"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    w.ok(&["interrupt", "t"]);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let turn = &w.json(&["log", "t"])["turns"][0];
    assert_eq!(turn["status"], "interrupted");
    // What streamed is kept, once: the CLI's aborted message repeats it and adds nothing.
    assert_eq!(turn["answer"], piece.as_str());
    assert_eq!(stdout.all(), format!("{piece}\n"));
}

#[test]
fn each_turn_says_what_it_cost_and_the_terminal_sums_it() {
    let w = World::new();
    w.new_terminal("c", "claude");
    w.new_terminal("x", "codex");
    let first = w.run(&["send", "c", "one"]);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(
        stderr.contains(" s · ") && stderr.contains("out tokens · $"),
        "{stderr}"
    );
    w.send("c", "two");
    w.send("x", "three");
    let log = w.json(&["log", "c"]);
    let turns = log["turns"].as_array().unwrap();
    let usd: f64 = turns
        .iter()
        .map(|t| t["cost"]["usd"].as_f64().unwrap())
        .sum();
    let input: u64 = turns
        .iter()
        .map(|t| t["cost"]["input_tokens"].as_u64().unwrap())
        .sum();
    let total = &w.show("c")["cost"];
    assert!(
        (total["usd"].as_f64().unwrap() - usd).abs() < 1e-9,
        "{total}"
    );
    assert_eq!(total["input_tokens"].as_u64().unwrap(), input);
    // Codex reports tokens, no money.
    let codex = &w.show("x")["cost"];
    assert!(codex["output_tokens"].as_u64().unwrap() > 0, "{codex}");
    assert!(codex.get("usd").is_none(), "{codex}");
    let ls = w.ok(&["ls"]);
    assert!(ls.contains("COST") && ls.contains("tok"), "{ls}");
    assert!(w.ok(&["show", "c"]).contains("(all turns)"));
}

#[test]
fn a_resumed_claude_turns_cli_starts_as_its_send_arrives_before_the_input_is_journalled() {
    let mut w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "first");
    w.ok(&["server", "stop"]);
    w.env.push(("BATON_PHASES".into(), "1".into()));
    w.send("t", "second");
    let log = std::fs::read_to_string(w.data().join("server.log")).unwrap();
    let steps: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("phase "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    let at = |name: &str| steps.iter().position(|s| *s == name);
    let (spawned, journalled, planned, took) = (
        at("cli-spawned").expect("cli-spawned"),
        at("input-journalled").expect("input-journalled"),
        at("turn-planned").expect("turn-planned"),
        at("cli-warm").expect("the turn took the CLI started for it"),
    );
    assert!(spawned < journalled, "{steps:?}");
    assert!(planned < took, "{steps:?}");
    let ran: Vec<String> = w.invocations().iter().map(stdin_prompt).collect();
    assert_eq!(ran, ["first", "second"]);
    assert_eq!(w.show("t")["last_turn"]["status"], "completed");
}

#[test]
fn a_turn_keeps_the_time_send_reported_as_it_measured_it() {
    let w = World::new();
    w.new_terminal("api", "claude");
    let out = w.ok(&["send", "api", "Add a /health endpoint.", "--json"]);
    let last: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    let elapsed = last["data"]["elapsed_ms"].as_u64().unwrap();
    let id = w.show("api")["id"].as_str().unwrap().to_string();
    let journal = w.data().join("terminals").join(id).join("journal.jsonl");
    let finished: Vec<Value> = std::fs::read_to_string(journal)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "turn_finished")
        .collect();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0]["duration_ms"].as_u64(), Some(elapsed));
}

#[test]
fn send_model_default_unpins_the_terminals_model() {
    let w = World::new();
    w.cold();
    w.new_terminal("t", "claude");
    w.send("t", "one");
    let started_on = w.show("t")["sessions"][0]["model"]
        .as_str()
        .map(String::from);
    w.ok(&["send", "t", "two", "--model", "claude-haiku-9"]);
    assert_eq!(w.show("t")["model"], "claude-haiku-9");
    assert_eq!(
        flag(&w.last_invocation()["argv"], "--model"),
        Some("claude-haiku-9")
    );
    w.ok(&["send", "t", "three", "--model", "default"]);
    assert_eq!(w.show("t")["model"], Value::Null);
    // Back on the model its session started on, the provider's default then.
    assert_eq!(
        flag(&w.last_invocation()["argv"], "--model"),
        started_on.as_deref()
    );
    assert!(
        w.ok(&["show", "t"])
            .contains("provider:     claude (its default model)\n"),
        "{}",
        w.ok(&["show", "t"])
    );
    // An empty name is still refused, and says how to unpin.
    let out = w.run(&["send", "t", "four", "--model", ""]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("`default`"), "{}", text(&out));
}

#[test]
fn a_compact_turn_says_what_the_cli_did_and_what_it_reported() {
    // fixtures/captures/compact: `/compact` passes through to Claude Code, which reports the
    // compaction in `system/compact_boundary` and its calls only in `model_usage_since_last_result`.
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "one");
    let (_, stderr) = w.send("t", "/compact");
    let note = stderr
        .lines()
        .find(|l| l.contains("claude compacted the conversation (/compact): context "))
        .unwrap_or_else(|| panic!("no compaction note:\n{stderr}"));
    let post: u64 = note
        .rsplit(" → ")
        .next()
        .unwrap()
        .trim_end_matches(" tokens")
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(post > 0, "{note}");
    assert!(!stderr.contains("context not reported"), "{stderr}");
    assert!(!stderr.contains(" 0 in / 0 out"), "{stderr}");
    let turn = &w.json(&["log", "t"])["turns"][1];
    assert_eq!(turn["context"]["tokens"], post, "{turn}");
    assert!(
        turn["notes"]
            .to_string()
            .contains("compacted the conversation"),
        "{turn}"
    );
    assert!(turn["cost"]["input_tokens"].as_u64().unwrap() > 0, "{turn}");
    assert!(
        turn["cost"]["output_tokens"].as_u64().unwrap() > 0,
        "{turn}"
    );
}

#[test]
fn an_interrupted_claude_turn_keeps_the_tokens_the_cli_reported() {
    // control-interrupt-2.1.332: the result's `usage` counts 0, its
    // `model_usage_since_last_result` bills the call cut short.
    let w = World::new();
    w.new_terminal("t", "claude");
    w.ok(&["send", "t", "first [[hold:go]]", "--detach"]);
    w.wait_for("the turn to stream", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    w.ok(&["interrupt", "t"]);
    w.wait_for("the turn to end", || {
        w.show("t")["last_turn"]["status"] == "interrupted"
    });
    let turn = &w.json(&["log", "t"])["turns"][0];
    assert!(turn["cost"]["input_tokens"].as_u64().unwrap() > 0, "{turn}");
    assert!(turn["cost"]["usd"].as_f64().unwrap() > 0.0, "{turn}");
}
