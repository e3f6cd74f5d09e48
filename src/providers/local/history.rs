//! What a local request carries: the system message, as many whole earlier turns as fit the
//! window after leaving room for the answer (oldest left out first, never cut mid-turn), and the
//! current turn so far. Sizes are estimated at about four characters of JSON a token.

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
/// spends (the tool definitions).
pub fn request(
    system: &str,
    turns: &[Vec<Value>],
    current: &[Value],
    extra: u64,
    window: u64,
) -> Request {
    let system = json!({"role": "system", "content": system});
    let budget = window.saturating_sub(answer_room(window));
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
        let r = request("rules", &turns, &current, 0, 100_000);
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
        let r = request("rules", &turns, &current, 0, 1000);
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
    fn a_current_turn_too_big_leaves_every_earlier_turn_out() {
        let turns = vec![turn(1, 10)];
        let current = vec![json!({"role": "user", "content": "y".repeat(10_000)})];
        let r = request("rules", &turns, &current, 0, 1000);
        assert_eq!(r.left_out, 1);
        assert_eq!(r.messages.len(), 2);
    }
}
