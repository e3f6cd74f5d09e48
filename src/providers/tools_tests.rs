//! Tests of tool summaries, targets, edits and result texts.
use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn claude_summaries_name_the_tool_and_its_target() {
    let cwd = Some(Path::new("/w/proj"));
    let rows = [
        (
            "Read",
            json!({"file_path": "/w/proj/src/main.rs"}),
            "Read src/main.rs",
        ),
        (
            "Edit",
            json!({"file_path": "/w/proj/src/server.rs", "old_string": "x"}),
            "Edit src/server.rs",
        ),
        (
            "Write",
            json!({"file_path": "/tmp/out.txt"}),
            "Write /tmp/out.txt",
        ),
        (
            "MultiEdit",
            json!({"file_path": "/w/proj/a.rs"}),
            "MultiEdit a.rs",
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "/w/proj/n.ipynb"}),
            "NotebookEdit n.ipynb",
        ),
        ("Bash", json!({"command": "cargo test"}), "Bash cargo test"),
        (
            "Bash",
            json!({"command": "cargo test\necho done"}),
            "Bash cargo test…",
        ),
        ("Grep", json!({"pattern": "fn main"}), "Grep fn main"),
        (
            "Grep",
            json!({"pattern": "TODO", "path": "/w/proj/src"}),
            "Grep TODO in src",
        ),
        ("Glob", json!({"pattern": "**/*.rs"}), "Glob **/*.rs"),
        (
            "WebFetch",
            json!({"url": "https://x.dev/a"}),
            "WebFetch https://x.dev/a",
        ),
        (
            "WebSearch",
            json!({"query": "tokio select"}),
            "WebSearch tokio select",
        ),
        (
            "Task",
            json!({"description": "Find the tests", "prompt": "…"}),
            "Task Find the tests",
        ),
        (
            "Agent",
            json!({"prompt": "look around"}),
            "Agent look around",
        ),
        (
            "TodoWrite",
            json!({"todos": []}),
            "TodoWrite {\"todos\":[]}",
        ),
        ("Read", json!({}), "Read"),
    ];
    for (name, input, want) in rows {
        assert_eq!(claude_summary(name, &input, cwd), want, "{name} {input}");
    }
    let long = json!({"command": "x".repeat(100)});
    assert_eq!(
        claude_summary("Bash", &long, cwd),
        format!("Bash {}…", "x".repeat(80))
    );
}

#[test]
fn paths_inside_the_checkout_are_relative() {
    let cwd = Some(Path::new("/w/proj"));
    assert_eq!(relative("/w/proj/a/b.rs", cwd), "a/b.rs");
    assert_eq!(relative("/w/proj", cwd), ".");
    assert_eq!(relative("/w/project/x", cwd), "/w/project/x");
    assert_eq!(relative("/w/proj/x", None), "/w/proj/x");
}

#[test]
fn edits_of_edit_multiedit_and_write() {
    let cwd = Some(Path::new("/w"));
    let e = |path: &str, old: &str, new: &str| FileEdit {
        path: path.into(),
        old: old.into(),
        new: new.into(),
    };
    let rows = [
        (
            "Edit",
            json!({"file_path": "/w/a.rs", "old_string": "a", "new_string": "b"}),
            vec![e("a.rs", "a", "b")],
        ),
        (
            "MultiEdit",
            json!({"file_path": "/w/a.rs", "edits": [
                {"old_string": "1", "new_string": "2"}, {"old_string": "3", "new_string": "4"}]}),
            vec![e("a.rs", "1", "2"), e("a.rs", "3", "4")],
        ),
        (
            "Write",
            json!({"file_path": "/w/n.txt", "content": "hello\n"}),
            vec![e("n.txt", "", "hello\n")],
        ),
        ("Read", json!({"file_path": "/w/a.rs"}), vec![]),
        ("Edit", json!({"old_string": "a"}), vec![]),
    ];
    for (name, input, want) in rows {
        assert_eq!(claude_edits(name, &input, cwd), want, "{name}");
    }
}

#[test]
fn big_texts_are_capped_with_a_note() {
    let input = json!({"file_path": "/w/a", "old_string": "", "new_string": "é".repeat(5000)});
    let edits = claude_edits("Edit", &input, None);
    assert!(edits[0].new.len() < 4200, "{}", edits[0].new.len());
    assert!(
        edits[0].new.ends_with("more bytes not shown"),
        "{}",
        &edits[0].new[4000..]
    );
    let out = result_text(&json!("x".repeat(10_000)));
    assert!(
        out.ends_with("… 5904 more bytes not shown"),
        "{}",
        &out[4000..]
    );
}

#[test]
fn result_texts_of_strings_and_blocks() {
    assert_eq!(result_text(&json!("1\tline")), "1\tline");
    assert_eq!(
        result_text(
            &json!([{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}])
        ),
        "a\n[image]\nb"
    );
    assert_eq!(result_text(&Value::Null), "");
}

#[test]
fn codex_file_changes_become_edits_hunk_by_hunk() {
    let cwd = Path::new("/w");
    let e = |path: &str, old: &str, new: &str| FileEdit {
        path: path.into(),
        old: old.into(),
        new: new.into(),
    };
    let item = |changes: Value| json!({"type": "fileChange", "id": "c", "changes": changes});
    let cases = vec![
        (
            json!([{"path": "/w/new.txt", "kind": {"type": "add"}, "diff": "written by standin\n"}]),
            vec![e("new.txt", "", "written by standin\n")],
        ),
        (
            json!([{"path": "/w/a.txt", "kind": {"type": "update", "move_path": null}, "diff": "@@ -1,2 +1,2 @@\n project\n-old line\n+new line\n"}]),
            vec![e("a.txt", "project\nold line\n", "project\nnew line\n")],
        ),
        (
            json!([{"path": "/w/b.rs", "kind": {"type": "update"}, "diff": "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n@@ -9 +9 @@\n-x\n+y\n"}]),
            vec![e("b.rs", "a\n", "b\n"), e("b.rs", "x\n", "y\n")],
        ),
        (
            json!([{"path": "/w/gone.txt", "kind": {"type": "delete"}, "diff": "bye\n"}]),
            vec![e("gone.txt", "bye\n", "")],
        ),
        // exec --json's shape: no diff, no edits.
        (json!([{"path": "/w/a.txt", "kind": "update"}]), vec![]),
        (
            json!([{"path": "/w/a.txt", "kind": {"type": "update"}, "diff": ""}]),
            vec![],
        ),
    ];
    for (changes, want) in cases {
        assert_eq!(
            codex_edits(&item(changes.clone()), Some(cwd)),
            want,
            "{changes}"
        );
    }
}
