//! The CLIs' own session files as baton reads and rewrites them: Claude's
//! (`providers::claude::session`: prompts, cut points, `prompt_snapshot` rewrites) and Codex's
//! rollouts (`providers::codex::rollout`: `history_base`, developer message rewrites). Random
//! bytes, captured lines mutated, chains with loops; rewrites keep every other byte.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::gen;
use crate::providers::claude::session as claude_session;
use crate::providers::codex::rollout as codex_rollout;

const SESSION: &str = include_str!(
    "../../fixtures/captures/claude-code/sessions/v2.1.197-hello-49557436-d9e3-4bce-8089-ed1f5437ce4e.jsonl"
);
const FORK_ROLLOUT: &str = include_str!(
    "../../fixtures/captures/fork/codex/rollout-2026-12-01T09-48-56-01a23101-e08b-7ae2-918c-0aa04750d2a8.jsonl"
);

/// A chain entry of a small pool of uuids, so that parents point at each other (and loop).
fn entry() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["user", "assistant", "system", "attachment", "summary"]),
        0u8..6,
        prop::option::of(0u8..6),
        prop_oneof![gen::text().prop_map(Value::String), gen::value()],
        any::<bool>(),
    )
        .prop_map(|(kind, uuid, parent, content, sidechain)| {
            json!({"type": kind, "uuid": format!("u{uuid}"),
                   "parentUuid": parent.map(|p| format!("u{p}")),
                   "isSidechain": sidechain, "message": {"role": "user", "content": content}})
        })
}

/// Every line of `out` is the line of `input` at the same place, except lines `changed` allows.
fn same_lines_but(
    input: &[u8],
    out: &[u8],
    changed: impl Fn(&[u8]) -> bool,
) -> Result<(), TestCaseError> {
    let before: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    let after: Vec<&[u8]> = out.split(|b| *b == b'\n').collect();
    prop_assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        if b != a {
            prop_assert!(changed(b), "an unpicked line changed");
            let parsed = serde_json::from_slice::<Value>(a);
            prop_assert!(parsed.is_ok(), "a rewritten line no longer parses");
        }
    }
    Ok(())
}

fn session_lines() -> Vec<Value> {
    gen::json_lines(SESSION)
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn prompts_of_random_text_never_panic(text in "\\PC{0,200}", keep in 0usize..4, next in gen::text()) {
        let prompts = claude_session::prompts(&text);
        let cut = claude_session::cut_in(&text, "s", keep, &next);
        if let Ok(parent) = cut {
            prop_assert_eq!(Some(parent), prompts[keep].parent.clone());
        }
    }

    #[test]
    fn chains_with_loops_and_gaps_end(entries in prop::collection::vec(entry(), 0..12)) {
        let text: Vec<String> = entries.iter().map(Value::to_string).collect();
        let prompts = claude_session::prompts(&text.join("\n"));
        let mut uuids: Vec<&str> = prompts.iter().map(|p| p.uuid.as_str()).collect();
        let all = uuids.len();
        uuids.sort_unstable();
        uuids.dedup();
        prop_assert_eq!(uuids.len(), all, "a prompt is on the chain once");
    }

    #[test]
    fn a_captured_session_with_lines_mutated_never_panics(
        lines in prop::collection::vec(gen::mutated_line(session_lines()), 1..6),
        keep in 0usize..3,
    ) {
        let mut text: Vec<String> = SESSION.lines().map(str::to_owned).collect();
        text.extend(lines);
        let text = text.join("\n");
        let _ = claude_session::cut_in(&text, "s", keep, "hello");
    }

    #[test]
    fn snapshot_rewrites_change_only_picked_lines(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        old in gen::text(),
        new in gen::text(),
    ) {
        let out = claude_session::rewrite_snapshots(&bytes, &old, &new);
        same_lines_but(&bytes, &out, |_| false)?;
    }

    #[test]
    fn snapshot_rewrites_keep_every_line_parsing(
        parts in prop::collection::vec(gen::text(), 1..4),
        pick in any::<prop::sample::Index>(),
        new in gen::text(),
    ) {
        let old = parts[pick.index(parts.len())].clone();
        let snapshot = json!({"type": "attachment",
            "attachment": {"type": "prompt_snapshot", "systemPrompt": parts}}).to_string();
        let input = format!("{SESSION}{snapshot}\n{snapshot}");
        let out = claude_session::rewrite_snapshots(input.as_bytes(), &old, &new);
        same_lines_but(input.as_bytes(), &out, |l| l == snapshot.as_bytes())?;
        let last = out.split(|b| *b == b'\n').next_back().unwrap_or_default();
        let parts: Value = serde_json::from_slice::<Value>(last).unwrap()["attachment"]["systemPrompt"].clone();
        prop_assert!(parts.as_array().unwrap().iter().any(|p| p == &json!(new)));
    }

    #[test]
    fn rollout_readers_take_any_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        old in gen::text(),
        new in gen::text(),
    ) {
        let _ = codex_rollout::history_base(&bytes);
        let out = codex_rollout::rewrite_developer(&bytes, &old, &new);
        same_lines_but(&bytes, &out, |_| false)?;
    }

    #[test]
    fn a_fork_rollout_with_its_first_line_mutated_never_panics(
        first in gen::mutated_line(gen::json_lines(FORK_ROLLOUT).into_iter().take(1).collect()),
    ) {
        let rest = FORK_ROLLOUT.split_once('\n').map_or("", |(_, r)| r);
        let _ = codex_rollout::history_base(format!("{first}\n{rest}").as_bytes());
    }

    #[test]
    fn developer_rewrites_keep_every_line_parsing(old in gen::text(), new in gen::text()) {
        let dev = json!({"type": "response_item", "payload": {"type": "message", "role": "developer",
            "content": [{"type": "input_text", "text": old}, {"type": "input_text", "text": "<skills>"}]}})
        .to_string();
        let input = format!("{FORK_ROLLOUT}{dev}\n");
        let out = codex_rollout::rewrite_developer(input.as_bytes(), &old, &new);
        same_lines_but(input.as_bytes(), &out, |l| l == dev.as_bytes())?;
    }
}

#[test]
fn the_captured_fork_rollout_names_its_base_through_every_cut_of_its_later_lines() {
    let base = codex_rollout::history_base(FORK_ROLLOUT.as_bytes());
    assert!(base.is_some(), "the capture is a fork");
    let first = FORK_ROLLOUT.find('\n').unwrap() + 1;
    for cut in (first..FORK_ROLLOUT.len()).step_by(5) {
        assert_eq!(
            codex_rollout::history_base(&FORK_ROLLOUT.as_bytes()[..cut]),
            base
        );
    }
    for cut in 0..first - 1 {
        assert_eq!(
            codex_rollout::history_base(&FORK_ROLLOUT.as_bytes()[..cut]),
            None
        );
    }
}

/// Found by `snapshot_rewrites_keep_every_line_parsing`: the old text `:` was replaced as the
/// characters `":"`, which also sit between every key and string value, and broke the line.
#[test]
fn a_rewrite_changes_string_values_only_never_the_punctuation_between_them() {
    let line =
        r#"{"type":"attachment","attachment":{"type":"prompt_snapshot","systemPrompt":[":"]}}"#;
    let out = claude_session::rewrite_snapshots(line.as_bytes(), ":", "new");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"type":"attachment","attachment":{"type":"prompt_snapshot","systemPrompt":["new"]}}"#
    );
    // Nor a key that happens to read the same.
    let line =
        r#"{"type":"attachment","attachment":{"type":"prompt_snapshot","systemPrompt":["type"]}}"#;
    let out = claude_session::rewrite_snapshots(line.as_bytes(), "type", "T");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"type":"attachment","attachment":{"type":"prompt_snapshot","systemPrompt":["T"]}}"#
    );
}

/// The CLI may escape the text otherwise than serde_json does (`\u00e9` for `é`, `\/`): the
/// value is compared decoded.
#[test]
fn a_rewrite_finds_the_text_however_it_was_escaped() {
    let line = r#"{"type":"attachment","attachment":{"type":"prompt_snapshot","systemPrompt":["caf\u00e9 a\/b"]}}"#;
    let out = claude_session::rewrite_snapshots(line.as_bytes(), "café a/b", "new");
    assert!(String::from_utf8(out).unwrap().contains(r#"["new"]"#));
}

#[test]
fn hostile_session_lines_are_skipped() {
    let text = gen::hostile_lines().join("\n");
    assert_eq!(claude_session::prompts(&text), vec![]);
    assert_eq!(codex_rollout::history_base(text.as_bytes()), None);
}
