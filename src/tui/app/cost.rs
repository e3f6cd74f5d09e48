//! `/cost`: what the focused terminal's turns cost, in one line of the status line (as Claude
//! Code's own `/cost` says it): all its turns summed, then its last finished turn's cost and
//! time. Pure: read from the terminal's `log` view, table-tested.

use crate::client::render::cost_text;
use crate::protocol::views::LogView;
use crate::words::TurnCost;

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
        Some(total) => parts.push(format!("all: {}", cost_text(&total))),
        None => parts.push("no cost reported yet".to_string()),
    }
    let last = log.turns.iter().rev().find(|t| t.turn.status.is_some());
    if let Some(t) = last {
        let mut said = format!("last turn #{}", t.turn.number);
        if let Some(c) = &t.turn.cost {
            said.push_str(&format!(": {}", cost_text(c)));
        }
        if let Some(ms) = elapsed_ms(&t.turn.started_at, t.turn.finished_at.as_deref()) {
            said.push_str(&format!(" · {:.1} s", ms as f64 / 1000.0));
        }
        parts.push(said);
    }
    parts.join(" · ")
}

/// The costs added up; money only when every turn that reported a cost reported money.
fn sum(costs: &[&TurnCost]) -> Option<TurnCost> {
    let first = costs.first()?;
    let mut total = TurnCost {
        usd: first.usd.map(|_| 0.0),
        ..TurnCost::default()
    };
    for c in costs {
        total.input_tokens = total.input_tokens.saturating_add(c.input_tokens);
        total.cached_tokens = total.cached_tokens.saturating_add(c.cached_tokens);
        total.output_tokens = total.output_tokens.saturating_add(c.output_tokens);
        total.usd = match (total.usd, c.usd) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }
    Some(total)
}

/// Milliseconds between two RFC 3339 times (None: unfinished, or a time that does not read).
fn elapsed_ms(started: &str, finished: Option<&str>) -> Option<i64> {
    let start = chrono::DateTime::parse_from_rfc3339(started).ok()?;
    let end = chrono::DateTime::parse_from_rfc3339(finished?).ok()?;
    Some((end - start).num_milliseconds().max(0))
}

#[cfg(test)]
#[path = "cost_tests.rs"]
mod tests;
