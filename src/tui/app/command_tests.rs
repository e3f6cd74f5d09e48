//! Tests of the command prompt's parser: shell words, each command's request as the CLI would
//! make it (clap's definitions, texts taking every word left), and the one-line errors.

use super::*;
use crate::protocol::{InstructionsAction, QueueAction, QueueChange, SendModeArg, SendRequest};
use pretty_assertions::assert_eq;

fn parsed(line: &str) -> Result<Option<(Request, Answer)>, CommandError> {
    parse(line, "/w/here", Some("/home/u"))
}

fn send(name: &str, prompt: &str, mode: SendModeArg, fresh: bool) -> Request {
    Request::Send {
        name: name.into(),
        send: SendRequest {
            mode,
            fresh,
            ..SendRequest::new(prompt)
        },
        detach: true,
    }
}

#[test]
fn words_split_as_a_shell_splits_them() {
    let table: [(&str, Result<Vec<&str>, CommandError>); 6] = [
        ("", Ok(vec![])),
        ("  rename  a   b ", Ok(vec!["rename", "a", "b"])),
        (
            r#"send a "two words" 'and "more"'"#,
            Ok(vec!["send", "a", "two words", r#"and "more""#]),
        ),
        (r"send a it\'s", Ok(vec!["send", "a", "it's"])),
        ("x '' y", Ok(vec!["x", "", "y"])),
        ("send a 'open", Err(CommandError::Quote)),
    ];
    for (line, want) in table {
        let want = want.map(|w| w.into_iter().map(String::from).collect::<Vec<_>>());
        assert_eq!(words(line), want, "{line}");
    }
}

#[test]
fn each_command_makes_the_request_the_cli_makes() {
    let table: Vec<(&str, Request, Answer)> = vec![
        (
            "new api --dir ~/src/api --provider codex --brief 'the api'",
            Request::New {
                name: Some("api".into()),
                dir: "/home/u/src/api".into(),
                provider: Some("codex".into()),
                model: None,
                brief: Some("the api".into()),
                in_place: false,
            },
            Answer::Created,
        ),
        (
            "new --dir=sub --in-place",
            Request::New {
                name: None,
                dir: "/w/here/sub".into(),
                provider: None,
                model: None,
                brief: None,
                in_place: true,
            },
            Answer::Created,
        ),
        (
            "send a some prompt",
            send("a", "some prompt", SendModeArg::Queue, false),
            Answer::Accepted,
        ),
        (
            "send a --steer look at the -- tests",
            send("a", "look at the tests", SendModeArg::Steer, false),
            Answer::Accepted,
        ),
        (
            "send a --jump --fresh 'start over'",
            send("a", "start over", SendModeArg::Jump, true),
            Answer::Accepted,
        ),
        (
            "rename a b",
            Request::Rename {
                name: "a".into(),
                new_name: "b".into(),
            },
            Answer::Renamed,
        ),
        (
            "rename a --conversation 'Health endpoint'",
            Request::Title {
                name: "a".into(),
                title: "Health endpoint".into(),
            },
            Answer::Titled,
        ),
        (
            "interrupt a",
            Request::Interrupt { name: "a".into() },
            Answer::Interrupted,
        ),
        (
            "unarchive a",
            Request::Archive {
                name: "a".into(),
                archived: false,
            },
            Answer::Archived,
        ),
        (
            "fork a",
            Request::Fork {
                name: "a".into(),
                new: None,
            },
            Answer::Forked,
        ),
        (
            "rewind a 3 a-try",
            Request::Rewind {
                name: "a".into(),
                turn: 3,
                new: Some("a-try".into()),
            },
            Answer::Rewound,
        ),
        (
            "rm a --delete-branch",
            Request::Rm {
                name: "a".into(),
                delete_branch: true,
                force: false,
            },
            Answer::Removed,
        ),
        (
            "revert a 2",
            Request::Revert {
                name: "a".into(),
                turn: 2,
            },
            Answer::Reverted,
        ),
        (
            "instructions a edit 2 never force-push",
            Request::Instructions {
                name: "a".into(),
                action: InstructionsAction::Edit {
                    number: 2,
                    text: "never force-push".into(),
                },
            },
            Answer::Instructions,
        ),
        (
            "instructions a add always run the tests",
            Request::Instructions {
                name: "a".into(),
                action: InstructionsAction::Add {
                    text: "always run the tests".into(),
                },
            },
            Answer::Instructions,
        ),
        (
            "queue a move 4 1",
            Request::Queue {
                name: "a".into(),
                change: Some(QueueChange {
                    input: 4,
                    action: QueueAction::Move { position: 1 },
                }),
            },
            Answer::Queue,
        ),
        (
            "queue a edit 2 say it   again",
            Request::Queue {
                name: "a".into(),
                change: Some(QueueChange {
                    input: 2,
                    action: QueueAction::Edit {
                        text: "say it again".into(),
                    },
                }),
            },
            Answer::Queue,
        ),
        (
            "archive a",
            Request::Archive {
                name: "a".into(),
                archived: true,
            },
            Answer::Archived,
        ),
        (
            "merge a",
            Request::Merge { name: "a".into() },
            Answer::Merged,
        ),
        (
            "send a --dir ~/x fix '#12' now",
            Request::Send {
                name: "a".into(),
                send: SendRequest {
                    prompt: "fix #12 now".into(),
                    dir: Some("/home/u/x".into()),
                    ..SendRequest::new("")
                },
                detach: true,
            },
            Answer::Accepted,
        ),
        (
            "queue a",
            Request::Queue {
                name: "a".into(),
                change: None,
            },
            Answer::Queue,
        ),
        (
            "queue a retry",
            Request::QueueRetry { name: "a".into() },
            Answer::Queue,
        ),
        (
            "approve 3f2a --always",
            Request::Approve {
                id: "3f2a".into(),
                always: true,
            },
            Answer::Approval,
        ),
        (
            "deny 3f2a --reason 'write under tmp/ instead'",
            Request::Deny {
                id: "3f2a".into(),
                reason: Some("write under tmp/ instead".into()),
            },
            Answer::Approval,
        ),
    ];
    for (line, request, answer) in table {
        assert_eq!(parsed(line), Ok(Some((request, answer))), "{line}");
    }
    assert_eq!(parsed("   "), Ok(None));
}

#[test]
fn a_line_the_cli_would_refuse_is_refused_in_one_line() {
    let table = [
        ("frob", "frob: no such command (the prompt takes new, send, rename, interrupt, fork, rewind, archive, unarchive, rm, merge, revert, instructions, queue, approve, deny, integrate)"),
        ("--help", "--help: no such command (the prompt takes new, send, rename, interrupt, fork, rewind, archive, unarchive, rm, merge, revert, instructions, queue, approve, deny, integrate)"),
        ("ls", "ls: run it in a shell (`baton ls`); the prompt takes new, send, rename, interrupt, fork, rewind, archive, unarchive, rm, merge, revert, instructions, queue, approve, deny, integrate"),
        ("instructions extract", "instructions extract: run it in a shell (`baton instructions extract`); the prompt takes new, send, rename, interrupt, fork, rewind, archive, unarchive, rm, merge, revert, instructions, queue, approve, deny, integrate"),
        ("send a", "send: PROMPT is missing (as `baton send` takes it: send [OPTIONS] <NAME> [PROMPT]...)"),
        ("send --help", "send: its help is `baton send --help`, in a shell (as `baton send` takes it: send [OPTIONS] <NAME> [PROMPT]...)"),
        ("rm", "rm: NAME is missing (as `baton rm` takes it: rm [OPTIONS] <NAME>)"),
        ("rename a", "rename: NEW_NAME is missing (as `baton rename` takes it: rename [OPTIONS] <NAME> [NEW_NAME])"),
        ("rename a b c", "rename: unexpected argument 'c' found (as `baton rename` takes it: rename [OPTIONS] <NAME> [NEW_NAME])"),
        ("rewind a x", "rewind: invalid value 'x' for '<TURN>': invalid digit found in string (as `baton rewind` takes it: rewind [OPTIONS] <NAME> <TURN> [NEW])"),
        ("interrupt a --now", "interrupt: unexpected argument '--now' found (as `baton interrupt` takes it: interrupt <NAME>)"),
        ("new a --dir", "new: a value is required for '--dir <DIR>' but none was supplied (as `baton new` takes it: new [OPTIONS] [NAME])"),
        ("send a --steer --jump hi", "send: the argument '--steer' cannot be used with '--jump' (as `baton send` takes it: send [OPTIONS] <NAME> [PROMPT]...)"),
        ("queue a edit 1", "queue: TEXT is missing (as `baton queue` takes it: queue [OPTIONS] <NAME> [COMMAND])"),
        ("queue a shove 1", "queue: unrecognized subcommand 'shove' (as `baton queue` takes it: queue [OPTIONS] <NAME> [COMMAND])"),
        ("send a 'open", "a quote is not closed"),
    ];
    for (line, want) in table {
        let got = parsed(line).map_err(|e| e.to_string());
        assert_eq!(got, Err(want.to_string()), "{line}");
    }
}

#[test]
fn every_command_the_prompt_takes_is_one_of_batons() {
    use clap::CommandFactory;
    let cli = crate::cli::Cli::command();
    for cmd in TAKEN {
        assert!(cli.find_subcommand(cmd).is_some(), "{cmd}");
    }
    // Each text taking every word left names an argument the command line defines (clap
    // panics on an unknown one): the prompt's own definitions build.
    let mut prompt = prompt_command();
    prompt.build();
}

#[test]
fn dirs_are_made_absolute_against_the_uis_folder_and_home() {
    let table = [
        ("~", "/home/u"),
        ("~/src", "/home/u/src"),
        ("~bob/src", "/w/here/~bob/src"),
        ("/abs", "/abs"),
        ("rel/x", "/w/here/rel/x"),
    ];
    for (dir, want) in table {
        assert_eq!(absolute(dir, "/w/here", Some("/home/u")), want, "{dir}");
    }
    assert_eq!(absolute("~/x", "/w", None), "/w/~/x");
}

#[test]
fn the_prompt_runs_a_typed_command_and_says_its_answer_in_the_status_line() {
    use crate::tui::app::{Effect, Mode, Msg, Tag};
    use crate::tui::testing::{app_with, key, terminal};
    use crossterm::event::KeyCode;
    let mut app = app_with(vec![terminal("api", "claude", "idle", None)]);
    app.update(Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('b'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    app.update(key(KeyCode::Char(':')));
    assert_eq!(
        app.mode,
        Mode::Command {
            text: String::new()
        }
    );
    for c in "send api hi there".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let fx = app.update(key(KeyCode::Enter));
    assert_eq!(app.mode, Mode::Normal);
    assert_eq!(
        fx,
        vec![Effect::Call(
            Tag::Command(Answer::Accepted),
            send("api", "hi there", SendModeArg::Queue, false)
        )]
    );
    let accepted = serde_json::json!({"accepted": true, "name": "api", "input": 1, "mode": "queue", "position": 1, "note": null});
    let accepted = crate::tui::testing::views::answer(crate::protocol::AnswerKind::Sent, accepted);
    app.update(Msg::Reply(Tag::Command(Answer::Accepted), Ok(accepted)));
    let said = app.status.clone().map(|(s, err)| (s.lines().count(), err));
    assert_eq!(said, Some((1, false)));
    let said = app.status.clone().unwrap_or_default().0;
    assert!(
        said.starts_with("accepted as input 1 of api (queue, position 1)"),
        "{said}"
    );
    // A refused line: its error, and nothing asked of the server.
    app.update(Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('b'),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    app.update(key(KeyCode::Char(':')));
    app.update(key(KeyCode::Char('x')));
    assert_eq!(app.update(key(KeyCode::Enter)), vec![]);
    assert_eq!(
        app.status
            .map(|(s, err)| (s.starts_with("x: no such command"), err)),
        Some((true, true))
    );
}
