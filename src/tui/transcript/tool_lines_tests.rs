//! Tests of a tool call's lines, folded and expanded.
use super::*;
use crate::tui::transcript::ToolOutput;
use pretty_assertions::assert_eq;

fn texts(tool: &ToolPart, width: usize, expand: bool) -> Vec<String> {
    let mut out = Rows::default();
    tool_lines(tool, 0, width, expand, &mut out);
    out.lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

fn edit_call() -> ToolPart {
    ToolPart {
        summary: "Edit src/server.rs".into(),
        id: Some("t1".into()),
        edits: vec![FileEdit {
            path: "src/server.rs".into(),
            old: "fn a() {\n    old();\n}\n".into(),
            new: "fn a() {\n    new();\n    more();\n}\n".into(),
        }],
        result: Some(ToolOutput {
            text: "updated".into(),
            is_error: false,
        }),
        nested: vec![],
    }
}

#[test]
fn folded_is_one_line_expanded_shows_diff_and_result() {
    let call = edit_call();
    assert_eq!(texts(&call, 40, false), vec!["  ⚙ Edit src/server.rs"]);
    assert_eq!(
        texts(&call, 40, true),
        vec![
            "  ⚙ Edit src/server.rs",
            "    -     old();",
            "    +     new();",
            "    +     more();",
            "    └ updated",
        ]
    );
}

#[test]
fn long_results_are_cut_with_a_count_and_failures_marked() {
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let call = ToolPart {
        summary: "Bash cargo test".into(),
        result: Some(ToolOutput {
            text,
            is_error: true,
        }),
        ..ToolPart::default()
    };
    assert_eq!(texts(&call, 40, false), vec!["  ⚙ Bash cargo test ✗"]);
    let lines = texts(&call, 40, true);
    assert_eq!(lines.len(), 1 + RESULT_LINES + 1, "{lines:?}");
    assert_eq!(lines[1], "    └ line 1");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("      … 4 more lines")
    );
}

#[test]
fn subagent_work_is_nested_under_its_call() {
    let call = ToolPart {
        summary: "Task Find the tests".into(),
        id: Some("t2".into()),
        nested: vec![
            Part::Tool(ToolPart::named("Grep #[test]")),
            Part::Text("Found one test.\nIn a.rs.".into()),
        ],
        ..ToolPart::default()
    };
    assert_eq!(
        texts(&call, 40, false),
        vec![
            "  ⚙ Task Find the tests",
            "    ⚙ Grep #[test]",
            "    │ Found one test."
        ]
    );
    assert_eq!(
        texts(&call, 40, true)[2..],
        ["    │ Found one test.", "      In a.rs."]
    );
}

#[test]
fn changed_lines_leave_out_the_shared_start_and_end() {
    assert_eq!(changed("a\nb\nc", "a\nx\nc"), (vec!["b"], vec!["x"]));
    assert_eq!(changed("", "new\n"), (vec![], vec!["new"]));
    assert_eq!(changed("same", "same"), (vec![], vec![]));
}

#[test]
fn removed_lines_are_red_and_added_ones_green() {
    let mut out = Rows::default();
    tool_lines(&edit_call(), 0, 40, true, &mut out);
    let color_of = |needle: &str| {
        out.lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .find(|s| s.content.contains(needle))
            .and_then(|s| s.style.fg)
    };
    assert_eq!(color_of("old();"), Some(Color::Red));
    assert_eq!(color_of("new();"), Some(Color::Green));
    assert_eq!(color_of("updated"), Some(Color::DarkGray));
}
