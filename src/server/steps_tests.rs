//! Tests of reading a finished turn back from the real CLIs' raw streams.

use std::path::Path;

use super::read_back;
use crate::words::{ProviderKind, TurnEvent};

fn capture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/captures/tools")
        .join(format!("{name}.stdout.jsonl"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn summaries(events: &[TurnEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolUse { summary, .. } => Some(summary.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_raw_stream_reads_back_as_the_steps_a_watching_client_drew() {
    let cwd = Path::new("/home/dev/proj");
    for (capture_name, provider, tools) in [
        (
            "claude-edits-2.1.332",
            ProviderKind::Claude,
            &["Read a.txt", "Edit a.txt", "Write b.txt", "Bash ls"][..],
        ),
        (
            "claude-edits-2.1.197",
            ProviderKind::Claude,
            &["Read a.txt", "Edit a.txt", "Write b.txt", "Bash ls"][..],
        ),
    ] {
        let events = read_back(&capture(capture_name), provider, cwd);
        assert_eq!(summaries(&events), tools, "{capture_name}");
        let results = events
            .iter()
            .filter(|e| matches!(e, TurnEvent::ToolResult { .. }))
            .count();
        assert_eq!(results, tools.len(), "{capture_name}");
        // What the log keeps whole is left out; the answer's pieces are in.
        assert!(
            events.iter().all(|e| !matches!(
                e,
                TurnEvent::Session { .. } | TurnEvent::Usage { .. } | TurnEvent::End { .. }
            )),
            "{capture_name}"
        );
        assert!(
            events
                .iter()
                .any(|e| matches!(e, TurnEvent::Delta { .. } | TurnEvent::Text { .. })),
            "{capture_name}"
        );
    }
    let codex = read_back(&capture("codex-edits"), ProviderKind::Codex, cwd);
    assert!(!summaries(&codex).is_empty());
    // Refusals come back too.
    let denied = read_back(&capture("claude-deny-2.1.332"), ProviderKind::Claude, cwd);
    assert!(denied.iter().any(|e| matches!(e, TurnEvent::Denied { .. })));
    // A local endpoint's turn has no CLI stream; garbage reads as nothing.
    assert!(read_back("{\"x\":1}\n", ProviderKind::Local, cwd).is_empty());
    assert!(read_back("not json\n\u{0}\n", ProviderKind::Claude, cwd).is_empty());
}
