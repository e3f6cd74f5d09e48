use super::*;
use pretty_assertions::assert_eq;

const CAPTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/captures/approvals/codex/"
);

fn messages(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{CAPTURES}{name}")).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// What the inbox reads of the capture `case`'s requests: (tool, target, write).
fn asked_in(case: &str) -> Vec<(String, String, bool)> {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let mut changes = Changes::default();
    let mut out = Vec::new();
    for m in messages(&format!("{case}.stdout.jsonl")) {
        changes.note(&m);
        if let Some(a) = asked(&m, &changes, &tx) {
            out.push((a.tool, a.target, a.write));
        }
    }
    out
}

#[test]
fn the_captured_requests_read_as_the_tool_and_its_target() {
    let rows = [
        (
            "write-outside-decline",
            vec![(PATCH_TOOL, "/home/dev/world/outside.txt", true)],
        ),
        (
            "untrusted-bash",
            vec![(COMMAND_TOOL, "cat /etc/hostname", false)],
        ),
        ("write-inside", vec![]),
        ("bash-outside-decline", vec![]),
        (
            "decline-then-steer",
            vec![(PATCH_TOOL, "/tmp/h40cap/outside.txt", true)],
        ),
    ];
    for (case, want) in rows {
        let want: Vec<_> = want
            .into_iter()
            .map(|(t, p, w)| (t.to_string(), p.to_string(), w))
            .collect();
        assert_eq!(asked_in(case), want, "{case}");
    }
}

#[test]
fn a_notification_or_an_answer_is_no_request() {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let changes = Changes::default();
    for m in [
        json!({"method": "item/fileChange/requestApproval", "params": {}}),
        json!({"id": 3, "result": {}}),
        json!({"id": 0, "method": "item/tool/requestUserInput", "params": {}}),
    ] {
        assert!(asked(&m, &changes, &tx).is_none(), "{m}");
    }
}

#[test]
fn the_answers_are_the_lines_the_capture_wrote() {
    let sent = messages("decline-then-steer.sent.jsonl");
    let request = messages("decline-then-steer.stdout.jsonl")
        .into_iter()
        .find(is_approval)
        .unwrap();
    let (thread, turn) = (
        request["params"]["threadId"].as_str().unwrap(),
        request["params"]["turnId"].as_str().unwrap(),
    );
    let reason = "REASON-XYZ: write it under docs/ instead";
    let lines = answer_lines(
        &request["id"],
        thread,
        turn,
        &Verdict::Deny {
            message: reason.into(),
        },
    );
    let got: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The capture's lines, but for the JSON-RPC version field and the steer's own id.
    let decision = sent
        .iter()
        .find(|m| m["result"]["decision"].is_string())
        .unwrap();
    let steer = sent.iter().find(|m| m["method"] == "turn/steer").unwrap();
    assert_eq!(got[0]["result"], decision["result"]);
    assert_eq!(got[0]["id"], decision["id"]);
    assert_eq!(got[1]["params"], steer["params"]);
    assert_eq!(got[1]["id"], "baton-deny-0");
    let allow = answer_lines(&json!(7), thread, turn, &Verdict::Allow);
    assert_eq!(
        allow,
        vec!["{\"id\":7,\"result\":{\"decision\":\"accept\"}}\n"]
    );
}

#[test]
fn the_command_is_shown_without_its_shell_wrapper_when_it_is_plain() {
    for (shown, want) in [
        ("/bin/bash -lc 'cat /etc/hostname'", "cat /etc/hostname"),
        ("/bin/bash -lc ls", "/bin/bash -lc ls"),
        ("/bin/bash -lc 'a'\\''b'", "/bin/bash -lc 'a'\\''b'"),
    ] {
        assert_eq!(command_of(&json!({ "command": shown })), want, "{shown}");
    }
}
