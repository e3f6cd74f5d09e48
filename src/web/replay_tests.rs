use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::*;
use crate::tui::testing::views::{summary, terminal};

/// What the channel passes on, in a table's short words.
enum In {
    Online,
    Offline(&'static str),
    List(&'static [&'static str]),
    Changed(&'static str, &'static str),
    Started(&'static str, &'static str),
    Note(&'static str, &'static str),
    Finished(&'static str),
    Renamed(&'static str, &'static str),
    Removed(&'static str),
    Refused(&'static str),
}

fn row(name: &str, state: &str) -> TerminalView {
    terminal(json!({"name": name, "state": state}))
}

fn step(v: Value) -> SendEvent {
    serde_json::from_value(v).unwrap()
}

fn feed(s: &mut HostState, input: &In) -> String {
    let started = |prompt: &str| {
        step(
            json!({"step": "started", "turn_id": "t1", "number": 1, "provider": "claude",
                    "conversation": 1, "opened": null, "rotate_at": 0.45, "session": "fresh",
                    "prompt": prompt}),
        )
    };
    let event = match *input {
        In::Online => return s.online(),
        In::Offline(why) => return s.offline(why),
        In::List(names) => WatchEvent::Terminals {
            terminals: names.iter().map(|n| row(n, "idle")).collect(),
        },
        In::Changed(name, state) => WatchEvent::Terminal {
            terminal: Box::new(row(name, state)),
        },
        In::Started(name, prompt) => WatchEvent::Turn {
            name: name.into(),
            event: started(prompt),
        },
        In::Note(name, message) => WatchEvent::Turn {
            name: name.into(),
            event: step(json!({"step": "note", "message": message})),
        },
        In::Finished(name) => WatchEvent::Finished {
            name: name.into(),
            summary: summary(json!({})),
        },
        In::Renamed(name, new_name) => WatchEvent::Renamed {
            name: name.into(),
            new_name: new_name.into(),
        },
        In::Removed(name) => WatchEvent::Removed { name: name.into() },
        In::Refused(name) => WatchEvent::Refused {
            name: name.into(),
            error: crate::error::BatonError::failed("no"),
        },
    };
    s.event(event)
}

/// A replayed line in the table's words: `online`, `offline: why`, `list a=idle b=running`,
/// `turn a started hi`, `turn a note m`.
fn short(line: &str) -> String {
    let v: Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["host"], "box", "{line}");
    let e = &v["event"];
    match (v["reply"].as_str(), e["what"].as_str()) {
        (Some("host"), _) => match v["why"].as_str() {
            Some(why) => format!("{}: {why}", v["link"].as_str().unwrap()),
            None => v["link"].as_str().unwrap().to_string(),
        },
        (Some("watch"), Some("terminals")) => {
            let rows = e["terminals"].as_array().unwrap().iter();
            let rows: Vec<String> = rows
                .map(|t| {
                    format!(
                        "{}={}",
                        t["name"].as_str().unwrap(),
                        t["state"].as_str().unwrap()
                    )
                })
                .collect();
            format!("list {}", rows.join(" ")).trim_end().to_string()
        }
        (Some("watch"), Some("turn")) => {
            let s = &e["event"];
            let said = s["prompt"].as_str().or(s["message"].as_str()).unwrap();
            format!(
                "turn {} {} {said}",
                e["name"].as_str().unwrap(),
                s["step"].as_str().unwrap()
            )
        }
        _ => panic!("not a replayed line: {line}"),
    }
}

#[test]
fn a_page_joining_a_hosts_channel_is_told_what_the_pages_there_hold() {
    use In::*;
    let table: &[(&str, &[In], &[&str])] = &[
        ("nothing yet: connecting", &[], &["connecting"]),
        (
            "the channel failed before its list",
            &[Offline("no answer")],
            &["offline: no answer"],
        ),
        (
            "online: the list",
            &[Online, List(&["a", "b"])],
            &["online", "list a=idle b=idle"],
        ),
        (
            "online, its list not come yet",
            &[Online],
            &["online", "list"],
        ),
        (
            "later changes folded into the list",
            &[
                Online,
                List(&["a"]),
                Changed("a", "running"),
                Changed("b", "idle"),
            ],
            &["online", "list a=running b=idle"],
        ),
        (
            "a running turn's steps after the list",
            &[Online, List(&["a"]), Started("a", "hi"), Note("a", "m")],
            &[
                "online",
                "list a=idle",
                "turn a started hi",
                "turn a note m",
            ],
        ),
        (
            "a finished turn is not replayed",
            &[Online, List(&["a"]), Started("a", "hi"), Finished("a")],
            &["online", "list a=idle"],
        ),
        (
            "a turn is replayed from its start",
            &[
                Online,
                List(&["a"]),
                Note("a", "old"),
                Started("a", "again"),
            ],
            &["online", "list a=idle", "turn a started again"],
        ),
        (
            "renamed: the old row goes, its turn follows the new name",
            &[
                Online,
                List(&["a", "b"]),
                Started("a", "hi"),
                Renamed("a", "c"),
            ],
            &["online", "list b=idle", "turn c started hi"],
        ),
        (
            "removed: its row and its turn go",
            &[Online, List(&["a", "b"]), Started("a", "hi"), Removed("a")],
            &["online", "list b=idle"],
        ),
        (
            "a refusal was for the pages there then",
            &[Online, List(&["a"]), Refused("a")],
            &["online", "list a=idle"],
        ),
        (
            "a fresh list replaces the old and its turns (the host replays them after it)",
            &[Online, List(&["a"]), Started("a", "hi"), List(&["b"])],
            &["online", "list b=idle"],
        ),
        (
            "offline: what it listed is stale",
            &[Online, List(&["a"]), Started("a", "hi"), Offline("lost")],
            &["offline: lost"],
        ),
        (
            "the next channel's list",
            &[Online, List(&["a"]), Offline("lost"), Online, List(&["b"])],
            &["online", "list b=idle"],
        ),
    ];
    for (what, inputs, want) in table {
        let mut s = HostState::new("box");
        for i in *inputs {
            feed(&mut s, i);
        }
        let got: Vec<String> = s.replay().iter().map(|l| short(l)).collect();
        assert_eq!(got, *want, "{what}");
    }
}

#[test]
fn each_line_is_passed_on_as_it_came_whatever_the_state() {
    let mut s = HostState::new("box");
    assert_eq!(short(&feed(&mut s, &In::Online)), "online");
    assert_eq!(short(&feed(&mut s, &In::List(&["a"]))), "list a=idle");
    assert_eq!(
        short(&feed(&mut s, &In::Started("a", "hi"))),
        "turn a started hi"
    );
    assert_eq!(short(&feed(&mut s, &In::Offline("lost"))), "offline: lost");
    // Offline, an event still reaches the pages there (it is not kept for newcomers).
    assert_eq!(short(&feed(&mut s, &In::List(&["b"]))), "list b=idle");
    assert_eq!(s.replay().len(), 1);
}
