//! Standing instructions end to end: extracted from the user's prompts in the background, word
//! for word, carried into the next fresh conversation on both CLIs and not into the running one.

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

const RULE: &str = "From now on, always run clippy before you say you're done.";

fn system_text(inv: &Value) -> String {
    super::common::system_text(inv).expect("no system text")
}

#[test]
fn a_rule_typed_in_conversation_1_opens_conversation_2_word_for_word() {
    for provider in ["claude", "codex"] {
        let w = World::new();
        w.new_terminal("t", provider);
        w.send(
            "t",
            &format!("Fix the flaky test in auth.rs. {RULE}\n[[ctx:460]] [[window:1000]]"),
        );
        w.wait_for("the rule to be extracted", || {
            instructions(&w, "t") == vec![RULE.to_string()]
        });
        let list = w.json(&["instructions", "t"]);
        assert_eq!(list[0]["turn"], 1, "it says which turn it came from");
        let first = system_text(&w.last_invocation());
        assert!(
            !first.contains(RULE),
            "{provider}: the running conversation must not change"
        );
        w.send("t", "Now the login page.");
        let second = system_text(&w.last_invocation());
        assert_eq!(w.show("t")["conversation"]["number"], 2, "{provider}");
        let heading = second
            .find("## Instructions the user gave earlier in this terminal")
            .expect("heading");
        assert!(
            second[heading..].contains(&format!("- {RULE}")),
            "{provider}: {second}"
        );
        assert!(
            !second.contains("Fix the flaky test"),
            "{provider}: a one-off task is not a rule"
        );
    }
}

#[test]
fn greetings_tasks_and_repeats_add_nothing() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "thanks!");
    w.send("t", "Fix the login bug in src/auth.rs please.");
    w.send("t", "Never use unwrap in library code.");
    w.send("t", "Never use unwrap in library code.");
    w.wait_for("the rule", || !instructions(&w, "t").is_empty());
    // Extractions run in prompt order, so once a later prompt's line is in, earlier ones are done.
    w.send("t", "Answer in German.");
    w.wait_for("the second rule", || instructions(&w, "t").len() == 2);
    assert_eq!(
        instructions(&w, "t"),
        vec!["Never use unwrap in library code.", "Answer in German."]
    );
}

#[test]
fn a_terminal_keeps_its_forty_newest_lines() {
    let w = World::new();
    w.new_terminal("t", "claude");
    for i in 1..=41 {
        w.ok(&[
            "instructions",
            "t",
            "add",
            &format!("Rule number {i} applies."),
        ]);
    }
    let list = instructions(&w, "t");
    assert_eq!(list.len(), 40);
    assert_eq!(list[0], "Rule number 2 applies.");
    assert_eq!(list[39], "Rule number 41 applies.");
}

#[test]
fn an_edited_instruction_keeps_its_place_survives_a_reindex_and_refuses_a_duplicate() {
    let w = World::new();
    w.new_terminal("t", "claude");
    for rule in ["Use tabs.", "Never push.", "Write tests."] {
        w.ok(&["instructions", "t", "add", rule]);
    }
    w.ok(&["instructions", "t", "edit", "2", "Never force-push."]);
    let want = ["Use tabs.", "Never force-push.", "Write tests."];
    assert_eq!(instructions(&w, "t"), want);
    // Another line's text, a number it does not have, an empty line: refused, nothing changed.
    for (args, says) in [
        (
            ["edit", "1", "Write tests."],
            "already has that instruction",
        ),
        (["edit", "9", "Anything."], "has no instruction 9"),
        (["edit", "1", "  "], "one non-empty line"),
    ] {
        let mut all = vec!["instructions", "t"];
        all.extend(args);
        let out = w.run(&all);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(says), "{}", text(&out));
    }
    // The journal has it: the index rebuilt from it says the same.
    w.ok(&["reindex"]);
    assert_eq!(instructions(&w, "t"), want);
    // It rides in the next conversation's system text, the old words gone.
    w.send("t", "Add the login page.");
    let sys = system_text(&w.last_invocation());
    assert!(sys.contains("Never force-push."), "{sys}");
    assert!(!sys.contains("Never push."), "{sys}");
}

#[test]
fn instructions_add_and_edit_read_a_dash_from_stdin() {
    // `-` was stored as the instruction itself (issue 39); it reads stdin, as `send -` does.
    let w = World::new();
    w.new_terminal("t", "claude");
    let add = w.run_stdin(&["instructions", "t", "add", "-"], b"Use tabs.\n");
    assert!(add.status.success(), "{}", text(&add));
    assert_eq!(instructions(&w, "t"), ["Use tabs."]);
    let edit = w.run_stdin(&["instructions", "t", "edit", "1", "-"], b"Use spaces.\r\n");
    assert!(edit.status.success(), "{}", text(&edit));
    assert_eq!(instructions(&w, "t"), ["Use spaces."]);
    // An instruction is one line, from stdin too.
    let two = w.run_stdin(&["instructions", "t", "add", "-"], b"one\ntwo\n");
    assert_eq!(two.status.code(), Some(2), "{}", text(&two));
    assert!(text(&two).contains("one non-empty line"), "{}", text(&two));
    assert_eq!(instructions(&w, "t"), ["Use spaces."]);
}

#[test]
fn extract_prints_what_would_be_kept_without_touching_any_terminal() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let prompt = format!("Fix the flaky test. {RULE}\n```\n// never do this\n```\n");
    let out = w.run_stdin(&["instructions", "extract", "--json"], prompt.as_bytes());
    assert!(out.status.success(), "{}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["lines"], serde_json::json!([RULE]));
    assert_eq!(v["extractor"], "local");
    let out = w.run_stdin(&["instructions", "extract"], prompt.as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{RULE}\n"));
    assert!(instructions(&w, "t").is_empty());
    assert!(
        w.invocations().is_empty(),
        "the local extractor runs no CLI"
    );
    let out = w.run_stdin(&["instructions", "extract"], &[0xff, 0xfe]);
    assert_eq!(out.status.code(), Some(2));
}

fn model_world(reply: &str) -> World {
    let mut w = World::new();
    w.env
        .push(("BATON_SHIM_EPHEMERAL_REPLY".into(), reply.into()));
    std::fs::write(
        w.data().join("config.toml"),
        "[instructions]\nextractor = \"model\"\n",
    )
    .unwrap();
    w
}

#[test]
fn the_model_extractor_runs_ephemeral_and_only_verbatim_lines_pass() {
    for provider in ["claude", "codex"] {
        // The model returns the rule, a rephrased rule, and a translation: only the first passes.
        let w = model_world(&format!(
            "- {RULE}\\nAlways run clippy.\\nFühre immer clippy aus."
        ));
        let prompt = format!("Fix the flaky test. {RULE}");
        let out = w.run_stdin(
            &["instructions", "extract", "--json", "--provider", provider],
            prompt.as_bytes(),
        );
        assert!(out.status.success(), "{}", text(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["extractor"], "model", "{provider}");
        assert_eq!(v["lines"], serde_json::json!([RULE]), "{provider}");
        let inv = w.last_invocation();
        assert_eq!(inv["cli"], provider);
        let ephemeral = if provider == "claude" {
            "--no-session-persistence"
        } else {
            "--ephemeral"
        };
        assert!(has_arg(&inv["argv"], ephemeral), "{}", inv["argv"]);
        assert!(
            stdin_prompt(&inv).contains(&prompt),
            "the request quotes the prompt"
        );
        assert!(
            read_dir_files(&w.home().join(".claude/projects")).is_empty(),
            "no session left behind"
        );
        assert!(
            read_dir_files(&w.codex_home().join("sessions")).is_empty(),
            "no rollout left behind"
        );
    }
}

#[test]
fn the_local_extractor_stands_in_when_the_model_fails() {
    let w = model_world("FAIL");
    let out = w.run_stdin(
        &["instructions", "extract", "--json"],
        format!("Fix it. {RULE}").as_bytes(),
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["extractor"]
            .as_str()
            .unwrap()
            .starts_with("local (model failed"),
        "{v}"
    );
    assert_eq!(v["lines"], serde_json::json!([RULE]));
}
