//! Tests of what `/cost` says of a terminal's summed and last turn's cost.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::line;
use crate::tui::testing::views;

fn turn(n: u32, status: Option<&str>, cost: Value, finished: Option<&str>) -> Value {
    json!({"number": n, "status": status, "cost": cost,
           "started_at": "2026-01-01T00:00:00.000Z", "finished_at": finished})
}

#[test]
fn cost_sums_the_terminals_turns_and_says_the_last_ones_cost_and_time() {
    let claude = |i, c, o, usd: f64| json!({"input_tokens": i, "cached_tokens": c, "output_tokens": o, "usd": usd});
    let codex = json!({"input_tokens": 900, "cached_tokens": 0, "output_tokens": 20});
    let cases: [(&str, Vec<Value>, &str); 5] = [
        ("none yet", vec![], "api: 0 turns · no cost reported yet"),
        (
            "one claude turn",
            vec![turn(
                1,
                Some("completed"),
                claude(1200, 1000, 30, 0.0125),
                Some("2026-01-01T00:00:04.250Z"),
            )],
            "api: 1 turn · all: 1,200 in (1,000 cached) / 30 out tokens · $0.0125 \
             · last turn #1: 1,200 in (1,000 cached) / 30 out tokens · $0.0125 · 4.2 s",
        ),
        (
            "two turns, money summed",
            vec![
                turn(
                    1,
                    Some("completed"),
                    claude(1000, 0, 10, 0.01),
                    Some("2026-01-01T00:00:01Z"),
                ),
                turn(
                    2,
                    Some("completed"),
                    claude(2000, 0, 20, 0.02),
                    Some("2026-01-01T00:00:02.500Z"),
                ),
            ],
            "api: 2 turns · all: 3,000 in / 30 out tokens · $0.0300 \
             · last turn #2: 2,000 in / 20 out tokens · $0.0200 · 2.5 s",
        ),
        (
            "a codex turn has no money: the sum is the money reported, and says so",
            vec![
                turn(
                    1,
                    Some("completed"),
                    claude(1000, 0, 10, 0.01),
                    Some("2026-01-01T00:00:01Z"),
                ),
                turn(
                    2,
                    Some("completed"),
                    codex.clone(),
                    Some("2026-01-01T00:00:03Z"),
                ),
            ],
            "api: 2 turns · all: 1,900 in / 30 out tokens · $0.0100 (money of the turns \
             that reported it; 1 did not) · last turn #2: 900 in / 20 out tokens · 3.0 s",
        ),
        (
            "the running turn is not the last one",
            vec![
                turn(
                    1,
                    Some("interrupted"),
                    Value::Null,
                    Some("2026-01-01T00:00:01Z"),
                ),
                turn(2, None, Value::Null, None),
            ],
            "api: 1 turn · no cost reported yet · last turn #1 · 1.0 s",
        ),
    ];
    for (what, turns, want) in cases {
        let log = views::log(json!({"name": "api", "turns": turns}));
        assert_eq!(line(&log), want, "{what}");
    }
}
