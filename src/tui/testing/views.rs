//! Views for the UI's tests, written as the few fields a test cares about: the rest is filled
//! with what an idle, fresh terminal shows, and the result is read as the typed view the server
//! sends (so a test cannot build a view the server could not).

use serde_json::{json, Value};

use crate::protocol::views::{LogView, TerminalView};
use crate::protocol::{Answer, AnswerKind, TurnSummary};

/// `base` with every key of `over` put over it (objects merged key by key).
fn merged(mut base: Value, over: &Value) -> Value {
    match (base.as_object_mut(), over.as_object()) {
        (Some(b), Some(o)) => {
            for (k, v) in o {
                let next = match b.remove(k) {
                    Some(old) if old.is_object() && v.is_object() => merged(old, v),
                    _ => v.clone(),
                };
                b.insert(k.clone(), next);
            }
            base
        }
        _ => over.clone(),
    }
}

/// A terminal view: `over` on an idle claude terminal with no conversation yet.
pub fn terminal(over: Value) -> TerminalView {
    let name = over["name"].as_str().unwrap_or("t").to_string();
    let dir = over["dir"]
        .as_str()
        .map_or_else(|| format!("/w/{name}"), str::to_string);
    let base = json!({
        "name": name, "id": format!("id-{name}"), "dir": dir,
        "checkout": {"mode": "in_place", "source": dir, "branch": null, "base_branch": null,
                     "base_commit": null, "worktree": null},
        "provider": "claude", "endpoint": null, "model": null, "brief": null, "state": "idle",
        "queued": 0, "queue": [], "created_at": "2026-01-01T00:00:00Z", "conversation": null, "sessions": [],
        "context": null, "instructions": [], "rotate_at": 0.45, "turns": 0, "last_turn": null,
        "archived": false,
    });
    let mut v = merged(base, &over);
    if let Some(n) = over["conversation"]["number"].as_u64() {
        v["conversation"] = json!({"id": format!("c{n}"), "number": n, "opened_reason": "first",
                                   "opened_at": "2026-01-01T00:00:00Z", "dir": dir,
                                   "title": over["conversation"]["title"].clone()});
    }
    if let (Some(t), Some(w)) = (
        over["context"]["tokens"].as_u64(),
        over["context"]["window"].as_u64(),
    ) {
        let fraction = t as f64 / w as f64;
        v["context"] = json!({"tokens": t, "window": w, "fraction": fraction,
                              "rotates_next": fraction > 0.45});
    }
    serde_json::from_value(v).unwrap()
}

/// A `log` view: each conversation and turn of `over` on what such a record always has.
pub fn log(over: Value) -> LogView {
    let conversations: Vec<Value> = over["conversations"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let n = c["number"].as_u64().unwrap_or(1);
            let base = json!({"id": format!("c{n}"), "number": n, "opened_reason": "first",
                              "dir": "/w", "opened_at": "2026-01-01T00:00:00Z",
                              "retired_at": null, "title": null, "sessions": []});
            merged(base, c)
        })
        .collect();
    let turns: Vec<Value> = over["turns"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let n = t["number"].as_u64().unwrap_or(1);
            let conv = t["conversation"].as_u64().unwrap_or(1);
            let base = json!({"id": format!("turn{n}"), "number": n,
                              "conversation_id": format!("c{conv}"), "conversation": conv,
                              "provider": "claude", "session_id": null, "model": null,
                              "prompt": "", "status": null, "error": null, "answer": null,
                              "tools": [], "notes": [], "context": null,
                              "started_at": "2026-01-01T00:00:00Z", "finished_at": null,
                              "commit": null, "input": null, "mode": null});
            let mut v = merged(base, t);
            let over_line = v["context"]["tokens"].as_f64().unwrap_or(0.0)
                > 0.45 * v["context"]["window"].as_f64().unwrap_or(f64::INFINITY);
            v["rotates_next"] = json!(over_line);
            v
        })
        .collect();
    let mut v = json!({"name": over["name"].as_str().unwrap_or("t"), "rotate_at": 0.45,
                       "conversations": conversations, "turns": turns});
    for k in ["forked_from", "forked_into"] {
        if !over[k].is_null() {
            v[k] = over[k].clone();
        }
    }
    serde_json::from_value(v).unwrap()
}

/// [`log`] as the server's answer.
pub fn log_data(over: Value) -> Answer {
    log(over).into()
}

/// `data` read as an answer of `kind`, as a client reads the server's (so a test cannot give
/// the UI an answer the server could not).
pub fn answer(kind: AnswerKind, data: Value) -> Answer {
    kind.read(data).unwrap()
}

/// The end of turn `number`: `over` on a completed claude turn in conversation 1.
pub fn summary(over: Value) -> TurnSummary {
    let base = json!({
        "turn_id": "x", "number": 1, "status": "completed", "error": null,
        "provider": "claude", "session_id": null, "model": null, "conversation": 1,
        "conversation_id": "c", "opened": null, "context": null, "rotates_next": false,
        "rotate_at": 0.45, "commit": null, "unusable_cli": false
    });
    serde_json::from_value(merged(base, &over)).unwrap()
}
