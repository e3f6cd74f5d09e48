//! The parsers against the real CLIs' tool use (`fixtures/captures/tools/`, its README says how
//! they were made): targets relative to the checkout, results, edits, refusals and a subagent's
//! steps under its call, for Claude 2.1.332 and 2.1.197 and Codex.
use super::claude::ClaudeParser;
use super::codex::CodexParser;
use crate::words::{FileEdit, TurnEvent, TurnStatus};
use pretty_assertions::assert_eq;
use std::path::Path;

const CHECKOUT: &str = "/home/dev/proj";
const VERSIONS: [&str; 2] = ["2.1.332", "2.1.197"];

fn capture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/tools")
        .join(format!("{name}.stdout.jsonl"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The capture's events without the answer's pieces and usage (the answer is checked whole),
/// and the parser's answer.
fn claude_events(name: &str) -> (Vec<TurnEvent>, String) {
    let mut parser = ClaudeParser::in_dir(Path::new(CHECKOUT));
    let events = capture(name)
        .lines()
        .flat_map(|l| parser.feed(l))
        .filter(|e| !matches!(e, TurnEvent::Delta { .. } | TurnEvent::Usage { .. }))
        .filter(|e| !matches!(e, TurnEvent::Session { .. }))
        .collect();
    let exit = super::process::ExitInfo::default();
    let home = super::testing::home();
    let outcome = parser.finish(&exit, &home.homes, Path::new(CHECKOUT));
    (events, outcome.answer)
}

fn tool(id: &str, name: &str, summary: &str, parent: Option<&str>) -> TurnEvent {
    TurnEvent::ToolUse {
        name: name.into(),
        summary: summary.into(),
        id: Some(id.into()),
        parent: parent.map(Into::into),
        edits: Vec::new(),
    }
}

fn result(id: &str, output: &str, is_error: bool, parent: Option<&str>) -> TurnEvent {
    TurnEvent::ToolResult {
        id: id.into(),
        output: output.into(),
        is_error,
        parent: parent.map(Into::into),
    }
}

fn with_edit(event: TurnEvent, path: &str, old: &str, new: &str) -> TurnEvent {
    match event {
        TurnEvent::ToolUse {
            name,
            summary,
            id,
            parent,
            ..
        } => TurnEvent::ToolUse {
            name,
            summary,
            id,
            parent,
            edits: vec![FileEdit {
                path: path.into(),
                old: old.into(),
                new: new.into(),
            }],
        },
        other => other,
    }
}

fn completed() -> TurnEvent {
    TurnEvent::End {
        status: TurnStatus::Completed,
        error: None,
    }
}

/// The ids the stand-in gave a capture's calls: `toolu_standin_<n>`, n counted over the run.
fn ids(events: &[TurnEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolUse { id, .. } => id.clone(),
            _ => None,
        })
        .collect()
}

#[test]
fn real_claude_edits_read_like_the_cli() {
    for version in VERSIONS {
        let (events, answer) = claude_events(&format!("claude-edits-{version}"));
        let id = ids(&events);
        assert_eq!(id.len(), 4, "{version}");
        let edit_note = " has been updated successfully. (file state is current in your \
                         context — no need to Read it back)";
        let write_note = " (file state is current in your context — no need to Read it back)";
        assert_eq!(
            events,
            vec![
                tool(&id[0], "Read", "Read a.txt", None),
                result(&id[0], "1\told line\n2\tsecond\n3\t", false, None),
                with_edit(
                    tool(&id[1], "Edit", "Edit a.txt", None),
                    "a.txt",
                    "old line",
                    "new line"
                ),
                result(
                    &id[1],
                    &format!("The file {CHECKOUT}/a.txt{edit_note}"),
                    false,
                    None
                ),
                with_edit(
                    tool(&id[2], "Write", "Write b.txt", None),
                    "b.txt",
                    "",
                    "written by standin\n"
                ),
                result(
                    &id[2],
                    &format!("File created successfully at: {CHECKOUT}/b.txt{write_note}"),
                    false,
                    None
                ),
                tool(&id[3], "Bash", "Bash ls", None),
                result(&id[3], "a.txt\nb.txt", false, None),
                completed(),
            ],
            "{version}"
        );
        assert!(answer.starts_with("STANDIN-REPLY #"), "{version}: {answer}");
    }
}

#[test]
fn real_claude_denials_are_refusals_with_the_cli_s_own_texts() {
    for version in VERSIONS {
        let (events, _) = claude_events(&format!("claude-deny-{version}"));
        let id = ids(&events);
        assert_eq!(id.len(), 2, "{version}");
        let outside = "/home/dev/world/outside.txt";
        let asked = format!(
            "Claude requested permissions to write to {outside}, but you haven't granted it yet."
        );
        assert_eq!(
            events,
            vec![
                tool(&id[0], "Bash", "Bash cargo build", None),
                result(&id[0], "This command requires approval", true, None),
                with_edit(
                    tool(&id[1], "Write", "Write ../outside.txt", None),
                    "../outside.txt",
                    "",
                    "written by standin\n"
                ),
                result(&id[1], &asked, true, None),
                // The denial's input is the path the CLI resolved, not the call's own.
                TurnEvent::Denied {
                    tool: "Bash".into(),
                    target: "cargo build".into()
                },
                TurnEvent::Denied {
                    tool: "Write".into(),
                    target: outside.into()
                },
                completed(),
            ],
            "{version}"
        );
    }
}

/// A foreground subagent (2.1.197's default; 2.1.332 with `run_in_background: false`): its
/// steps under the `Agent` call, before the call's result. Neither version prints a line for the
/// subagent's own answer: it is only in the call's result.
#[test]
fn real_claude_foreground_subagent_nests_under_its_call() {
    for name in [
        "claude-subagent-2.1.197",
        "claude-subagent-fg-2.1.197",
        "claude-subagent-fg-2.1.332",
    ] {
        let (events, answer) = claude_events(name);
        let id = ids(&events);
        assert_eq!(id.len(), 2, "{name}");
        let agent = id[0].as_str();
        let expected = vec![
            tool(agent, "Agent", "Agent Look around", None),
            tool(&id[1], "Read", "Read a.txt", Some(agent)),
            result(&id[1], "1\told line\n2\tsecond\n3\t", false, Some(agent)),
        ];
        let (head, tail) = events.split_at(expected.len());
        assert_eq!(head, expected.as_slice(), "{name}");
        match &tail[0] {
            TurnEvent::ToolResult {
                id, output, parent, ..
            } => {
                assert_eq!((id.as_str(), parent), (agent, &None), "{name}");
                assert!(output.contains("Subagent done: Look around"), "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(&tail[1..], [completed()], "{name}");
        // The subagent's words are never the answer.
        assert!(!answer.contains("Subagent done"), "{name}: {answer}");
    }
}

/// 2.1.332 runs an `Agent` call in the background by default: the call's result comes at once,
/// the subagent's steps later (after the answer here), then a follow-up turn of the CLI's own
/// with a second `init` and `result`: one end, the follow-up's text in the answer.
#[test]
fn real_claude_background_subagent_ends_the_turn_once() {
    let (events, answer) = claude_events("claude-subagent-2.1.332");
    let id = ids(&events);
    assert_eq!(id.len(), 2);
    let agent = id[0].as_str();
    assert_eq!(events[0], tool(agent, "Agent", "Agent Look around", None));
    match &events[1] {
        TurnEvent::ToolResult { id, output, .. } => {
            assert_eq!(id, agent);
            assert!(output.starts_with("Async agent launched successfully."));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        events[2..],
        [
            tool(&id[1], "Read", "Read a.txt", Some(agent)),
            result(&id[1], "1\told line\n2\tsecond\n3\t", false, Some(agent)),
            TurnEvent::SubagentText {
                parent: agent.into(),
                text: "Subagent done: Look around".into(),
            },
            completed(),
        ]
    );
    let mut parser = ClaudeParser::in_dir(Path::new(CHECKOUT));
    let sessions = capture("claude-subagent-2.1.332")
        .lines()
        .flat_map(|l| parser.feed(l))
        .filter(|e| matches!(e, TurnEvent::Session { .. }))
        .count();
    assert_eq!(sessions, 1, "the follow-up's init says nothing new");
    let pieces: Vec<&str> = answer.split("\n\n").collect();
    assert_eq!(pieces.len(), 2, "{answer}");
    assert!(pieces[0].ends_with("last_user=look around [[tool:Task:Look around]]"));
}

#[test]
fn real_codex_patches_and_commands_read_like_the_cli() {
    let mut parser = CodexParser::in_dir(Path::new(CHECKOUT));
    let events: Vec<TurnEvent> = capture("codex-edits")
        .lines()
        .flat_map(|l| parser.feed(l))
        .filter(|e| !matches!(e, TurnEvent::Session { .. } | TurnEvent::Text { .. }))
        .collect();
    // `codex exec --json` names a patch's files and kinds only: no diff to show, and the result
    // says where to see it.
    let applied = super::codex::PATCH_APPLIED;
    assert_eq!(
        events,
        vec![
            tool("item_0", "patch", "Edit a.txt", None),
            result("item_0", applied, false, None),
            tool("item_1", "patch", "Add b.txt", None),
            result("item_1", applied, false, None),
            tool("item_2", "shell", "Shell ls", None),
            result("item_2", "a.txt\nb.txt\n", false, None),
            completed(),
        ]
    );
}
