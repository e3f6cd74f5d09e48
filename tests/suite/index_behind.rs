//! While the index is behind the journals (a write to it failed: a full disk), what waits is
//! told from the journals: `queue`, `show` and `server status` said 0 waiting (issue 39).

use serde_json::Value;

use super::common::*;

/// The prompts `baton queue NAME --json` lists, in order.
fn queued(w: &World) -> Vec<String> {
    let list = w.json(&["queue", "t"]);
    let rows = list.as_array().cloned().unwrap_or_default();
    rows.iter()
        .map(|q| q["prompt"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn waiting_input_is_counted_from_the_journal_while_the_index_is_behind() {
    let mut w = World::new();
    let fault = w.tmp.path().join("index-full");
    w.env
        .push(("BATON_FAULT_INDEX".into(), fault.display().to_string()));
    let dir = w.new_terminal("t", "claude");
    w.ok(&["send", "t", "first [[hold:go]]", "--detach"]);
    w.wait_for("the first turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    w.ok(&["send", "t", "second", "--detach"]);
    // The disk fills up: what is accepted from now on reaches only the journal.
    std::fs::write(&fault, "").unwrap();
    w.ok(&["send", "t", "third", "--detach"]);
    w.ok(&["send", "t", "fourth", "--detach"]);
    let show = w.show("t");
    assert_eq!(show["index_behind"], true);
    assert_eq!(queued(&w), ["second", "third", "fourth"]);
    assert_eq!(show["queued"], 3);
    let status: Value = w.json(&["server", "status"]);
    assert_eq!(status["waiting_inputs"], 3);
    let listed = w.ok(&["queue", "t"]);
    assert!(
        listed.contains("#3 [queue]") && listed.contains("· fourth"),
        "{listed}"
    );
    // Space again: the index catches up and every input runs, once, in order.
    std::fs::remove_file(&fault).unwrap();
    std::fs::write(dir.join("go"), "").unwrap();
    w.wait_for("every input to run", || {
        w.json(&["log", "t"])["turns"]
            .as_array()
            .is_some_and(|t| t.len() == 4 && t.iter().all(|x| x["status"] == "completed"))
    });
    assert_eq!(queued(&w), Vec::<String>::new());
    assert_eq!(w.json(&["server", "status"])["waiting_inputs"], 0);
}
