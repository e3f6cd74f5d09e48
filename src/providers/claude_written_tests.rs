use std::time::Duration;

use serde_json::Value;

use super::*;
use crate::providers::claude::tests::{capture, home, Home};
use crate::providers::claude::ClaudeParser;

const SID: &str = "49557436-d9e3-4bce-8089-ed1f5437ce4e";

/// The real 2.1.197 turn's stream, each line through `edit`, as a parser's check.
fn check_of(home: &Home, edit: impl Fn(&mut Value)) -> TurnWritten {
    let mut parser = ClaudeParser::in_dir(&home.cwd);
    for line in capture("v197-hello.stdout").lines() {
        let mut value: Value = serde_json::from_str(line).unwrap();
        edit(&mut value);
        parser.feed(&value.to_string());
    }
    parser.written_check(&home.homes, &home.cwd).unwrap()
}

/// The real 2.1.197 session file of that turn, its lines through `keep`.
fn session_lines(keep: impl Fn(&Value) -> bool) -> String {
    capture(&format!("sessions/v2.1.197-hello-{SID}.jsonl"))
        .lines()
        .filter(|l| keep(&serde_json::from_str(l).unwrap()))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn is_assistant(v: &Value) -> bool {
    v["type"] == "assistant"
}

/// The same assistant entry under another message id: an earlier call of the same size.
fn earlier_call() -> String {
    session_lines(is_assistant).replace("msg_mock_4_f1c611e9", "msg_mock_3_earlier")
}

#[test]
fn a_turn_is_written_once_its_session_file_holds_its_last_call() {
    let no_id = |v: &mut Value| {
        if let Some(m) = v.get_mut("message").and_then(Value::as_object_mut) {
            m.remove("id");
        }
    };
    let cases: [(&str, bool, Option<String>, bool); 6] = [
        ("no session file yet", true, None, false),
        (
            "the file without the turn's call",
            true,
            Some(session_lines(|v| !is_assistant(v))),
            false,
        ),
        ("the whole turn", true, Some(session_lines(|_| true)), true),
        (
            "an earlier call of the same size, by its id",
            true,
            Some(earlier_call()),
            false,
        ),
        (
            "a stream without ids: the call's counts",
            false,
            Some(session_lines(|_| true)),
            true,
        ),
        (
            "a stream without ids, the file without the call",
            false,
            Some(session_lines(|v| !is_assistant(v))),
            false,
        ),
    ];
    for (what, ids, file, written) in cases {
        let h = home();
        let check = if ids {
            check_of(&h, |_| {})
        } else {
            check_of(&h, no_id)
        };
        if let Some(text) = file {
            let path = crate::providers::claude::session_file(&h.homes, &h.cwd, SID);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        assert_eq!(check.is_written(), written, "{what}");
    }
}

#[tokio::test]
async fn the_wait_ends_when_the_cli_writes_and_gives_up_after_its_bound() {
    let h = home();
    let check = check_of(&h, |_| {});
    assert!(!check.clone().wait(Duration::from_millis(20)).await);
    let path = crate::providers::claude::session_file(&h.homes, &h.cwd, SID);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // The CLI writes while the wait runs: it sees the file once the write is done.
    let (wrote_tx, wrote_rx) = std::sync::mpsc::channel();
    let writer = std::thread::spawn(move || {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, session_lines(|_| true)).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        wrote_tx.send(()).unwrap();
    });
    assert!(check.wait(Duration::from_secs(30)).await);
    wrote_rx.recv().unwrap();
    writer.join().unwrap();
}
