//! The socket protocol (`protocol::Request` as the server reads a line, `protocol::Reply` as a
//! client reads one, `ShellInput` on a shell connection): what is written reads back equal and is one line (the framing
//! `server::wire::write_reply` relies on); any other line is refused with a reason.

use proptest::prelude::*;

use super::gen;
use crate::error::BatonError;
use crate::protocol::{
    QueueAction, QueueChange, Reply, Request, SendEvent, SendModeArg, SendRequest, ShellInput,
};
use crate::words::{TurnEvent, TurnStatus};

fn send_request() -> impl Strategy<Value = SendRequest> {
    let opt = || prop::option::of(gen::text());
    (gen::text(), opt(), opt(), opt(), 0u8..3, any::<bool>()).prop_map(
        |(prompt, provider, model, dir, mode, fresh)| SendRequest {
            prompt,
            provider,
            model,
            dir,
            mode: [SendModeArg::Queue, SendModeArg::Steer, SendModeArg::Jump][usize::from(mode)],
            fresh,
        },
    )
}

fn queue_change() -> impl Strategy<Value = QueueChange> {
    let action = prop_oneof![
        gen::text().prop_map(|text| QueueAction::Edit { text }),
        any::<u32>().prop_map(|position| QueueAction::Move { position }),
        Just(QueueAction::Rm),
        Just(QueueAction::Steer),
        Just(QueueAction::Jump),
    ];
    (any::<u32>(), action).prop_map(|(input, action)| QueueChange { input, action })
}

fn request() -> impl Strategy<Value = Request> {
    let name = gen::text;
    prop_oneof![
        Just(Request::Ping),
        Just(Request::Status),
        (name(), send_request(), any::<bool>()).prop_map(|(name, send, detach)| Request::Send {
            name,
            send,
            detach
        }),
        (name(), prop::option::of(queue_change()))
            .prop_map(|(name, change)| Request::Queue { name, change }),
        (
            prop::option::of(name()),
            name(),
            prop::option::of(name()),
            any::<bool>()
        )
            .prop_map(|(n, dir, brief, in_place)| Request::New {
                name: n,
                dir,
                provider: None,
                model: None,
                brief,
                in_place
            }),
        (name(), any::<u32>(), prop::option::of(name()))
            .prop_map(|(name, turn, new)| Request::Rewind { name, turn, new }),
        (any::<u32>(), any::<bool>(), any::<bool>()).prop_map(
            |(older_than_days, dry_run, force)| Request::Prune {
                older_than_days,
                dry_run,
                force
            }
        ),
        (name(), any::<u16>(), any::<u16>()).prop_map(|(name, rows, cols)| Request::Shell {
            name,
            rows,
            cols
        }),
        (name(), prop::option::of(name())).prop_map(|(name, out)| Request::Export { name, out }),
    ]
}

fn turn_event() -> impl Strategy<Value = TurnEvent> {
    prop_oneof![
        (gen::text(), prop::option::of(gen::text()))
            .prop_map(|(session_id, model)| TurnEvent::Session { session_id, model }),
        gen::text().prop_map(|text| TurnEvent::Text { text }),
        (gen::text(), any::<bool>()).prop_map(|(text, start)| TurnEvent::Delta { text, start }),
        any::<u64>().prop_map(|tokens| TurnEvent::Usage { tokens }),
        (
            gen::text(),
            prop::option::of(gen::text()),
            prop::option::of(gen::text()),
            (gen::text(), gen::text())
        )
            .prop_map(|(summary, id, parent, (old, new))| TurnEvent::ToolUse {
                name: "Edit".into(),
                summary,
                id,
                parent,
                edits: vec![crate::words::FileEdit {
                    path: "a.rs".into(),
                    old,
                    new
                }],
            }),
        (
            gen::text(),
            gen::text(),
            any::<bool>(),
            prop::option::of(gen::text())
        )
            .prop_map(|(id, output, is_error, parent)| TurnEvent::ToolResult {
                id,
                output,
                is_error,
                parent
            }),
        (gen::text(), gen::text()).prop_map(|(tool, target)| TurnEvent::Denied { tool, target }),
        (gen::text(), gen::text())
            .prop_map(|(parent, text)| TurnEvent::SubagentText { parent, text }),
        prop::option::of(gen::text()).prop_map(|error| TurnEvent::End {
            status: TurnStatus::Failed,
            error
        }),
    ]
}

fn reply() -> impl Strategy<Value = Reply> {
    prop_oneof![
        turn_event().prop_map(|event| Reply::Event {
            event: SendEvent::Turn { event }
        }),
        any::<usize>().prop_map(|ahead| Reply::Event {
            event: SendEvent::Queued { ahead }
        }),
        gen::text().prop_map(|message| Reply::Event {
            event: SendEvent::Note { message }
        }),
        gen::value().prop_map(|data| Reply::Ok { data }),
        gen::text().prop_map(|m| Reply::Error {
            error: BatonError::failed(m)
        }),
    ]
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn a_request_written_is_one_line_that_reads_back_equal(r in request()) {
        let line = serde_json::to_string(&r).unwrap();
        prop_assert!(!line.contains('\n'));
        prop_assert_eq!(serde_json::from_str::<Request>(&format!("{line}\n")).unwrap(), r);
    }

    #[test]
    fn a_reply_written_is_one_line_that_reads_back_equal(r in reply()) {
        let line = serde_json::to_string(&r).unwrap();
        prop_assert!(!line.contains('\n'));
        prop_assert_eq!(serde_json::from_str::<Reply>(&line).unwrap(), r);
    }

    #[test]
    fn any_line_is_read_or_refused_with_a_reason(line in "\\PC{0,64}") {
        for e in [serde_json::from_str::<Request>(&line).err(), serde_json::from_str::<Reply>(&line).err()].into_iter().flatten() {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn a_request_with_a_field_mutated_is_read_or_refused(r in request(), picks in prop::collection::vec(any::<usize>(), 0..3), with in gen::value()) {
        let line = gen::mutate(&serde_json::to_value(&r).unwrap(), &picks, with).to_string();
        let _ = serde_json::from_str::<Request>(&line);
        let _ = serde_json::from_str::<Reply>(&line);
    }

    #[test]
    fn a_request_cut_short_is_refused(r in request(), cut in any::<prop::sample::Index>()) {
        let line = serde_json::to_string(&r).unwrap();
        let mut end = cut.index(line.len());
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        prop_assert!(serde_json::from_str::<Request>(&line[..end]).is_err());
    }
}

fn shell_input() -> impl Strategy<Value = ShellInput> {
    prop_oneof![
        gen::text().prop_map(ShellInput::Input),
        any::<[u16; 2]>().prop_map(ShellInput::Resize),
        Just(ShellInput::History),
    ]
}

proptest! {
    #![proptest_config(super::config())]

    /// A shell connection's client lines, as the server reads them.
    #[test]
    fn a_shell_input_line_reads_back_equal_and_any_other_is_refused(i in shell_input(), junk in "\\PC{0,40}") {
        let line = serde_json::to_string(&i).unwrap();
        prop_assert!(!line.contains('\n'));
        prop_assert_eq!(serde_json::from_str::<ShellInput>(&line).unwrap(), i);
        if let Err(e) = serde_json::from_str::<ShellInput>(&junk) {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}

#[test]
fn hostile_lines_are_refused() {
    for line in gen::hostile_lines() {
        assert!(
            serde_json::from_str::<Request>(&line).is_err(),
            "{line:.40}"
        );
        assert!(serde_json::from_str::<Reply>(&line).is_err(), "{line:.40}");
        assert!(
            serde_json::from_str::<ShellInput>(&line).is_err(),
            "{line:.40}"
        );
    }
}
