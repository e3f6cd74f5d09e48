//! Tests of fork, rewind, fresh and archive as keys and replies drive them.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::error::BatonError;
use crate::protocol::{AnswerKind, Request, SendModeArg, SendRequest};
use crate::tui::app::{App, Effect, Msg, Tag};
use crate::tui::testing::{announce, app_with, key, log, prefix, screen, terminal, views};

fn alt(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
}

/// `api` (with its three-turn log read) and `web`, `api` focused.
fn two() -> App {
    let mut app = app_with(vec![
        terminal("api", "claude", "idle", None),
        terminal("web", "claude", "idle", None),
    ]);
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log())));
    app
}

fn rewind_call(turn: u32) -> Effect {
    Effect::Call(
        Tag::Rewind("api".into()),
        Request::Rewind {
            name: "api".into(),
            turn,
            new: None,
        },
    )
}

fn log_call(name: &str) -> Effect {
    Effect::Call(Tag::Log(name.into()), Request::Log { name: name.into() })
}

fn status(app: &App) -> String {
    app.status.clone().map(|(s, _)| s).unwrap_or_default()
}

#[test]
fn alt_f_arms_a_fresh_conversation_for_the_next_send_only() {
    let mut app = two();
    app.update(alt('f'));
    assert!(app.next_fresh);
    assert!(screen(&mut app, 100, 20).contains("opens a fresh conversation (M-f: no)"));
    // Again: disarmed; a third time: armed.
    app.update(alt('f'));
    assert!(!app.next_fresh);
    app.update(alt('f'));
    for c in "go".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let fx = app.update(key(KeyCode::Enter));
    let want = Effect::Call(
        Tag::Send {
            name: "api".into(),
            prompt: "go".into(),
        },
        Request::Send {
            name: "api".into(),
            send: SendRequest {
                mode: SendModeArg::Queue,
                fresh: true,
                ..SendRequest::new("go")
            },
            detach: true,
        },
    );
    assert_eq!(fx, vec![want]);
    assert!(!app.next_fresh);
    assert!(!screen(&mut app, 100, 20).contains("M-f: no"));
}

#[test]
fn esc_twice_on_an_empty_composer_rewinds_the_last_turn() {
    // (keys, the effects of the last key)
    let table: Vec<(Vec<Msg>, Vec<Effect>)> = vec![
        (vec![key(KeyCode::Esc)], vec![]),
        (
            vec![key(KeyCode::Esc), key(KeyCode::Esc)],
            vec![rewind_call(3)],
        ),
        // Another key between them disarms.
        (
            vec![key(KeyCode::Esc), key(KeyCode::PageUp), key(KeyCode::Esc)],
            vec![],
        ),
        // Not on a written prompt: Esc interrupts (there is nothing to interrupt).
        (
            vec![
                key(KeyCode::Char('x')),
                key(KeyCode::Esc),
                key(KeyCode::Esc),
            ],
            vec![],
        ),
    ];
    for (keys, want) in table {
        let mut app = two();
        let mut fx = Vec::new();
        for k in keys.clone() {
            fx = app.update(k);
        }
        assert_eq!(fx, want, "{keys:?}");
    }
    let mut app = two();
    app.update(key(KeyCode::Esc));
    assert_eq!(
        status(&app),
        "Esc again: rewind api to before turn 3 (a new terminal; api stays)"
    );
    // A running turn: Esc interrupts it, never rewinds.
    let mut app = two();
    app.update(announce(terminal("api", "claude", "running", None)));
    app.update(key(KeyCode::Esc));
    let fx = app.update(key(KeyCode::Esc));
    assert_eq!(
        fx,
        vec![Effect::Call(
            Tag::Interrupt("api".into()),
            Request::Interrupt { name: "api".into() }
        )]
    );
}

#[test]
fn alt_r_on_an_earlier_prompt_rewinds_to_before_its_turn() {
    let mut app = two();
    app.update(key(KeyCode::Up));
    assert_eq!(app.composer.text(), "Review it");
    assert_eq!(app.update(alt('r')), vec![rewind_call(3)]);
    assert!(app.composer.is_empty(), "the draft comes back");
    app.update(key(KeyCode::Up));
    app.update(key(KeyCode::Up));
    assert_eq!(app.composer.text(), "Add a test");
    assert_eq!(app.update(alt('r')), vec![rewind_call(2)]);
    // Not browsing: nothing is sent, the status says how.
    assert_eq!(app.update(alt('r')), vec![]);
    assert!(status(&app).contains("Up shows an earlier prompt first"));
}

#[test]
fn a_rewind_reply_focuses_the_new_terminal_with_the_prompt_in_its_composer() {
    let mut app = two();
    let prompt = "Review it\n  twice\t(exactly) ✓\n";
    let reply = json!({"name": "api-2", "from": "api", "before_turn": 3, "branch": "baton/api-2",
                       "base_commit": "abc", "prompt": prompt, "history": "kept",
                       "notes": ["the shell stays in api"]});
    let reply = views::answer(AnswerKind::Rewound, reply);
    let fx = app.update(Msg::Reply(Tag::Rewind("api".into()), Ok(reply)));
    assert_eq!(app.focused_name(), None, "api-2 is not announced yet");
    assert_eq!(app.panes[0].term.as_deref(), Some("api-2"));
    assert_eq!(app.composer.text(), prompt);
    assert_eq!(
        status(&app),
        "rewound api to before turn 3 into api-2 (history kept) · the shell stays in api"
    );
    assert_eq!(fx, vec![]);
    // Its announcement reads its history (it is shown already).
    let fx = app.update(announce(terminal("api-2", "claude", "idle", None)));
    assert_eq!(fx, vec![log_call("api-2")]);
    assert_eq!(app.focused_name().as_deref(), Some("api-2"));
    // A refusal shows like other request errors.
    let err = BatonError::bad_input("turn 9 does not exist");
    app.update(Msg::Reply(Tag::Rewind("api".into()), Err(err)));
    assert_eq!(
        app.status,
        Some(("api: turn 9 does not exist".into(), true))
    );
}

#[test]
fn prefix_f_forks_and_the_fork_takes_the_focus() {
    let mut app = two();
    let fx = prefix(&mut app, 'f');
    assert_eq!(
        fx,
        vec![Effect::Call(
            Tag::Fork("api".into()),
            Request::Fork {
                name: "api".into(),
                new: None
            }
        )]
    );
    app.update(announce(terminal("api-2", "claude", "idle", None)));
    let reply = json!({"name": "api-2", "from": "api", "from_turn": 3, "branch": null,
                       "worktree": null, "session_mode": "forked"});
    let reply = views::answer(AnswerKind::Forked, reply);
    let fx = app.update(Msg::Reply(Tag::Fork("api".into()), Ok(reply)));
    assert_eq!(app.focused_name().as_deref(), Some("api-2"));
    assert_eq!(
        status(&app),
        "forked api at turn 3 into api-2 (history forked)"
    );
    assert_eq!(fx, vec![log_call("api-2")]);
}

#[test]
fn archived_terminals_are_hidden_unless_shown_and_marked() {
    let mut app = two();
    let archive = |archived| {
        Effect::Call(
            Tag::Archive("api".into()),
            Request::Archive {
                name: "api".into(),
                archived,
            },
        )
    };
    assert_eq!(prefix(&mut app, 'a'), vec![archive(true)]);
    let reply = json!({"name": "api", "archived": true});
    let reply = views::answer(AnswerKind::Archived, reply);
    let fx = app.update(Msg::Reply(Tag::Archive("api".into()), Ok(reply)));
    // The pane goes on to web, whose history is read.
    assert_eq!(fx, vec![log_call("web")]);
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    let s = screen(&mut app, 100, 12);
    assert!(s.contains("0 web"), "{s}");
    assert!(!s.contains("0 api") && !s.contains("1 api"), "{s}");
    // Prefix 0 is web now; n stays on web.
    prefix(&mut app, 'n');
    assert_eq!(app.focused_name().as_deref(), Some("web"));
    // Prefix A lists it, marked; prefix a on it brings it back.
    prefix(&mut app, 'A');
    let s = screen(&mut app, 100, 12);
    assert!(s.contains("0 api (archived)"), "{s}");
    prefix(&mut app, '0');
    assert_eq!(app.focused_name().as_deref(), Some("api"));
    assert_eq!(prefix(&mut app, 'a'), vec![archive(false)]);
    // Another client's archive arrives on the watch stream, flagged.
    prefix(&mut app, 'A');
    let mut v = terminal("api", "claude", "idle", None);
    v.archived = true;
    app.update(announce(v));
    assert_eq!(app.focused_name().as_deref(), Some("web"));
}

#[test]
fn titles_show_in_the_list_and_the_dividers_and_forks_in_the_transcript() {
    let mut app = app_with(vec![views::terminal(json!({
        "name": "api", "conversation": {"number": 2, "title": "Health endpoint work"}
    }))]);
    let log = views::log_data(json!({
        "name": "api",
        "conversations": [{"number": 1, "opened_reason": "fork", "title": "Health endpoint work"}],
        "turns": [
            {"number": 1, "conversation": 1, "prompt": "one", "status": "completed", "answer": "a1"},
            {"number": 2, "conversation": 1, "prompt": "two", "status": "completed", "answer": "a2"},
        ],
        "forked_from": {"name": "core", "id": "x", "turn": 7, "rewind": false},
        "forked_into": [{"name": "api-2", "id": "y", "turn": 1, "rewind": false},
                        {"name": "api-3", "id": "z", "turn": 2, "rewind": true}],
    }));
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log)));
    let s = screen(&mut app, 110, 30);
    assert!(s.contains("0 api Health endpoi"), "{s}");
    assert!(
        s.contains("── conversation 1 · forked · Health endpoint work ──"),
        "{s}"
    );
    let at = |needle: &str| s.find(needle).unwrap_or_else(|| panic!("{needle}:\n{s}"));
    assert!(at("forked from core at turn 7") < at("── conversation 1"));
    assert!(at("a1") < at("↳ forked into api-2"));
    assert!(at("↳ forked into api-2") < at("↳ rewound into api-3"));
    assert!(at("↳ rewound into api-3") < at("› two"));
}

#[test]
fn a_live_conversation_titled_meanwhile_shows_its_title_in_its_divider() {
    let mut app = app_with(vec![views::terminal(json!({
        "name": "api", "conversation": {"number": 1}
    }))]);
    let log = views::log_data(json!({
        "name": "api",
        "conversations": [{"number": 1, "opened_reason": "first"}],
        "turns": [{"number": 1, "conversation": 1, "prompt": "one", "status": "completed", "answer": "a1"}],
    }));
    app.update(Msg::Reply(Tag::Log("api".into()), Ok(log)));
    assert!(!screen(&mut app, 100, 20).contains("Renamed by hand"));
    // `baton rename api --conversation …` from another client: the change of the terminal
    // carries the title, no log is read again.
    let fx = app.update(Msg::Watch(crate::protocol::WatchEvent::Terminal {
        terminal: Box::new(views::terminal(json!({
            "name": "api", "conversation": {"number": 1, "title": "Renamed by hand"}
        }))),
    }));
    assert!(!fx.iter().any(|e| matches!(e, Effect::Call(Tag::Log(_), _))));
    let s = screen(&mut app, 100, 20);
    assert!(s.contains("── conversation 1 · Renamed by hand"), "{s}");
}
