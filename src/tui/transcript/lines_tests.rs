//! Tests of transcript lines: wrapping and truncating by display width, rewrapping only the
//! streamed turn, and control characters kept off the screen.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn wraps_at_spaces_and_breaks_long_words() {
    let table: &[(&str, usize, &[&str])] = &[
        ("hello world", 20, &["hello world"]),
        ("hello world", 5, &["hello", "world"]),
        ("abcdefghij", 4, &["abcd", "efgh", "ij"]),
        ("", 4, &[""]),
        ("a  b", 1, &["a", "b"]),
        ("日本語のテキスト", 6, &["日本語", "のテキ", "スト"]),
    ];
    for (text, width, want) in table {
        assert_eq!(&wrap_line(text, *width), want, "{text:?} at {width}");
    }
}

#[test]
fn truncates_by_display_width() {
    assert_eq!(truncate("hello", 10), "hello");
    assert_eq!(truncate("hello world", 6), "hello…");
    assert_eq!(truncate("x", 0), "");
}

fn turn(number: u32, text: &str, running: bool) -> TurnEntry {
    TurnEntry {
        number,
        conversation: 1,
        opened: (number == 1).then_some(OpenReason::First),
        rotate_at: 0.45,
        switched: false,
        provider: "claude".into(),
        prompt: Some(format!("prompt {number}")),
        parts: vec![Part::Text(text.into())],
        end: (!running).then_some(TurnEnd {
            rotates_next: false,
            status: TurnStatus::Completed,
            error: None,
            context: None,
            model: None,
            cost: None,
            elapsed_ms: None,
        }),
        rev: 0,
        started: None,
        now: None,
        tokens: None,
    }
}

#[test]
fn a_streamed_chunk_rewraps_only_its_turn() {
    use crate::protocol::SendEvent;
    use crate::words::TurnEvent;
    let long = "words that wrap across several rows of a narrow pane ".repeat(4);
    let mut t = Transcript {
        turns: vec![
            turn(1, &long, false),
            turn(2, &long, false),
            turn(3, "a", true),
        ],
        ..Transcript::default()
    };
    let mut cache = LineCache::default();
    let check = |cache: &LineCache, t: &Transcript, width: u16| {
        let full = transcript_rows(t, width, false);
        assert_eq!(cache.lines, full.lines);
        assert_eq!(cache.soft, full.soft);
    };
    rewrap(&mut cache, "api", &t, 30, false);
    assert_eq!(cache.wrapped, 3);
    check(&cache, &t, 30);
    // Nothing changed: nothing is wrapped.
    rewrap(&mut cache, "api", &t, 30, false);
    assert_eq!(cache.wrapped, 3);
    for n in 0..5 {
        let chunk = SendEvent::Turn {
            event: TurnEvent::Text {
                text: format!("chunk {n} of the streamed answer"),
            },
        };
        t.step(&chunk);
        rewrap(&mut cache, "api", &t, 30, false);
        assert_eq!(cache.wrapped, 4 + n, "chunk {n}");
        check(&cache, &t, 30);
    }
    // An older turn changing (its end arriving late) re-wraps that turn alone.
    t.version += 1;
    t.turns[1].rev = t.version;
    t.turns[1].end = None;
    rewrap(&mut cache, "api", &t, 30, false);
    assert_eq!(cache.wrapped, 9);
    check(&cache, &t, 30);
    // A new width, or another terminal, wraps everything again.
    rewrap(&mut cache, "api", &t, 50, false);
    assert_eq!(cache.wrapped, 12);
    check(&cache, &t, 50);
    t.turns.remove(0);
    t.version += 1;
    rewrap(&mut cache, "api", &t, 50, false);
    check(&cache, &t, 50);
}

#[test]
fn control_characters_never_reach_the_screen() {
    assert_eq!(clean("a\x1b[31mb\tc\r\n"), "a[31mb    c\n");
}

#[test]
fn the_turn_line_says_what_it_took_and_ticks_while_running() {
    let mut t = turn(1, "a", false);
    let Some(end) = t.end.as_mut() else {
        panic!("ended")
    };
    end.elapsed_ms = Some(8_140);
    end.cost = Some(crate::words::TurnCost {
        input_tokens: 10_135,
        cached_tokens: 8_000,
        output_tokens: 10,
        usd: Some(0.0042),
    });
    let mut end = end.clone();
    assert_eq!(
        summary_text(&t, &end),
        "completed · claude · context not reported · 8.1 s · \
         10,135 in (8,000 cached) / 10 out tokens · $0.0042"
    );
    end.elapsed_ms = Some(125_000);
    assert!(summary_text(&t, &end).contains(" · 2 min 05 s · "));
    let mut running = turn(2, "b", true);
    assert_eq!(running_text(&running), "… working");
    let start = chrono::Utc::now();
    running.started = Some(start);
    running.now = Some(start + chrono::Duration::milliseconds(12_400));
    running.tokens = Some(6_003);
    assert_eq!(
        running_text(&running),
        "… working · 12 s · 6,003 tokens in context"
    );
}

#[test]
fn a_denial_says_what_was_refused_and_where_to_allow_it() {
    let mut t = turn(1, "a", false);
    t.parts = vec![Part::Denied {
        tool: "Bash".into(),
        target: "rm -rf build".into(),
    }];
    let mut out = Rows::default();
    turn_lines(&t, &Marks::default(), 400, false, &mut out);
    let text: Vec<String> = out
        .lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert!(
        text.iter().any(|l| l.starts_with(
            "  ! Bash(rm -rf build) was refused: allow it in Claude's settings (permissions.allow"
        ) && l
            .contains("\"--allowedTools\", \"Bash(rm -rf build)\" to [providers.claude] args")),
        "{text:#?}"
    );
}
