//! `/cost`: what the focused terminal's turns cost, in one line of the status line (as Claude
//! Code's own `/cost` says it): all its turns summed, then its last finished turn's cost and
//! time. Pure: read from the terminal's `log` view, table-tested.

use crate::client::render::cost_text;
use crate::protocol::views::LogView;
use crate::words::{duration_text, turn_duration_ms, TimeText, TurnCost};

/// The one line `/cost` says for `log`.
pub fn line(log: &LogView) -> String {
    let reported: Vec<&TurnCost> = log
        .turns
        .iter()
        .filter_map(|t| t.turn.cost.as_ref())
        .collect();
    let finished = log.turns.iter().filter(|t| t.turn.status.is_some()).count();
    let mut parts = vec![format!(
        "{}: {finished} turn{}",
        log.name,
        if finished == 1 { "" } else { "s" }
    )];
    match sum(&reported) {
        Some(total) => {
            let mut all = format!("all: {}", cost_text(&total));
            // As `ls` and `show` sum it: the money reported, saying which turns had none.
            let unpriced = reported.iter().filter(|c| c.usd.is_none()).count();
            if total.usd.is_some() && unpriced > 0 {
                all.push_str(&format!(
                    " (money of the turns that reported it; {unpriced} did not)"
                ));
            }
            parts.push(all);
        }
        None => parts.push("no cost reported yet".to_string()),
    }
    let last = log.turns.iter().rev().find(|t| t.turn.status.is_some());
    if let Some(t) = last {
        let mut said = format!("last turn #{}", t.turn.number);
        if let Some(c) = &t.turn.cost {
            said.push_str(&format!(": {}", cost_text(c)));
        }
        if let Some(ms) = turn_duration_ms(None, &t.turn.started_at, t.turn.finished_at.as_deref())
        {
            said.push_str(&format!(" · {}", duration_text(ms, TimeText::Tenths)));
        }
        parts.push(said);
    }
    parts.join(" · ")
}

/// The costs added up; money summed over the turns that reported it (none when none did), as
/// the index sums it for `ls` and `show`.
fn sum(costs: &[&TurnCost]) -> Option<TurnCost> {
    if costs.is_empty() {
        return None;
    }
    let mut total = TurnCost::default();
    for c in costs {
        total.input_tokens = total.input_tokens.saturating_add(c.input_tokens);
        total.cached_tokens = total.cached_tokens.saturating_add(c.cached_tokens);
        total.output_tokens = total.output_tokens.saturating_add(c.output_tokens);
        total.usd = match (total.usd, c.usd) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }
    Some(total)
}

#[cfg(test)]
#[path = "cost_tests.rs"]
mod tests;
