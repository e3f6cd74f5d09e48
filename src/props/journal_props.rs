//! The journal reader (`store::journal::parse`): records written read back equal, any bytes
//! read without a panic, a torn last line skipped and reported, a bad UTF-8 byte kept.

use proptest::prelude::*;

use super::gen;
use crate::store::journal;
use crate::store::records::{Entry, Record};
use crate::words::{ContextUsage, InputMode, ProviderKind, TurnMode, TurnStatus};

fn provider() -> impl Strategy<Value = ProviderKind> {
    prop::sample::select(ProviderKind::all().collect::<Vec<_>>())
}

fn record() -> impl Strategy<Value = Record> {
    let opt = || prop::option::of(gen::text());
    prop_oneof![
        (
            any::<u32>(),
            gen::text(),
            any::<bool>(),
            prop::option::of(provider()),
            opt(),
            opt(),
            any::<bool>()
        )
            .prop_map(|(input, prompt, steer, provider, model, dir, fresh)| {
                Record::InputAccepted {
                    input,
                    prompt,
                    mode: if steer {
                        InputMode::Steer
                    } else {
                        InputMode::Queue
                    },
                    direct: fresh && steer,
                    provider,
                    endpoint: None,
                    model,
                    dir,
                    fresh,
                    retries: None,
                }
            }),
        (
            gen::text(),
            any::<u32>(),
            provider(),
            gen::text(),
            prop::option::of(any::<u32>())
        )
            .prop_map(
                |(turn_id, number, provider, prompt, input)| Record::TurnStarted {
                    conversation_id: turn_id.clone(),
                    turn_id,
                    number,
                    provider,
                    prompt,
                    input,
                    mode: input.map(|_| TurnMode::Jump),
                    standing: Vec::new(),
                    boot: input.map(|n| n.to_string()),
                }
            ),
        gen::text().prop_map(|turn_id| Record::TurnPrompted { turn_id }),
        gen::text().prop_map(|turn_id| Record::TurnVoided { turn_id }),
        (gen::text(), any::<i32>(), any::<u64>()).prop_map(|(turn_id, pid, start_time)| {
            Record::TurnProcess {
                turn_id,
                pid,
                start_time,
            }
        }),
        (
            gen::text(),
            opt(),
            opt(),
            prop::option::of((any::<u64>(), any::<u64>())),
            prop::collection::vec(gen::text(), 0..3)
        )
            .prop_map(
                |(answer, error, model, context, tools)| Record::TurnFinished {
                    turn_id: answer.clone(),
                    status: if error.is_some() {
                        TurnStatus::Failed
                    } else {
                        TurnStatus::Completed
                    },
                    error,
                    session_id: None,
                    model,
                    context: context.map(|(tokens, window)| ContextUsage { tokens, window }),
                    answer,
                    notes: tools.clone(),
                    cost: None,
                    duration_ms: context.map(|(tokens, _)| tokens),
                    tools,
                }
            ),
        (gen::text(), prop::collection::vec(gen::value(), 0..3)).prop_map(|(turn_id, messages)| {
            Record::LocalMessages {
                left_out: messages.len(),
                turn_id,
                messages,
            }
        }),
        (gen::text(), opt()).prop_map(|(text, turn_id)| Record::InstructionAdded { text, turn_id }),
        (gen::text(), gen::text())
            .prop_map(|(text, new_text)| Record::InstructionEdited { text, new_text }),
        gen::text().prop_map(|name| Record::Renamed { name }),
        (any::<u32>(), any::<u32>())
            .prop_map(|(input, position)| Record::InputMoved { input, position }),
        Just(Record::Archived),
        Just(Record::TerminalRemoved),
    ]
}

fn entry() -> impl Strategy<Value = Entry> {
    (gen::text(), record()).prop_map(|(at, record)| Entry { at, record })
}

/// The journal's bytes as `journal::write` writes them.
fn lines(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        out.extend(serde_json::to_vec(e).unwrap());
        out.push(b'\n');
    }
    out
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn records_written_read_back_equal(entries in prop::collection::vec(entry(), 0..6)) {
        let read = journal::parse(&lines(&entries));
        prop_assert_eq!(read.skipped, vec![]);
        prop_assert_eq!(read.last_line, entries.len());
        prop_assert_eq!(read.entries, entries);
    }

    #[test]
    fn any_bytes_read_without_a_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let read = journal::parse(&bytes);
        let lines = bytes.split(|b| *b == b'\n').count();
        prop_assert!(read.last_line <= lines);
        prop_assert!(read.entries.len() + read.skipped.len() <= lines + read.skipped.len());
        prop_assert!(read.skipped.iter().all(|(n, why)| *n >= 1 && *n <= lines && !why.is_empty()));
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_reported(entries in prop::collection::vec(entry(), 1..4), cut in any::<prop::sample::Index>()) {
        let (last, whole) = entries.split_last().unwrap();
        let line = serde_json::to_vec(last).unwrap();
        let mut bytes = lines(whole);
        bytes.extend_from_slice(&line[..cut.index(line.len())]);
        let read = journal::parse(&bytes);
        prop_assert_eq!(&read.entries[..], whole);
        let torn = !line[..cut.index(line.len())].iter().all(u8::is_ascii_whitespace);
        prop_assert_eq!(read.skipped.len(), usize::from(torn));
        if torn {
            prop_assert_eq!(read.skipped[0].0, entries.len());
        }
    }

    #[test]
    fn a_bad_utf8_byte_in_a_text_keeps_the_line(text in "[A-Z]{1,10}", at in any::<prop::sample::Index>(), bad in 0x80u8..=0xff) {
        let e = Entry { at: "t".into(), record: Record::Renamed { name: text.clone() } };
        let mut line = serde_json::to_vec(&e).unwrap();
        let start = line.windows(text.len()).position(|w| w == text.as_bytes()).unwrap();
        line[start + at.index(text.len())] = bad;
        let read = journal::parse(&line);
        prop_assert_eq!(read.entries.len(), 1);
        prop_assert_eq!(read.skipped.len(), 1);
        let Record::Renamed { name } = &read.entries[0].record else { panic!("not a rename") };
        prop_assert!(name.contains(char::REPLACEMENT_CHARACTER));
    }

    #[test]
    fn a_written_line_with_a_field_mutated_never_panics(e in entry(), picks in prop::collection::vec(any::<usize>(), 0..4), with in gen::value()) {
        let value = serde_json::to_value(&e).unwrap();
        let line = gen::mutate(&value, &picks, with).to_string();
        let read = journal::parse(line.as_bytes());
        prop_assert_eq!(read.entries.len() + read.skipped.len(), 1);
    }
}

/// Found by `records_written_read_back_equal`: serde_json's default float parsing could read
/// a number back one ulp off, so a journalled message changed on every reindex.
#[test]
fn a_float_in_a_local_message_reads_back_exactly() {
    let e = Entry {
        at: "t".into(),
        record: Record::LocalMessages {
            turn_id: "t1".into(),
            messages: vec![
                serde_json::json!({"type": 4.434148469522327e191, "p": 1.5606077547944084e-16}),
            ],
            left_out: 0,
        },
    };
    assert_eq!(
        journal::parse(&lines(std::slice::from_ref(&e))).entries,
        vec![e]
    );
}

#[test]
fn hostile_lines_are_skipped_each_with_its_line() {
    let hostile = gen::hostile_lines();
    let read = journal::parse(hostile.join("\n").as_bytes());
    assert_eq!(read.entries, vec![]);
    let blank = hostile.iter().filter(|l| l.trim().is_empty()).count();
    assert_eq!(read.skipped.len(), hostile.len() - blank);
}
