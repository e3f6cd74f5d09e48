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
#[path = "history_tests.rs"]
mod tests;
