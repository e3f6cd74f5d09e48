//! Storage: journal first, index rebuilt identically from it, torn lines tolerated, raw streams
//! kept verbatim.

use std::io::Write;

use pretty_assertions::assert_eq;

use super::common::*;

fn snapshot(w: &World) -> Vec<serde_json::Value> {
    let mut out = vec![w.json(&["ls"])];
    for name in ["a", "b"] {
        out.push(w.json(&["show", name]));
        out.push(w.json(&["log", name]));
        out.push(w.json(&["instructions", name]));
    }
    out
}

fn busy_world() -> World {
    let w = World::new();
    w.new_terminal("a", "claude");
    w.new_terminal("b", "codex");
    w.ok(&["instructions", "a", "add", "Tests go next to the code."]);
    w.send("a", "one [[ctx:460]] [[window:1000]]");
    w.send("a", "two");
    w.ok(&["send", "a", "--provider", "codex", "three"]);
    w.send("b", "four");
    let _ = w.run(&["send", "b", "five [[fail:api]]"]);
    w
}

#[test]
fn reindex_rebuilds_an_identical_index_from_the_journals() {
    let w = busy_world();
    let before = snapshot(&w);
    let report = w.json(&["reindex"]);
    assert_eq!(report["terminals"], 2);
    assert_eq!(report["skipped"], serde_json::json!([]));
    assert_eq!(snapshot(&w), before);
    // Losing the index altogether loses nothing: the server rebuilds it when it starts.
    w.ok(&["server", "stop"]);
    for f in ["index.db", "index.db-wal", "index.db-shm"] {
        let _ = std::fs::remove_file(w.data().join(f));
    }
    assert_eq!(snapshot(&w), before);
}

#[test]
fn an_unreadable_index_is_moved_aside_and_rebuilt_whether_the_server_runs_or_not() {
    use std::os::unix::fs::PermissionsExt;
    let w = busy_world();
    let before = snapshot(&w);
    let garbage: Vec<u8> = (0..5000u32).map(|i| (i * 7 + 13) as u8).collect();
    // Overwritten while no server runs: the next start moves it aside, rebuilds, says so.
    let pid = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
    w.ok(&["server", "stop"]);
    // Until it exits, the server may still write the index (SQLite checkpoints at close).
    w.wait_for("the server to exit", || !process_runs(pid));
    std::fs::write(w.data().join("index.db"), &garbage).unwrap();
    assert_eq!(snapshot(&w), before);
    let aside: Vec<_> = std::fs::read_dir(w.data())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("index.db.unreadable-"))
        .collect();
    assert!(!aside.is_empty(), "nothing moved aside");
    for p in &aside {
        let mode = std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", p.display());
    }
    let log = std::fs::read_to_string(w.data().join("server.log")).unwrap();
    assert!(log.contains("was unreadable"), "{log}");
    // Overwritten under a running server: `baton reindex` (the command its errors name) heals it.
    std::fs::write(w.data().join("index.db"), &garbage).unwrap();
    let report = w.json(&["reindex"]);
    assert_eq!(report["terminals"], 2);
    assert_eq!(snapshot(&w), before);
}

#[test]
fn a_torn_last_journal_line_is_tolerated_and_reported() {
    let w = busy_world();
    let before = snapshot(&w);
    w.ok(&["server", "stop"]);
    let id = before[1]["id"].as_str().unwrap();
    let journal = w.data().join("terminals").join(id).join("journal.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    f.write_all(br#"{"at":"2026-11-29T10:00:00.000Z","type":"instruction_ad"#)
        .unwrap();
    drop(f);
    assert_eq!(snapshot(&w), before);
    let report = w.json(&["reindex"]);
    assert_eq!(report["skipped"].as_array().unwrap().len(), 1);
    // New entries still land on lines of their own.
    w.ok(&["instructions", "a", "add", "Answer in German."]);
    w.json(&["reindex"]);
    assert_eq!(w.show("a")["instructions"].as_array().unwrap().len(), 2);
}

#[test]
fn each_turns_raw_stream_is_kept_verbatim() {
    let w = World::new();
    w.new_terminal("a", "claude");
    w.send("a", "read it [[calls:2]]");
    let show = w.show("a");
    let log = w.json(&["log", "a"]);
    let turn_id = log["turns"][0]["id"].as_str().unwrap();
    let path = w
        .data()
        .join("terminals")
        .join(show["id"].as_str().unwrap())
        .join("turns")
        .join(format!("{turn_id}.jsonl"));
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    // Partial messages (`stream_event`, `system/status`) are kept too, between the messages.
    assert!(kinds.contains(&"stream_event"), "{kinds:?}");
    let messages: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] != "stream_event" && l["subtype"] != "status")
        // The echo of the prompt as Claude read it (`--replay-user-messages`).
        .filter(|l| l["isReplay"] != true)
        .map(|l| l["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        vec!["system", "assistant", "user", "assistant", "result"]
    );
    assert_eq!(lines[0]["session_id"], show["sessions"][0]["session_id"]);
    assert_eq!(log["turns"][0]["tools"].as_array().unwrap().len(), 1);
}

#[test]
fn a_bad_first_journal_line_does_not_hide_the_terminal() {
    let w = busy_world();
    let tid = w.show("a")["id"].as_str().unwrap().to_string();
    let journal = w.data().join("terminals").join(&tid).join("journal.jsonl");
    let pid = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
    w.ok(&["server", "stop"]);
    w.wait_for("the server to exit", || !process_runs(pid));
    let original = std::fs::read(&journal).unwrap();

    // One byte that breaks only the UTF-8 of a string: the line is read, the name kept.
    let mut bytes = original.clone();
    let at = bytes.windows(6).position(|w| w == b"\"at\":\"").unwrap() + 10;
    bytes[at] = 0xff; // a digit of the first record's time
    std::fs::write(&journal, &bytes).unwrap();
    let turns = |w: &World, name: &str| w.json(&["log", name])["turns"].as_array().unwrap().len();
    assert_eq!(turns(&w, "a"), 3);
    let report = w.json(&["reindex"]);
    let skipped = report["skipped"].to_string();
    assert!(
        skipped.contains("journal.jsonl:1: kept with its invalid UTF-8 replaced"),
        "{skipped}"
    );

    // One byte that breaks the JSON: the terminal is still listed, with its turns, its id
    // taken, under a name that says what happened; a rename sticks.
    let pid = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
    w.ok(&["server", "stop"]);
    w.wait_for("the server to exit", || !process_runs(pid));
    let mut bytes = original;
    bytes[0] = b'[';
    std::fs::write(&journal, &bytes).unwrap();
    let recovered = format!("recovered-{}", &tid[tid.len() - 8..]);
    let names = names_of(&w.json(&["ls"]));
    assert!(names.contains(&recovered), "{names:?}");
    assert_eq!(w.show(&recovered)["id"], tid);
    assert_eq!(turns(&w, &recovered), 3);
    let report = w.json(&["reindex"]);
    assert!(
        report["skipped"].to_string().contains(&recovered),
        "{report}"
    );
    w.ok(&["rename", &recovered, "a-again"]);
    w.json(&["reindex"]);
    assert_eq!(turns(&w, "a-again"), 3);
    w.send("a-again", "still works");
}
