//! What a local request carries: the system message, as many whole earlier turns as fit the
//! window after leaving room for the answer (oldest left out first, never cut mid-turn), and the
//! current turn so far. Sizes are estimated at about four characters of JSON a token, then
//! scaled by what the server was seen to count: a real server renders the messages and the
//! tool definitions through its chat template, which adds text of its own (llama.cpp with a
//! Hermes-style template: ~480 tokens more than the estimate for baton's six tools).

use serde_json::{json, Value};

/// Characters of serialized JSON counted as one token when estimating.
pub const CHARS_PER_TOKEN: u64 = 4;
/// The window assumed when neither the config nor the server tells it.
pub const DEFAULT_WINDOW: u64 = 8192;

/// Estimated tokens of a message (or any JSON value).
pub fn estimate(v: &Value) -> u64 {
    (v.to_string().len() as u64).div_ceil(CHARS_PER_TOKEN)
}

/// Tokens kept free for the model's answer: a quarter of the window, at most 8192.
pub fn answer_room(window: u64) -> u64 {
    (window / 4).min(8192)
}

/// The scale (in percent) that makes `estimate` count as the `counted` tokens the server saw:
/// never below 100 (the estimate is trusted until the server says it counts more).
pub fn scale_from(estimate: u64, counted: u64) -> u64 {
    if estimate == 0 {
        return 100;
    }
    (counted * 100).div_ceil(estimate).max(100)
}

/// The messages of one request and how many earlier turns were left out of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub messages: Vec<Value>,
    pub left_out: usize,
    /// Estimated tokens of the messages and tool definitions sent.
    pub estimate: u64,
}

/// Builds the request: `turns` are the conversation's earlier turns, oldest first, each whole;
/// `current` is this turn's messages so far (its prompt first). `extra` is what else the request
/// spends (the tool definitions). `scale` (percent, at least 100) is how many tokens the server
/// counts for 100 estimated ones.
pub fn request(
    system: &str,
    turns: &[Vec<Value>],
    current: &[Value],
    extra: u64,
    window: u64,
    scale: u64,
) -> Request {
    let system = json!({"role": "system", "content": system});
    // The budget in estimated tokens: what the server counts as the window minus the answer.
    let budget = window.saturating_sub(answer_room(window)) * 100 / scale.max(100);
    let fixed = estimate(&system) + extra + current.iter().map(estimate).sum::<u64>();
    let mut used = fixed;
    let mut kept = 0;
    for turn in turns.iter().rev() {
        let size: u64 = turn.iter().map(estimate).sum();
        if used + size > budget {
            break;
        }
        used += size;
        kept += 1;
    }
    let left_out = turns.len() - kept;
    let mut messages = vec![system];
    messages.extend(turns[left_out..].iter().flatten().cloned());
    messages.extend(current.iter().cloned());
    Request {
        messages,
        left_out,
        estimate: used,
    }
}

#[cfg(test)]
mod tests {
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
        let fixed =
            estimate(&json!({"role": "system", "content": "rules"})) + estimate(&current[0]);
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
}
