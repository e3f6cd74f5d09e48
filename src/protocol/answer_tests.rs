use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::protocol::views::RemovedView;
use crate::tui::testing::views;

fn send(detach: bool) -> Request {
    Request::Send {
        name: "api".into(),
        send: crate::protocol::SendRequest::new("hi"),
        detach,
    }
}

/// What a client reads back of what the server put on the wire.
fn through_the_wire(req: &Request, answer: Answer) -> Answer {
    let line = serde_json::to_string(&Reply::answered(Ok(answer))).unwrap();
    let reply: Reply = serde_json::from_str(&line).unwrap();
    reply.into_answer(req).unwrap()
}

#[test]
fn answers_read_back_as_the_views_the_server_sent() {
    let accepted: AcceptedView = serde_json::from_value(json!({
        "accepted": true, "name": "api", "input": 3, "position": 1, "mode": "queue",
        "note": null
    }))
    .unwrap();
    let cases: Vec<(Request, Answer)> = vec![
        (Request::Ping, PongView { pong: true }.into()),
        (
            Request::Show { name: "api".into() },
            views::terminal(json!({"name": "api"})).into(),
        ),
        (
            Request::Ls { all: false },
            vec![views::terminal(json!({"name": "a"}))].into(),
        ),
        (send(false), views::summary(json!({"number": 4})).into()),
        // A steer the running turn took ends a streamed send too.
        (send(false), accepted.clone().into()),
        (send(true), accepted.into()),
        (
            Request::Log { name: "api".into() },
            views::log(json!({"name": "api"})).into(),
        ),
        (
            Request::Rename {
                name: "api".into(),
                new_name: "web".into(),
            },
            RenamedView {
                name: "web".into(),
                old_name: "api".into(),
            }
            .into(),
        ),
    ];
    for (req, answer) in cases {
        assert_eq!(req.answer_kind(), Some(answer.kind()), "{req:?}");
        assert_eq!(through_the_wire(&req, answer.clone()), answer, "{req:?}");
    }
}

#[test]
fn a_removal_keeps_saying_its_worktree_was_already_gone() {
    // `null` (already gone) and absent (no worktree of its own) are two answers.
    let gone = RemovedView {
        name: "api".into(),
        removed: true,
        branch: Some("baton/api".into()),
        committed: Some(None),
        worktree_removed: Some(None),
        branch_deleted: Some(false),
    };
    let req = Request::Rm {
        name: "api".into(),
        delete_branch: false,
        force: false,
    };
    assert_eq!(
        through_the_wire(&req, gone.clone().into()),
        Answer::from(gone)
    );
    let in_place = RemovedView {
        name: "api".into(),
        removed: true,
        branch: None,
        committed: None,
        worktree_removed: None,
        branch_deleted: None,
    };
    assert_eq!(
        serde_json::to_value(Answer::from(in_place.clone())).unwrap(),
        json!({"name": "api", "removed": true})
    );
    assert_eq!(
        through_the_wire(&req, in_place.clone().into()),
        Answer::from(in_place)
    );
}

#[test]
fn streaming_requests_end_with_no_answer() {
    assert_eq!(Request::Watch.answer_kind(), None);
    let shell = Request::Shell {
        name: "api".into(),
        rows: 24,
        cols: 80,
    };
    assert_eq!(shell.answer_kind(), None);
    let answered = Reply::Ok { data: json!({}) }.into_answer(&shell);
    assert!(answered.is_err());
}

#[test]
fn a_view_of_another_answer_is_an_error_that_names_both() {
    let pong = Answer::from(PongView { pong: true });
    let err = TerminalView::try_from(pong).unwrap_err();
    assert_eq!(
        err.message,
        "the server answered with Pong where Terminal was expected"
    );
}

#[test]
fn errors_and_events_are_not_answers() {
    let refused = Reply::Error {
        error: BatonError::bad_input("no terminal named api"),
    };
    let err = refused.into_answer(&Request::Ping).unwrap_err();
    assert_eq!(err.message, "no terminal named api");
    let event = Reply::Event {
        event: crate::protocol::SendEvent::Queued { ahead: 1 },
    };
    assert!(event.into_answer(&send(false)).is_err());
}

#[test]
fn names_are_the_terminal_answered_about_and_the_one_it_came_from() {
    let mut fork: Answer = serde_json::from_value::<ForkView>(json!({
        "name": "api-2", "from": "api", "from_turn": 3, "branch": null, "worktree": null,
        "session_mode": "forked"
    }))
    .unwrap()
    .into();
    let names = fork.names_mut();
    assert_eq!(
        (names.name.cloned(), names.from.cloned()),
        (Some("api-2".to_string()), Some("api".to_string()))
    );
    let mut listed = Answer::from(vec![views::terminal(json!({"name": "a"}))]);
    let names = listed.names_mut();
    assert!(names.name.is_none() && names.from.is_none());
}
