//! What a page joining a host's shared channel (`web::channel`) is told before the live lines,
//! so it draws what a page that was there from the start draws: one small state machine per
//! host, folded from the lines the channel passes on. Pure.
//!
//! `Connecting` (the channel's first ssh not through yet) → `Online` at the host's first watch
//! line (its `terminals` snapshot) → `Offline(why)` when the channel fails or ends → `Online`
//! again at the next channel's snapshot. While online it keeps the host's list with every later
//! `terminal`, `renamed` and `removed` folded in, and each running turn's steps from its
//! `started` (a `finished` drops them), as the host's own watch replays them to a newcomer. A
//! newcomer gets the link line, then (online) the list and the running turns' steps. Offline
//! it gets the link line only: a page that opens then gets the next channel's snapshot, as a
//! fresh page always did.

use std::collections::BTreeMap;

use serde_json::Value;

use super::hosts::{link_line, Link};
use crate::protocol::views::TerminalView;
use crate::protocol::{Reply, SendEvent, WatchEvent};

/// How one host's shared channel stands, and what a newcomer needs of it.
#[derive(Debug, Clone, PartialEq)]
pub struct HostState {
    host: String,
    stand: Stand,
}

#[derive(Debug, Clone, PartialEq)]
enum Stand {
    Connecting,
    Online(Listing),
    Offline(String),
}

/// The host's list as the page holds it, and the steps of its running turns.
#[derive(Debug, Clone, PartialEq, Default)]
struct Listing {
    terminals: Vec<TerminalView>,
    turns: BTreeMap<String, Vec<SendEvent>>,
}

impl HostState {
    pub fn new(host: &str) -> HostState {
        HostState {
            host: host.to_string(),
            stand: Stand::Connecting,
        }
    }

    /// The channel is up (its first watch line came): the `online` line to pass on.
    pub fn online(&mut self) -> String {
        self.stand = Stand::Online(Listing::default());
        link_line(&self.host, Link::Online, None)
    }

    /// The channel failed or ended: the `offline` line to pass on. What it listed is stale.
    pub fn offline(&mut self, why: &str) -> String {
        self.stand = Stand::Offline(why.to_string());
        link_line(&self.host, Link::Offline, Some(why))
    }

    /// One of the host's watch events (names qualified) folded in: its line to pass on.
    pub fn event(&mut self, event: WatchEvent) -> String {
        let line = event_line(&self.host, &event);
        if let Stand::Online(l) = &mut self.stand {
            l.fold(event);
        }
        line
    }

    /// What a page that joins now is told first, in order.
    pub fn replay(&self) -> Vec<String> {
        let host = self.host.as_str();
        match &self.stand {
            Stand::Connecting => vec![link_line(host, Link::Connecting, None)],
            Stand::Offline(why) => vec![link_line(host, Link::Offline, Some(why))],
            Stand::Online(l) => {
                let list = WatchEvent::Terminals {
                    terminals: l.terminals.clone(),
                };
                let turns = l.turns.iter().flat_map(|(name, steps)| {
                    steps.iter().map(|s| WatchEvent::Turn {
                        name: name.clone(),
                        event: s.clone(),
                    })
                });
                let events = std::iter::once(list).chain(turns);
                std::iter::once(link_line(host, Link::Online, None))
                    .chain(events.map(|e| event_line(host, &e)))
                    .collect()
            }
        }
    }
}

impl Listing {
    fn fold(&mut self, event: WatchEvent) {
        match event {
            WatchEvent::Terminals { terminals } => {
                // The host replays its running turns after its list.
                self.terminals = terminals;
                self.turns.clear();
            }
            WatchEvent::Terminal { terminal } => {
                match self.terminals.iter_mut().find(|t| t.name == terminal.name) {
                    Some(t) => *t = *terminal,
                    None => self.terminals.push(*terminal),
                }
            }
            WatchEvent::Turn { name, event } => {
                let steps = self.turns.entry(name).or_default();
                // A page draws a turn from its start: what came before it is of no use.
                if matches!(event, SendEvent::Started { .. }) {
                    steps.clear();
                }
                steps.push(event);
            }
            WatchEvent::Finished { name, .. } => {
                self.turns.remove(&name);
            }
            WatchEvent::Renamed { name, new_name } => {
                // As the page does: the old row goes, the new one comes in its own line.
                self.terminals.retain(|t| t.name != name);
                if let Some(steps) = self.turns.remove(&name) {
                    self.turns.insert(new_name, steps);
                }
            }
            WatchEvent::Removed { name } => {
                self.terminals.retain(|t| t.name != name);
                self.turns.remove(&name);
            }
            // Said once, to the pages there when it happened.
            WatchEvent::Refused { .. } => {}
        }
    }
}

/// A host's watch event as the page reads it: its `host` added. Pure.
pub fn event_line(host: &str, event: &WatchEvent) -> String {
    let mut v = serde_json::to_value(Reply::Watch {
        event: event.clone(),
    })
    .unwrap_or_default();
    if let Value::Object(m) = &mut v {
        m.insert("host".into(), Value::String(host.to_string()));
    }
    v.to_string()
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
