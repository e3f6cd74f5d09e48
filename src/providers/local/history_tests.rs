//! Tests of trimming the history to the window, and of the scale of estimates.

use super::*;
use pretty_assertions::assert_eq;

fn turn(i: usize, chars: usize) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": format!("q{i}")}),
        json!({"role": "assistant", "content": "x".repeat(chars)}),
    ]
}

#[test]
fn everything_fits_in_a_big_window() {
    let turns = vec![turn(1, 10), turn(2, 10)];
    let current = vec![json!({"role": "user", "content": "now"})];
    let r = request("rules", &turns, &current, 0, 100_000, 100);
    assert_eq!(r.left_out, 0);
    assert_eq!(r.messages.len(), 6);
    assert_eq!(r.messages[0], json!({"role": "system", "content": "rules"}));
    assert_eq!(r.messages[5], current[0]);
}

#[test]
fn the_oldest_whole_turns_go_first() {
    // Each turn is about 2 * 25 + 400 / 4 = 150 tokens; window 1000 leaves 750 for the prompt.
    let turns: Vec<_> = (1..=6).map(|i| turn(i, 400)).collect();
    let current = vec![json!({"role": "user", "content": "now"})];
    let r = request("rules", &turns, &current, 0, 1000, 100);
    let per_turn: u64 = turns[0].iter().map(estimate).sum();
    let fixed = estimate(&json!({"role": "system", "content": "rules"})) + estimate(&current[0]);
    let fit = ((750 - fixed) / per_turn) as usize;
    assert_eq!(r.left_out, 6 - fit);
    assert!(r.estimate <= 750);
    // What is kept is whole turns, newest last, right before the prompt.
    assert_eq!(r.messages.len(), 1 + 2 * fit + 1);
    assert_eq!(r.messages[1]["content"], format!("q{}", 6 - fit + 1));
    assert_eq!(r.messages[r.messages.len() - 2], turns[5][1]);
}

#[test]
fn a_scale_learnt_from_the_server_leaves_more_turns_out() {
    let turns: Vec<_> = (1..=6).map(|i| turn(i, 400)).collect();
    let current = vec![json!({"role": "user", "content": "now"})];
    let kept = |scale| 6 - request("rules", &turns, &current, 0, 1000, scale).left_out;
    // Each turn is ~117 estimated tokens and the budget 750: at 200% it holds 375.
    assert_eq!(
        [100, 150, 200, 1000].map(kept),
        [6, 4, 3, 0],
        "turns kept at each scale"
    );
    // Below 100 is read as 100: the estimate is never trusted less than as it is.
    assert_eq!(kept(50), kept(100));
}

#[test]
fn the_scale_is_what_the_server_counted_over_the_estimate() {
    let cases = [
        // (estimate, counted) -> percent
        ((641, 1120), 175),
        ((1526, 2055), 135),
        ((1000, 900), 100),
        ((0, 500), 100),
    ];
    for ((estimate, counted), want) in cases {
        assert_eq!(scale_from(estimate, counted), want, "{estimate} {counted}");
    }
}

#[test]
fn a_current_turn_too_big_leaves_every_earlier_turn_out() {
    let turns = vec![turn(1, 10)];
    let current = vec![json!({"role": "user", "content": "y".repeat(10_000)})];
    let r = request("rules", &turns, &current, 0, 1000, 100);
    assert_eq!(r.left_out, 1);
    assert_eq!(r.messages.len(), 2);
}
