//! The terminal list's entries: a queue held after an interrupt, each terminal's cost where
//! the list is wide enough, and nothing of it where it is not; the integration lane's mark.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use crate::tui::testing::{app_with, screen, views};

/// The list's rows (the inside of its box) on a screen `w` wide.
fn list_rows(terms: Vec<Value>, w: u16) -> Vec<String> {
    let mut app = app_with(terms.into_iter().map(views::terminal).collect());
    let inner = if w >= 150 { 36 } else { 26 };
    screen(&mut app, w, 8)
        .lines()
        .skip(1)
        .take(4)
        .map(|l| {
            let row: String = l.chars().skip(1).take(inner).collect();
            row.trim_end().to_string()
        })
        .collect()
}

fn waiting(n: u32, held: bool) -> Value {
    let queue: Vec<Value> = (1..=n)
        .map(|i| {
            json!({"input": i, "position": i, "prompt": format!("p{i}"), "mode": "queue",
                   "provider": "claude", "model": null, "queued_at": "2026-01-01T00:00:00Z",
                   "held": held})
        })
        .collect();
    Value::Array(queue)
}

#[test]
fn a_held_queue_is_marked_with_its_count_where_the_state_goes() {
    let rows = list_rows(
        vec![
            json!({"name": "api", "queued": 2, "queue": waiting(2, true), "queue_held": true}),
            json!({"name": "web", "state": "queued", "queued": 1, "queue": waiting(1, false)}),
        ],
        100,
    );
    let want = [
        "0 api             ⏸ 2 held",
        "  claude   ctx –",
        "1 web             ◌ queued",
        "  claude   ctx –",
    ];
    assert_eq!(rows, want);
}

#[test]
fn the_cost_shows_on_a_wide_screen_only() {
    let terms = || {
        vec![
            json!({"name": "api", "cost": {"input_tokens": 1200, "cached_tokens": 0,
                                           "output_tokens": 50, "usd": 0.1234},
                   "context": {"tokens": 20000, "window": 200000}}),
            json!({"name": "web", "provider": "codex", "cost": {"input_tokens": 41000,
                   "cached_tokens": 0, "output_tokens": 900}}),
            json!({"name": "new"}),
        ]
    };
    let wide = list_rows(terms(), 160);
    assert_eq!(wide[1], "  claude       $0.12 █····┃····  10%");
    assert_eq!(wide[3], "  codex      42k tok ctx –");
    let narrow = list_rows(terms(), 120);
    assert!(!narrow.concat().contains('$'), "{narrow:#?}");
    assert!(!narrow.concat().contains("tok"), "{narrow:#?}");
}

#[test]
fn the_lane_marks_a_conflict_and_rings_when_one_appears() {
    use crate::tui::app::Effect;
    use crate::tui::testing::announce;
    let conflict = json!({"name": "web", "status": "conflict", "conflicts_with": ["api"],
                          "conflicts_with_base": false, "files": ["x.rs"], "merged": false,
                          "branch": "baton/web", "commit": null, "check_output": null,
                          "note": null});
    let rows = list_rows(
        vec![
            json!({"name": "api"}),
            json!({"name": "web", "lane": conflict.clone()}),
        ],
        100,
    );
    assert_eq!(rows[2], "1 web ⚠ conflict      idle");
    // Clean, then conflicting: the bell says with whom; still conflicting: said once.
    let mut app = app_with(vec![views::terminal(json!({"name": "web"}))]);
    let marked = views::terminal(json!({"name": "web", "lane": conflict}));
    let fx = app.update(announce(marked.clone()));
    assert_eq!(
        fx.iter()
            .filter(|e| matches!(e, Effect::Notify { .. }))
            .cloned()
            .collect::<Vec<_>>(),
        vec![Effect::Notify {
            title: "baton".into(),
            body: "web: conflict with api on x.rs (baton integrate web)".into()
        }]
    );
    let fx = app.update(announce(marked));
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::Notify { .. })),
        "{fx:?}"
    );
}

#[test]
fn a_terminal_waiting_to_start_keeps_its_name_and_says_how_many_are_ahead() {
    let rows = list_rows(
        vec![
            json!({"name": "api", "state": "queued", "start_ahead": 0}),
            json!({"name": "web", "state": "queued", "start_ahead": 1}),
        ],
        100,
    );
    let want = [
        "0 api            ◌ 0 ahead",
        "  claude   ctx –",
        "1 web            ◌ 1 ahead",
        "  claude   ctx –",
    ];
    assert_eq!(rows, want);
}
