//! Tests of input the server owns, as keys drive it: what each key sends, the selection in the
//! server's waiting list, taking an input back to edit, and the server's refusals.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::error::BatonError;
use crate::protocol::{AnswerKind, QueueAction, QueueChange, Request, SendModeArg, SendRequest};
use crate::tui::app::{App, Effect, Msg, Tag};
use crate::tui::testing::{announce, app_with, ctrl, key, queued};

fn alt(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
}

fn shift(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::SHIFT))
}

fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        app.update(key(KeyCode::Char(c)));
    }
}

fn send(prompt: &str, mode: SendModeArg) -> Effect {
    Effect::Call(
        Tag::Send {
            name: "api".into(),
            prompt: prompt.into(),
        },
        Request::Send {
            name: "api".into(),
            send: SendRequest {
                mode,
                ..SendRequest::new(prompt)
            },
            detach: true,
        },
    )
}

fn change(input: u32, action: QueueAction) -> Effect {
    let edit = match &action {
        QueueAction::Edit { text } => Some(text.clone()),
        _ => None,
    };
    Effect::Call(
        Tag::Queue {
            name: "api".into(),
            edit,
        },
        Request::Queue {
            name: "api".into(),
            change: Some(QueueChange { input, action }),
        },
    )
}

/// `api` running, with inputs 4, 5 and 6 waiting on the server.
fn three_waiting() -> App {
    app_with(vec![queued(
        "api",
        "running",
        &[(4, "four"), (5, "five"), (6, "six")],
    )])
}

#[test]
fn enter_alt_s_and_alt_j_send_at_once_whatever_the_state() {
    let table = [
        ("idle", key(KeyCode::Enter), SendModeArg::Queue),
        ("running", key(KeyCode::Enter), SendModeArg::Queue),
        ("running", alt('s'), SendModeArg::Steer),
        ("running", alt('j'), SendModeArg::Jump),
        ("idle", alt('j'), SendModeArg::Jump),
    ];
    for (state, k, mode) in table {
        let mut app = app_with(vec![queued("api", state, &[(1, "waits")])]);
        typed(&mut app, "go on");
        assert_eq!(app.update(k), vec![send("go on", mode)], "{state} {mode:?}");
        assert!(app.composer.is_empty());
    }
}

#[test]
fn keys_on_the_selected_waiting_input() {
    // (keys after Up from an empty composer, what is sent, what stays selected)
    let table: Vec<(Vec<Msg>, Vec<Effect>, Option<u32>)> = vec![
        (vec![], vec![], Some(6)),
        (vec![key(KeyCode::Up)], vec![], Some(5)),
        (vec![key(KeyCode::Up), key(KeyCode::Down)], vec![], Some(6)),
        (vec![key(KeyCode::Down)], vec![], None),
        (vec![key(KeyCode::Esc)], vec![], None),
        (
            vec![key(KeyCode::Char('x'))],
            vec![change(6, QueueAction::Rm)],
            Some(5),
        ),
        (
            vec![key(KeyCode::Up), key(KeyCode::Delete)],
            vec![change(5, QueueAction::Rm)],
            Some(6),
        ),
        (
            vec![key(KeyCode::Char('K'))],
            vec![change(6, QueueAction::Move { position: 2 })],
            Some(6),
        ),
        (
            vec![shift(KeyCode::Up)],
            vec![change(6, QueueAction::Move { position: 2 })],
            Some(6),
        ),
        // The last one cannot go later, the first one earlier.
        (vec![key(KeyCode::Char('J'))], vec![], Some(6)),
        (
            vec![key(KeyCode::Up), key(KeyCode::Up), key(KeyCode::Char('K'))],
            vec![],
            Some(4),
        ),
        (
            vec![key(KeyCode::Up), shift(KeyCode::Down)],
            vec![change(5, QueueAction::Move { position: 3 })],
            Some(5),
        ),
        (
            vec![key(KeyCode::Char('s'))],
            vec![change(6, QueueAction::Steer)],
            Some(6),
        ),
        (
            vec![key(KeyCode::Char('!'))],
            vec![change(6, QueueAction::Jump)],
            None,
        ),
    ];
    for (keys, want, selected) in table {
        let mut app = three_waiting();
        assert!(app.update(key(KeyCode::Up)).is_empty());
        let mut fx = Vec::new();
        for k in keys.clone() {
            fx.extend(app.update(k));
        }
        assert_eq!((fx, app.selected), (want, selected), "{keys:?}");
    }
}

#[test]
fn up_goes_through_the_waiting_list_and_on_to_earlier_prompts() {
    let mut app = three_waiting();
    for _ in 0..3 {
        app.update(key(KeyCode::Up));
    }
    assert_eq!(app.selected, Some(4));
    // A letter that is not the list's leaves it and is typed.
    app.update(key(KeyCode::Char('h')));
    assert_eq!(app.selected, None);
    assert_eq!(app.composer.text(), "h");
    // With text in the composer, Up is the composer's again.
    app.update(key(KeyCode::Up));
    assert_eq!(app.selected, None);
}

#[test]
fn a_waiting_input_taken_back_is_saved_in_place_by_enter() {
    let mut app = three_waiting();
    app.update(key(KeyCode::Up));
    app.update(key(KeyCode::Up));
    assert!(app.update(key(KeyCode::Char('e'))).is_empty());
    assert_eq!(app.composer.text(), "five");
    assert_eq!(app.editing, Some(("api".into(), 5)));
    typed(&mut app, " and more");
    let edit = QueueAction::Edit {
        text: "five and more".into(),
    };
    assert_eq!(app.update(key(KeyCode::Enter)), vec![change(5, edit)]);
    assert_eq!(app.editing, None);
    // Refused (it started meanwhile): the text comes back, and Enter sends it as new input.
    app.update(Msg::Reply(
        Tag::Queue {
            name: "api".into(),
            edit: Some("five and more".into()),
        },
        Err(BatonError::bad_input("input 5 already started as turn 12")),
    ));
    let status = app.status.clone().map(|(s, _)| s);
    assert_eq!(
        status.as_deref(),
        Some("api: input 5 already started as turn 12")
    );
    assert_eq!(app.composer.text(), "five and more");
    assert_eq!(
        app.update(key(KeyCode::Enter)),
        vec![send("five and more", SendModeArg::Queue)]
    );
}

#[test]
fn ctrl_e_and_ctrl_x_act_on_the_last_waiting_input() {
    let mut app = three_waiting();
    assert_eq!(app.update(ctrl('x')), vec![change(6, QueueAction::Rm)]);
    assert!(app.update(ctrl('e')).is_empty());
    assert_eq!(app.editing, Some(("api".into(), 6)));
    assert_eq!(app.composer.text(), "six");
    // Steer or jump wait until the edit is saved.
    assert!(app.update(alt('s')).is_empty());
    assert_eq!(app.composer.text(), "six");
    // Emptied, Enter leaves the input as it was.
    app.update(ctrl('u'));
    assert!(app.update(key(KeyCode::Enter)).is_empty());
    assert_eq!(app.editing, None);
    let mut idle = app_with(vec![queued("api", "idle", &[])]);
    assert!(idle.update(ctrl('e')).is_empty());
    assert_eq!(
        idle.status.map(|(s, _)| s).as_deref(),
        Some("no waiting input")
    );
}

#[test]
fn the_edit_ends_when_the_input_leaves_the_servers_queue() {
    let mut app = three_waiting();
    app.update(ctrl('e'));
    app.update(key(KeyCode::Up));
    app.update(announce(queued(
        "api",
        "running",
        &[(4, "four"), (5, "five")],
    )));
    assert_eq!(app.editing, None);
    assert_eq!(app.composer.text(), "six");
    let (status, err) = app.status.clone().unwrap();
    assert!(
        err && status.contains("input 6 started or was withdrawn"),
        "{status}"
    );
    // A selection of input that started ends too.
    app.update(ctrl('u'));
    app.update(key(KeyCode::Up));
    assert_eq!(app.selected, Some(5));
    app.update(announce(queued("api", "running", &[(4, "four")])));
    assert_eq!(app.selected, None);
}

#[test]
fn a_refused_send_comes_back_to_the_composer_and_a_note_is_said() {
    let mut app = app_with(vec![queued("api", "running", &[])]);
    typed(&mut app, "steer this");
    let fx = app.update(alt('s'));
    let Some(Effect::Call(tag, _)) = fx.into_iter().next() else {
        panic!("expected a send");
    };
    app.update(Msg::Reply(
        tag.clone(),
        Err(BatonError::bad_input("no terminal named api")),
    ));
    assert_eq!(app.composer.text(), "steer this");
    assert_eq!(
        app.status.clone(),
        Some(("api: no terminal named api".into(), true))
    );
    let accepted = json!({"accepted": true, "name": "api", "input": 3, "position": 1,
                          "mode": "steer", "note": "codex exec cannot take input mid-turn: it runs next"});
    let accepted = crate::tui::testing::views::answer(AnswerKind::Sent, accepted);
    app.update(Msg::Reply(tag, Ok(accepted)));
    assert_eq!(
        app.status,
        Some((
            "api: codex exec cannot take input mid-turn: it runs next".into(),
            false
        ))
    );
}

#[test]
fn the_selected_input_is_marked_and_the_one_taken_back_says_so() {
    let mut app = three_waiting();
    app.update(key(KeyCode::Up));
    app.update(key(KeyCode::Up));
    let s = crate::tui::testing::screen(&mut app, 59, 12);
    for line in [
        "⏸ waiting 1 · #4: four",
        "▸ waiting 2 · #5: five",
        "⏸ waiting 3 · #6: six",
        "waiting #5: e edit · x withdraw · K/J move",
    ] {
        assert!(s.contains(line), "missing {line:?}:\n{s}");
    }
    app.update(key(KeyCode::Char('e')));
    let s = crate::tui::testing::screen(&mut app, 59, 12);
    assert!(s.contains("⏸ waiting 2 · #5 ✎ editing: five"), "{s}");
    assert!(
        s.contains("┌ editing waiting input #5 of api · Enter saves"),
        "{s}"
    );
}
