use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn rule(tool: &str, target: &str, folder: bool) -> Rule {
    Rule {
        id: "a1".into(),
        tool: tool.into(),
        target: target.into(),
        folder,
    }
}

#[test]
fn a_rule_covers_the_same_tool_on_the_same_target_or_within_a_writes_folder() {
    let rows = [
        (
            rule("Write", "/w/out", true),
            "Write",
            "/w/out/b.txt",
            true,
            true,
        ),
        (
            rule("Write", "/w/out", true),
            "Write",
            "/w/out/sub/c.txt",
            true,
            true,
        ),
        (
            rule("Write", "/w/out", true),
            "Write",
            "/w/outside/b.txt",
            true,
            false,
        ),
        (
            rule("Write", "/w/out", true),
            "Write",
            "/w/out/../etc/x",
            true,
            false,
        ),
        (
            rule("Write", "/w/out", true),
            "Edit",
            "/w/out/b.txt",
            true,
            false,
        ),
        (
            rule("Bash", "cat /etc/hostname", false),
            "Bash",
            "cat /etc/hostname",
            false,
            true,
        ),
        (
            rule("Bash", "cat /etc/hostname", false),
            "Bash",
            "cat /etc/passwd",
            false,
            false,
        ),
        (
            rule("Bash", "cat /etc/hostname", false),
            "Write",
            "cat /etc/hostname",
            false,
            false,
        ),
    ];
    for (r, tool, target, write, want) in rows {
        assert_eq!(r.covers(tool, target, write), want, "{r:?} {tool} {target}");
    }
}

#[test]
fn the_target_is_a_writes_path_a_commands_text_else_the_clis_description() {
    let rows = [
        (
            "Write",
            json!({"file_path": "/a/b", "content": "x"}),
            None,
            ("/a/b", true),
        ),
        ("Edit", json!({"file_path": "/a/c"}), None, ("/a/c", true)),
        (
            "Bash",
            json!({"command": "ls /", "description": "List"}),
            Some("List"),
            ("ls /", false),
        ),
        (
            "WebFetch",
            json!({"url": "u"}),
            Some("fetch u"),
            ("fetch u", false),
        ),
        ("Other", json!({"x": 1}), None, ("{\"x\":1}", false)),
    ];
    for (tool, input, desc, (target, write)) in rows {
        assert_eq!(
            target_of(tool, &input, desc),
            (target.to_string(), write),
            "{tool}"
        );
    }
}

fn asked(id: &str, tool: &str, target: &str, write: bool) -> ApprovalRecord {
    ApprovalRecord::Asked {
        id: id.into(),
        turn_id: "t1".into(),
        tool: tool.into(),
        target: target.into(),
        write,
    }
}

fn answered(id: &str, allow: bool, always: bool) -> ApprovalRecord {
    ApprovalRecord::Answered {
        id: id.into(),
        allow,
        always,
        reason: (!allow).then(|| "no".to_string()),
        by: "user".into(),
    }
}

#[test]
fn the_journal_folds_into_each_requests_state_and_the_rules_in_force() {
    let records = [
        asked("a1", "Write", "/w/out/o.txt", true),
        answered("a1", true, true),
        asked("a2", "Bash", "cat /x", false),
        answered("a2", false, false),
        // a second answer changes nothing
        answered("a2", true, true),
        asked("a3", "Bash", "ls /", false),
        ApprovalRecord::Expired { id: "a3".into() },
        asked("a4", "Bash", "ls /tmp", false),
        answered("a4", true, true),
        ApprovalRecord::RuleRemoved { id: "a4".into() },
        asked("a5", "Write", "/w/x", true),
    ];
    let folded = fold(records.iter().map(|r| ("T", r)));
    let states: Vec<_> = folded.iter().map(|f| (f.id.as_str(), f.state)).collect();
    use ApprovalState::*;
    assert_eq!(
        states,
        vec![
            ("a1", Approved),
            ("a2", Denied),
            ("a3", Expired),
            ("a4", Approved),
            ("a5", Waiting)
        ]
    );
    assert_eq!(folded[1].reason.as_deref(), Some("no"));
    assert_eq!(rules(&folded), vec![rule("Write", "/w/out", true)]);
}

#[test]
fn a_record_reads_back_as_written() {
    let r = answered("a2", false, false);
    let line = serde_json::to_string(&r).unwrap();
    assert_eq!(
        line,
        r#"{"event":"answered","id":"a2","allow":false,"reason":"no","by":"user"}"#
    );
    assert_eq!(serde_json::from_str::<ApprovalRecord>(&line).unwrap(), r);
}
