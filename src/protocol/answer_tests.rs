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
            Request::Ls {
                all: false,
                table: false,
            },
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
        // A client reads such a line straight into the view: the line starts as it expects.
        let line = serde_json::to_string(&Reply::answered(Ok(answer.clone()))).unwrap();
        assert!(line.starts_with(OK_LINE), "{line}");
        let kind = req.answer_kind().unwrap();
        assert_eq!(kind.read_line(&line).unwrap(), answer, "{req:?}");
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
fn a_streaming_request_is_never_answered_with_a_result() {
    let shell = Request::Shell {
        name: "api".into(),
        rows: 24,
        cols: 80,
    };
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

#[test]
fn a_row_of_ls_over_hosts_is_the_terminals_fields_with_its_host_beside_them() {
    let t = views::terminal(json!({"name": "api"}));
    let mut want = serde_json::to_value(&t).unwrap();
    want["host"] = json!("box");
    let row = crate::protocol::views::HostedView::on("box", t.clone());
    assert_eq!(serde_json::to_value(&row).unwrap(), want);
    let read: crate::protocol::views::HostedView = serde_json::from_value(want).unwrap();
    assert_eq!(read, row);
    want = serde_json::to_value(&t).unwrap();
    want["host"] = json!(null);
    let here = crate::protocol::views::HostedView::here(t);
    assert_eq!(serde_json::to_value(&here).unwrap(), want);
}

#[test]
fn every_request_says_which_answer_it_ends_with() {
    use crate::protocol::InstructionsAction;
    use AnswerKind as K;
    let name = || "api".to_string();
    let cases: Vec<(Request, Option<AnswerKind>)> = vec![
        (Request::Ping, Some(K::Pong)),
        (
            Request::New {
                name: None,
                dir: "/w".into(),
                provider: None,
                model: None,
                brief: None,
                in_place: false,
            },
            Some(K::Terminal),
        ),
        (Request::Show { name: name() }, Some(K::Terminal)),
        (
            Request::Ls {
                all: true,
                table: true,
            },
            Some(K::Terminals),
        ),
        (send(true), Some(K::Sent)),
        (send(false), Some(K::Sent)),
        (
            Request::Follow {
                name: name(),
                next: false,
            },
            Some(K::Sent),
        ),
        (
            Request::Queue {
                name: name(),
                change: None,
            },
            Some(K::Queue),
        ),
        (Request::QueueRun { name: name() }, Some(K::Queue)),
        (Request::Log { name: name() }, Some(K::Log)),
        (
            Request::Steps {
                name: name(),
                turn: 1,
            },
            Some(K::Steps),
        ),
        (
            Request::Instructions {
                name: name(),
                action: InstructionsAction::List,
            },
            Some(K::Instructions),
        ),
        (Request::Interrupt { name: name() }, Some(K::Interrupted)),
        (
            Request::Diff {
                name: name(),
                patch: false,
            },
            Some(K::Diff),
        ),
        (Request::Merge { name: name() }, Some(K::Merged)),
        (
            Request::Revert {
                name: name(),
                turn: 1,
            },
            Some(K::Reverted),
        ),
        (
            Request::Rm {
                name: name(),
                delete_branch: false,
                force: false,
            },
            Some(K::Removed),
        ),
        (
            Request::Rename {
                name: name(),
                new_name: "web".into(),
            },
            Some(K::Renamed),
        ),
        (
            Request::Title {
                name: name(),
                title: "t".into(),
            },
            Some(K::Titled),
        ),
        (
            Request::Fork {
                name: name(),
                new: None,
            },
            Some(K::Forked),
        ),
        (
            Request::Rewind {
                name: name(),
                turn: 1,
                new: None,
            },
            Some(K::Rewound),
        ),
        (
            Request::Prune {
                older_than_days: 0,
                dry_run: true,
                force: false,
            },
            Some(K::Pruned),
        ),
        (
            Request::Archive {
                name: name(),
                archived: true,
            },
            Some(K::Archived),
        ),
        (
            Request::Export {
                name: name(),
                out: None,
            },
            Some(K::Exported),
        ),
        (
            Request::Import {
                file: "a.zip".into(),
                name: None,
                dir: None,
                max_size: None,
            },
            Some(K::Imported),
        ),
        (
            Request::Extract {
                prompt: "p".into(),
                provider: None,
            },
            Some(K::Extracted),
        ),
        (Request::Status, Some(K::Status)),
        (Request::Stop, Some(K::Stopping)),
        (Request::Reindex, Some(K::Reindexed)),
        (
            Request::Web {
                port: None,
                new_token: false,
            },
            Some(K::Web),
        ),
        (
            Request::Integrate {
                name: Some(name()),
                dir: None,
            },
            Some(K::Integrated),
        ),
        (Request::Watch, None),
        (
            Request::Shell {
                name: name(),
                rows: 24,
                cols: 80,
            },
            None,
        ),
    ];
    for (req, want) in cases {
        assert_eq!(req.answer_kind(), want, "{req:?}");
    }
}
