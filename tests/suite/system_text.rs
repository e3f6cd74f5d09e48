//! What rides in the system instructions: house rules, brief, standing instructions; frozen and
//! byte-identical for a conversation's life, on both CLIs.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

const HEADING: &str = "## Instructions the user gave earlier in this terminal";

#[test]
fn claude_system_text_is_byte_identical_on_every_turn_of_a_conversation() {
    let w = World::new();
    let dir = w.project("api");
    w.ok(&[
        "new",
        "api",
        "--dir",
        dir.to_str().unwrap(),
        "--brief",
        "Backend of the billing service",
    ]);
    w.ok(&[
        "instructions",
        "api",
        "add",
        "Always run cargo fmt before committing.",
    ]);
    w.send("api", "one");
    w.send("api", "two");
    // Added while the conversation runs: must NOT change this conversation's text.
    w.ok(&[
        "instructions",
        "api",
        "add",
        "Never use unwrap in library code.",
    ]);
    w.send("api", "three [[ctx:900]] [[window:1000]]");
    let texts: Vec<String> = w
        .invocations()
        .iter()
        .map(|i| system_text(i).expect("no system text"))
        .collect();
    assert_eq!(texts.len(), 3);
    assert_eq!(texts[0], texts[1]);
    assert_eq!(texts[1], texts[2]);
    let t = &texts[0];
    assert!(t.contains(dir.to_str().unwrap()), "names the checkout: {t}");
    assert!(t.contains("screenshots"), "{t}");
    assert!(t.contains("Backend of the billing service"), "{t}");
    let heading_at = t.find(HEADING).expect("heading");
    assert!(t.find("Backend").unwrap() < heading_at, "brief comes first");
    assert!(t[heading_at..].contains("Always run cargo fmt before committing."));
    assert!(!t.contains("Never use unwrap"));
    // The rotation opens a conversation whose text carries both lines, word for word.
    w.send("api", "four");
    let t4 = system_text(&w.last_invocation()).unwrap();
    assert!(
        t4.contains(
            "- Always run cargo fmt before committing.\n- Never use unwrap in library code."
        ),
        "{t4}"
    );
    assert_eq!(w.show("api")["conversation"]["number"], 2);
}

#[test]
fn codex_gets_the_text_as_developer_instructions_once_and_the_thread_keeps_it() {
    let w = World::new();
    let dir = w.project("api");
    w.ok(&[
        "new",
        "api",
        "--dir",
        dir.to_str().unwrap(),
        "--provider",
        "codex",
        "--brief",
        "Say \"hi\" \\ and\nmore",
    ]);
    w.ok(&["instructions", "api", "add", "答案用中文。"]);
    w.send("api", "one");
    w.send("api", "two");
    let values: Vec<Option<String>> = w.invocations().iter().map(system_text).collect();
    // Read when the thread is created; a resume replays the rollout's copy (Codex ignores
    // developer_instructions on resume), so it gets none.
    assert_eq!(values[1], None);
    let text = values[0].clone().expect("no developer_instructions");
    assert!(text.contains("Say \"hi\" \\ and\nmore"), "{text}");
    assert!(text.contains("- 答案用中文。"), "{text}");
    let rollout = read_dir_files(&w.codex_home().join("sessions"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a rollout");
    let developer: Vec<Value> = std::fs::read_to_string(rollout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["payload"]["role"] == "developer")
        .collect();
    assert_eq!(developer.len(), 1, "one copy, for both turns");
    assert_eq!(developer[0]["payload"]["content"][0]["text"], text.as_str());
}

#[test]
fn the_prompt_is_never_edited() {
    let w = World::new();
    w.new_terminal("t", "codex");
    w.ok(&["instructions", "t", "add", "Keep it short."]);
    let prompt = "  leading spaces, trailing newline\n\n";
    let out = w.run_stdin(&["send", "t", "-"], prompt.as_bytes());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(stdin_prompt(&w.last_invocation()), prompt);
}

#[test]
fn instructions_can_be_listed_added_and_removed() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.ok(&["instructions", "t", "add", "one rule"]);
    w.ok(&["instructions", "t", "add", "two rule"]);
    let list = w.json(&["instructions", "t"]);
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert_eq!(list[0]["text"], "one rule");
    assert_eq!(list[0]["turn"], serde_json::Value::Null);
    w.ok(&["instructions", "t", "rm", "1"]);
    assert_eq!(w.show("t")["instructions"], serde_json::json!(["two rule"]));
    let out = w.run(&["instructions", "t", "rm", "7"]);
    assert_eq!(out.status.code(), Some(2));
    w.ok(&["instructions", "t", "clear"]);
    assert_eq!(w.show("t")["instructions"], serde_json::json!([]));
}

const LATER: &str =
    "## More instructions the user gave earlier in this terminal (keep following them too)";
const RULE: &str = "Always run cargo fmt before committing.";

/// Sends `prompt` to `name` on `provider` (a switch when it is not the terminal's).
fn send_on(w: &World, name: &str, provider: &str, prompt: &str) {
    let out = w.run(&["send", name, "--provider", provider, prompt]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_switch_to_codex_carries_a_rule_given_earlier_in_the_conversation() {
    let w = World::new();
    w.cold();
    w.new_terminal("t", "claude");
    w.ok(&["instructions", "t", "add", "Keep answers short."]);
    w.send("t", "one");
    w.send("t", &format!("Fix the parser. {RULE}"));
    w.wait_for("the rule", || instructions(&w, "t").len() == 2);
    let claude = system_text(&w.invocations()[0]).expect("claude's text");
    assert!(!claude.contains(RULE), "the running session keeps its text");
    send_on(&w, "t", "codex", "now on codex");
    let codex = system_text(&w.last_invocation()).expect("developer_instructions");
    // The conversation's text, word for word, then what it lacks under its own heading.
    assert_eq!(codex, format!("{claude}\n\n{LATER}\n- {RULE}"));
    assert_eq!(w.show("t")["conversation"]["number"], 1);
    // The thread keeps that copy: a resume gets no profile.
    w.send("t", "more on codex");
    assert_eq!(system_text(&w.last_invocation()), None);
}

#[test]
fn a_switch_back_to_claude_carries_the_rules_and_keeps_them_byte_identical() {
    let w = World::new();
    w.cold();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    let first = system_text(&w.invocations()[0]).expect("codex's text");
    w.send("t", &format!("Fix the parser. {RULE}"));
    w.wait_for("the rule", || instructions(&w, "t").len() == 1);
    send_on(&w, "t", "claude", "now on claude");
    let switched = system_text(&w.last_invocation()).expect("claude's text");
    assert_eq!(switched, format!("{first}\n\n{LATER}\n- {RULE}"));
    // A rule added while the Claude session runs stays out of it: every resume gets the very
    // text the session started with (Claude's prompt cache holds).
    w.ok(&[
        "instructions",
        "t",
        "add",
        "Never use unwrap in library code.",
    ]);
    w.send("t", "two on claude");
    w.send("t", "three on claude");
    let n = w.invocations().len();
    for inv in &w.invocations()[n - 2..] {
        assert!(claude_session(inv).1.is_some(), "a resume: {inv}");
        assert_eq!(system_text(inv).as_deref(), Some(switched.as_str()));
    }
    // Back on Codex: a new thread, with both lines the conversation lacks.
    send_on(&w, "t", "codex", "codex again");
    assert_eq!(
        system_text(&w.last_invocation()).expect("developer_instructions"),
        format!("{first}\n\n{LATER}\n- {RULE}\n- Never use unwrap in library code.")
    );
}

/// The text a switched session got is the one its warm CLI keeps: its next turns run in it.
#[test]
fn a_warm_claude_cli_after_a_switch_takes_the_next_turns() {
    let w = World::new();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    w.ok(&["instructions", "t", "add", RULE]);
    send_on(&w, "t", "claude", "now on claude");
    w.send("t", "two on claude");
    w.send("t", "three on claude");
    let invs = w.invocations();
    let claude: Vec<&Value> = invs.iter().filter(|i| i["cli"] == "claude").collect();
    assert_eq!(claude.len(), 3);
    // One CLI ran all three: the resumes' text fits the one it started with.
    for inv in &claude {
        assert_eq!(
            inv["pid"], claude[0]["pid"],
            "not one warm CLI: {}",
            inv["argv"]
        );
    }
}

#[test]
fn a_switched_session_cut_by_a_crash_keeps_the_rules_it_carried() {
    let w = World::new();
    w.cold();
    w.new_terminal("t", "codex");
    w.send("t", "one");
    w.send("t", &format!("Fix the parser. {RULE}"));
    w.wait_for("the rule", || instructions(&w, "t").len() == 1);
    let out = w.run(&[
        "send",
        "t",
        "--provider",
        "claude",
        "now on claude [[hold:go]]",
        "--detach",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // Held after its first piece: the CLI has named its session, the server has not
    // journalled it yet when it dies.
    w.wait_for("the switched turn to stream", || {
        read_dir_files(&w.data().join("terminals")).iter().any(|f| {
            f.parent().is_some_and(|d| d.ends_with("turns"))
                && std::fs::read_to_string(f).is_ok_and(|t| t.contains("text_delta"))
        })
    });
    let switched = system_text(&w.last_invocation()).expect("claude's text");
    assert!(switched.contains(RULE), "{switched}");
    kill_server(&w);
    w.send("t", "after the crash");
    let resumed = w.last_invocation();
    assert!(claude_session(&resumed).1.is_some(), "a resume: {resumed}");
    assert_eq!(system_text(&resumed).as_deref(), Some(switched.as_str()));
}
