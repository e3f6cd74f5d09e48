//! Claude's stream-json parser (`providers::claude::ClaudeParser`): random lines, captured
//! streams with one field mutated, every line cut at every byte, hostile lines.

use std::path::Path;

use proptest::prelude::*;

use super::gen::{self, exit, explained};
use crate::providers::claude::ClaudeParser;
use crate::providers::{ProviderHomes, TurnOutcome, TurnStatus};

const TOOLUSE: &str = include_str!("../../fixtures/captures/claude-code/tooluse.stdout");
const PARTIAL: &str = include_str!("../../fixtures/captures/claude-code/out-partial.stdout");

/// Feeds `lines` and finishes against homes that hold no session file.
fn run<S: AsRef<str>>(lines: &[S], code: i32) -> TurnOutcome {
    let mut parser = ClaudeParser::new();
    for line in lines {
        parser.feed(line.as_ref());
    }
    let homes = ProviderHomes {
        claude: "/nonexistent/baton-props/claude".into(),
        codex: "/nonexistent/baton-props/codex".into(),
    };
    parser.finish(
        &exit(code),
        &homes,
        Path::new("/nonexistent/baton-props/cwd"),
    )
}

fn captured() -> Vec<serde_json::Value> {
    let mut lines = gen::json_lines(TOOLUSE);
    lines.extend(gen::json_lines(PARTIAL));
    lines
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn random_lines_never_panic_and_never_complete(lines in prop::collection::vec(gen::text(), 0..8)) {
        let outcome = run(&lines, 0);
        prop_assert_ne!(outcome.status, Some(TurnStatus::Completed));
        prop_assert!(explained(&outcome), "{outcome:?}");
    }

    #[test]
    fn random_json_never_panics(values in prop::collection::vec(gen::value(), 0..8), code in -2i32..3) {
        let lines: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        prop_assert!(explained(&run(&lines, code)));
    }

    #[test]
    fn a_captured_stream_with_fields_mutated_never_panics(
        mutated in prop::collection::vec(gen::mutated_line(captured()), 1..4),
        at in any::<prop::sample::Index>(),
    ) {
        // The mutated lines go in at one point of a real stream.
        let mut lines: Vec<String> = TOOLUSE.lines().map(str::to_owned).collect();
        let i = at.index(lines.len() + 1);
        lines.splice(i..i, mutated);
        prop_assert!(explained(&run(&lines, 0)));
    }
}

#[test]
fn every_line_of_a_captured_stream_cut_at_every_byte_is_read_or_ignored() {
    for text in [TOOLUSE, PARTIAL] {
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            for cut in (0..line.len()).filter(|c| line.is_char_boundary(*c)) {
                let mut parser = ClaudeParser::new();
                for earlier in &lines[..n] {
                    parser.feed(earlier);
                }
                parser.feed(&line[..cut]);
            }
        }
        // A stream cut short (the CLI died) fails, saying so.
        let cut_short = run(&lines[..lines.len() - 1], 0);
        assert!(explained(&cut_short), "{cut_short:?}");
        assert_ne!(cut_short.status, Some(TurnStatus::Completed));
    }
}

#[test]
fn hostile_lines_are_ignored() {
    let outcome = run(&gen::hostile_lines(), 0);
    assert!(explained(&outcome), "{outcome:?}");
    assert_eq!(outcome.answer, "");
}
