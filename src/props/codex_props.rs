//! Codex's JSON lines (`providers::codex::CodexParser`) and the rollout file its `finish`
//! reads for context and model: random lines, captured lines mutated, cuts at every byte,
//! rollout files of random bytes, captured rollouts with junk around them.

use std::path::Path;

use proptest::prelude::*;

use super::gen::{self, exit, explained};
use crate::providers::codex::CodexParser;
use crate::providers::{ProviderHomes, TurnOutcome, TurnStatus};

const TOOL_CALL: &str =
    include_str!("../../fixtures/captures/codex/exec-json-tool-call.stdout.jsonl");
const FAILED: &str = include_str!("../../fixtures/captures/codex/exec-json-FAIL401.stdout.jsonl");
const ROLLOUT: &str = include_str!("../../fixtures/captures/codex/rollout-tool-call.jsonl");
const THREAD: &str = "01a22721-c5b9-7223-a62f-33c0fbffe0e7";

/// Feeds `lines` and finishes with `rollout` (when given) as the thread's rollout file.
fn run<S: AsRef<str>>(lines: &[S], rollout: Option<&[u8]>) -> TurnOutcome {
    let dir = rollout.map(|_| tempfile::tempdir().unwrap());
    let root = dir
        .as_ref()
        .map_or(Path::new("/nonexistent/baton-props"), |d| d.path());
    let homes = ProviderHomes {
        claude: root.join("claude"),
        codex: root.join("codex"),
    };
    if let Some(bytes) = rollout {
        let day = homes.codex.join("sessions/2026/12/01");
        std::fs::create_dir_all(&day).unwrap();
        std::fs::write(
            day.join(format!("rollout-2026-12-01T00-00-00-{THREAD}.jsonl")),
            bytes,
        )
        .unwrap();
    }
    let mut parser = CodexParser::new();
    for line in lines {
        parser.feed(line.as_ref());
    }
    parser.finish(&exit(0), &homes, None)
}

fn started() -> String {
    format!(r#"{{"type":"thread.started","thread_id":"{THREAD}"}}"#)
}

/// What the captured rollout says, read once.
fn clean() -> &'static TurnOutcome {
    static CLEAN: std::sync::OnceLock<TurnOutcome> = std::sync::OnceLock::new();
    CLEAN.get_or_init(|| run(&[started()], Some(ROLLOUT.as_bytes())))
}

fn captured() -> Vec<serde_json::Value> {
    let mut lines = gen::json_lines(TOOL_CALL);
    lines.extend(gen::json_lines(FAILED));
    lines
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn random_lines_never_panic_and_never_complete(lines in prop::collection::vec(gen::text(), 0..8)) {
        let outcome = run(&lines, None);
        prop_assert_ne!(outcome.status, Some(TurnStatus::Completed));
        prop_assert!(explained(&outcome), "{outcome:?}");
    }

    #[test]
    fn captured_lines_with_fields_mutated_never_panic(
        lines in prop::collection::vec(gen::mutated_line(captured()), 1..6),
    ) {
        prop_assert!(explained(&run(&lines, None)));
    }

}

proptest! {
    // Each case writes a rollout file: fewer cases.
    #![proptest_config(super::config_with(64))]

    #[test]
    fn a_rollout_of_random_bytes_gives_no_context(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let outcome = run(&[started()], Some(&bytes));
        prop_assert_eq!(outcome.context, None);
        prop_assert!(explained(&outcome));
    }

    #[test]
    fn rollout_lines_mutated_never_panic(
        lines in prop::collection::vec(gen::mutated_line(gen::json_lines(ROLLOUT)), 1..6),
    ) {
        let rollout = lines.join("\n");
        prop_assert!(explained(&run(&[started()], Some(rollout.as_bytes()))));
    }

    #[test]
    fn junk_lines_after_a_rollout_change_nothing(junk in prop::collection::vec(gen::text(), 1..5)) {
        let clean = clean();
        let mut damaged = ROLLOUT.as_bytes().to_vec();
        for line in junk {
            damaged.extend_from_slice(format!("\n~{line}").as_bytes());
        }
        damaged.extend_from_slice(b"\n\xff\xfe{\"type\":");
        let outcome = run(&[started()], Some(&damaged));
        prop_assert_eq!((&outcome.context, &outcome.model), (&clean.context, &clean.model));
    }
}

#[test]
fn every_captured_line_cut_at_every_byte_is_read_or_ignored() {
    for text in [TOOL_CALL, FAILED] {
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let mut parser = CodexParser::new();
            for earlier in &lines[..n] {
                parser.feed(earlier);
            }
            for cut in (0..line.len()).filter(|c| line.is_char_boundary(*c)) {
                parser.feed(&line[..cut]);
            }
        }
        let cut_short = run(&lines[..lines.len() - 1], None);
        assert!(explained(&cut_short), "{cut_short:?}");
    }
}

#[test]
fn a_rollout_whose_last_line_is_torn_anywhere_reads_as_before() {
    // The capture's last line is `task_complete`: the facts come from the lines before it.
    let lines: Vec<&str> = ROLLOUT.lines().collect();
    let full = run(&[started()], Some(ROLLOUT.as_bytes()));
    assert!(full.context.is_some(), "the capture has a token count");
    let last = lines[lines.len() - 1].as_bytes();
    let before = lines[..lines.len() - 1].join("\n");
    for cut in (0..last.len()).step_by(11) {
        let mut torn = format!("{before}\n").into_bytes();
        torn.extend_from_slice(&last[..cut]);
        let outcome = run(&[started()], Some(&torn));
        assert_eq!(
            (&outcome.context, &outcome.model),
            (&full.context, &full.model),
            "cut at {cut}"
        );
    }
}

#[test]
fn hostile_lines_are_ignored() {
    let mut lines = gen::hostile_lines();
    lines.insert(0, started());
    let hostile = gen::hostile_lines().join("\n");
    let outcome = run(&lines, Some(hostile.as_bytes()));
    assert!(explained(&outcome), "{outcome:?}");
    assert_eq!(outcome.context, None);
}
