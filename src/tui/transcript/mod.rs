//! A terminal's transcript as the UI keeps it: every turn (from `log`), updated live from the
//! watch stream. Pure data; `lines` turns it into screen lines (`tool_lines` a tool call's,
//! `markdown` an answer's), `tools` keeps tool calls with their results and subagents.
//!
//! A running turn knows when it started (the log's `started_at`, else this client's clock at
//! its `Started` step) and the latest time the loop ticked ([`Transcript::tick`]), so its
//! elapsed time is drawn from data and the lines stay a pure function of the transcript.

pub mod lines;
pub mod markdown;
pub mod tool_lines;
pub mod tools;

use chrono::{DateTime, Utc};

use crate::protocol::views::{ConversationView, ForkedView, LogTurnView, LogView};
use crate::protocol::{SendEvent, SessionStart, TurnSummary};
use crate::words::{turn_duration_ms, OpenReason};
use crate::words::{ContextUsage, TurnCost, TurnEvent, TurnStatus};
pub use tools::{ToolOutput, ToolPart};

/// One piece of a turn, in the order it arrived.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A piece of the answer.
    Text(String),
    /// A tool call, with what it gave back.
    Tool(ToolPart),
    /// A tool call the CLI refused to run (what it would have done).
    Denied { tool: String, target: String },
    /// Something baton did (a lost session restarted…).
    Note(String),
    /// Something the provider warned about.
    Warning(String),
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEnd {
    pub status: TurnStatus,
    pub error: Option<String>,
    pub context: Option<ContextUsage>,
    /// The server said its context passed the rotation line.
    pub rotates_next: bool,
    pub model: Option<String>,
    /// What it cost, as the CLI reported it.
    pub cost: Option<TurnCost>,
    /// From its start to its end (None: not known, a turn from before times were kept).
    pub elapsed_ms: Option<u64>,
}

/// One turn as the transcript shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnEntry {
    pub number: u32,
    pub conversation: u32,
    /// Why a conversation opened for this turn, if one did.
    pub opened: Option<OpenReason>,
    /// The rotation line the server judged by (for the `size` divider's text).
    pub rotate_at: f64,
    /// The provider changed at this turn (a new provider session in the same conversation).
    pub switched: bool,
    pub provider: String,
    /// None while the UI does not know it yet (a turn started by another client).
    pub prompt: Option<String>,
    pub parts: Vec<Part>,
    /// None while the turn runs.
    pub end: Option<TurnEnd>,
    /// The transcript's `version` when this turn last changed: drawing re-wraps only the
    /// turns whose `rev` moved.
    pub rev: u64,
    /// When it started (None: not known).
    pub started: Option<DateTime<Utc>>,
    /// The last tick while it runs (its elapsed time is drawn up to here).
    pub now: Option<DateTime<Utc>>,
    /// The context of its latest model call, as streamed (while it runs).
    pub tokens: Option<u64>,
}

/// An RFC 3339 time of a view.
fn time_of(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Every turn of one terminal, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    pub turns: Vec<TurnEntry>,
    /// Bumped on every change, so drawing can cache wrapped lines.
    pub version: u64,
    /// The terminal's whole history (`log`) has been read at least once.
    pub loaded: bool,
    /// The running turn (its number) missed steps while this client fell behind: its parts
    /// have gaps until the log, read again when it ends, replaces them.
    pub gapped: Option<u32>,
    /// The conversations' titles, by number (the dividers show them).
    pub titles: Vec<(u32, String)>,
    /// The terminal this one was forked or rewound from.
    pub forked_from: Option<ForkedView>,
    /// The terminals forked or rewound from this one.
    pub forked_into: Vec<ForkedView>,
    /// How its worktree was made ready (`log`'s).
    pub setup: Option<crate::protocol::views::SetupView>,
}

/// One turn of `log`; `prev` is the turn before it, for the dividers.
fn entry_from_log(
    t: &LogTurnView,
    convs: &[ConversationView],
    rotate_at: f64,
    prev: Option<&TurnEntry>,
) -> TurnEntry {
    let conversation = t.conversation.unwrap_or(0);
    let turn = &t.turn;
    let provider = turn.provider.to_string();
    let new_conv = prev.is_none_or(|p| p.conversation != conversation);
    let opened = new_conv.then(|| {
        convs
            .iter()
            .find(|c| c.number == conversation)
            .map_or(OpenReason::First, |c| c.opened_reason)
    });
    let switched = !new_conv && prev.is_some_and(|p| p.provider != provider);
    let mut parts: Vec<Part> = turn
        .tools
        .iter()
        .map(|s| Part::Tool(ToolPart::named(s)))
        .collect();
    let started = time_of(&turn.started_at);
    if let Some(a) = turn.answer.as_ref().filter(|a| !a.is_empty()) {
        parts.push(Part::Text(a.clone()));
    }
    parts.extend(turn.notes.iter().cloned().map(Part::Note));
    let end = turn.status.map(|status| TurnEnd {
        status,
        error: turn.error.clone(),
        context: turn.context,
        rotates_next: t.rotates_next,
        model: turn.model.clone(),
        cost: turn.cost,
        // The log's turns carry their times, not the server's measure (`--json` is fixed).
        elapsed_ms: turn_duration_ms(None, &turn.started_at, turn.finished_at.as_deref()),
    });
    TurnEntry {
        number: turn.number,
        conversation,
        opened,
        rotate_at,
        switched,
        provider,
        prompt: Some(turn.prompt.clone()),
        parts,
        end,
        rev: 0,
        started,
        now: None,
        tokens: None,
    }
}

/// A delta extends the answer piece it belongs to: the last part when it is text and the delta
/// does not start a new piece, else a new text part.
fn append_delta(parts: &mut Vec<Part>, text: &str, start: bool) {
    match parts.last_mut() {
        Some(Part::Text(piece)) if !start => piece.push_str(text),
        _ => parts.push(Part::Text(text.to_string())),
    }
}

/// Applies one event of a turn to its parts (and its streamed context); false for an event
/// that changes neither (its session, its end).
fn apply_event(parts: &mut Vec<Part>, tokens: &mut Option<u64>, event: &TurnEvent) -> bool {
    let part = match event {
        TurnEvent::Text { text } => Part::Text(text.clone()),
        TurnEvent::Delta { text, start } => {
            append_delta(parts, text, *start);
            return true;
        }
        TurnEvent::ToolUse { .. }
        | TurnEvent::ToolResult { .. }
        | TurnEvent::SubagentText { .. } => {
            tools::apply(parts, event);
            return true;
        }
        TurnEvent::Usage { tokens: t } => {
            *tokens = Some(*t);
            return true;
        }
        TurnEvent::Denied { tool, target } => Part::Denied {
            tool: tool.clone(),
            target: target.clone(),
        },
        TurnEvent::Warning { message } => Part::Warning(message.clone()),
        TurnEvent::Notice { message } => Part::Note(message.clone()),
        TurnEvent::Session { .. } | TurnEvent::End { .. } => return false,
    };
    parts.push(part);
    true
}

impl Transcript {
    /// The finished turns (numbers) whose tool calls the log keeps one line each of: their
    /// steps, read back from the server ([`Transcript::fill_steps`]), have the results.
    pub fn lacking_steps(&self) -> Vec<u32> {
        self.turns
            .iter()
            .filter(|t| t.end.is_some() && !tools::has_details(&t.parts))
            .filter(|t| t.parts.iter().any(|p| matches!(p, Part::Tool(_))))
            .map(|t| t.number)
            .collect()
    }

    /// Finished turn `number` drawn from its steps (`Request::Steps`), as a client watching
    /// it drew it; baton's own notes (which the CLI's stream has not) stay at its end. Nothing
    /// changes when the steps hold no more than the log did (a stream pruned or unreadable).
    pub fn fill_steps(&mut self, number: u32, events: &[TurnEvent]) {
        let Some(turn) = self
            .turns
            .iter_mut()
            .find(|t| t.number == number && t.end.is_some())
        else {
            return;
        };
        let mut parts = Vec::new();
        let mut tokens = None;
        for e in events {
            apply_event(&mut parts, &mut tokens, e);
        }
        if !tools::has_details(&parts) {
            return;
        }
        parts.extend(
            turn.parts
                .iter()
                .filter(|p| matches!(p, Part::Note(_)))
                .cloned(),
        );
        self.version += 1;
        turn.parts = parts;
        turn.rev = self.version;
    }

    /// The transcript `log --json` describes.
    pub fn from_log(log: &LogView) -> Transcript {
        let mut turns: Vec<TurnEntry> = Vec::new();
        for t in &log.turns {
            let e = entry_from_log(t, &log.conversations, log.rotate_at, turns.last());
            turns.push(e);
        }
        let titles = log
            .conversations
            .iter()
            .filter_map(|c| Some((c.number, c.title.clone()?)))
            .collect();
        Transcript {
            turns,
            version: 0,
            loaded: true,
            gapped: None,
            titles,
            forked_from: log.forked_from.clone(),
            forked_into: log.forked_into.clone(),
            setup: log
                .setup
                .clone()
                .map(|s| crate::protocol::views::SetupView { output: None, ..s }),
        }
    }

    /// Takes the history `log` returned, keeping what arrived live meanwhile: the steps of a
    /// turn that was still running when the log was read, and turns that started after it.
    pub fn merge_log(&mut self, mut log: Transcript) {
        let newest = log.turns.last().map_or(0, |t| t.number);
        // A turn the log has running that this client never saw start: it shows only what
        // arrives from now on until the log, read again when it ends, has it whole.
        let mut unseen = log.running().map(|t| t.number);
        for live in self.turns.drain(..) {
            match log.turns.iter_mut().find(|t| t.number == live.number) {
                Some(t) if t.end.is_none() => {
                    unseen = None;
                    if t.parts.is_empty() {
                        t.parts = live.parts;
                    }
                    t.end = live.end;
                }
                // The log keeps one line per tool call: a turn this client watched keeps
                // the results, diffs, refusals and subagent steps it saw.
                Some(t) if live.end.is_some() && tools::has_details(&live.parts) => {
                    t.parts = live.parts;
                }
                Some(_) => {}
                None if live.number > newest => log.turns.push(live),
                None => {}
            }
        }
        self.turns = log.turns;
        self.titles = log.titles;
        self.forked_from = log.forked_from;
        self.forked_into = log.forked_into;
        self.setup = log.setup;
        self.gapped = unseen.or(self.gapped);
        self.loaded = true;
        self.version += 1;
        for t in &mut self.turns {
            t.rev = self.version;
        }
    }

    pub fn running(&self) -> Option<&TurnEntry> {
        self.turns.last().filter(|t| t.end.is_none())
    }

    fn current(&mut self) -> Option<&mut TurnEntry> {
        self.turns.last_mut().filter(|t| t.end.is_none())
    }

    /// Applies one step of a running turn (a `Started` event names its prompt).
    pub fn step(&mut self, ev: &SendEvent) {
        self.version += 1;
        match ev {
            SendEvent::Queued { .. } => {}
            SendEvent::Started {
                number,
                provider,
                conversation,
                opened,
                rotate_at,
                session,
                prompt: sent,
                ..
            } => {
                self.turns.retain(|t| t.number != *number);
                // Every step follows its start (the server replays a running turn from it to
                // a client that attaches or fell behind): the turn has no gaps now.
                if self.gapped == Some(*number) {
                    self.gapped = None;
                }
                self.turns.push(TurnEntry {
                    number: *number,
                    conversation: *conversation,
                    opened: *opened,
                    rotate_at: *rotate_at,
                    switched: *session == SessionStart::Switch,
                    provider: provider.to_string(),
                    prompt: Some(sent.clone()),
                    parts: Vec::new(),
                    end: None,
                    rev: self.version,
                    started: Some(Utc::now()),
                    now: None,
                    tokens: None,
                });
            }
            SendEvent::Turn { event } => {
                let rev = self.version;
                if let Some(t) = self.current() {
                    if apply_event(&mut t.parts, &mut t.tokens, event) {
                        t.rev = rev;
                    }
                }
            }
            SendEvent::Note { message } => {
                let rev = self.version;
                if let Some(t) = self.current() {
                    t.parts.push(Part::Note(message.clone()));
                    t.rev = rev;
                }
            }
        }
    }

    /// This client fell behind: the running turn may have missed steps.
    pub fn fell_behind(&mut self) {
        self.gapped = self.running().map(|t| t.number).or(self.gapped);
    }

    /// A turn ended. Returns true when the log should be read again (the turn has gaps).
    pub fn finished(&mut self, s: &TurnSummary) -> bool {
        let gapped = self.gapped == Some(s.number);
        if gapped {
            self.gapped = None;
        }
        self.end(s);
        gapped
    }

    fn end(&mut self, s: &TurnSummary) {
        self.version += 1;
        if let Some(t) = self.turns.iter_mut().rev().find(|t| t.number == s.number) {
            t.rev = self.version;
            t.end = Some(TurnEnd {
                status: s.status,
                error: s.error.clone(),
                context: s.context,
                rotates_next: s.rotates_next,
                model: s.model.clone(),
                cost: s.cost,
                elapsed_ms: Some(s.elapsed_ms),
            });
        }
    }

    /// The loop ticked at `now`: a running turn's elapsed time moves on. Returns true when
    /// something is to be drawn again.
    pub fn tick(&mut self, now: DateTime<Utc>) -> bool {
        if self.running().is_none() {
            return false;
        }
        self.version += 1;
        let rev = self.version;
        if let Some(t) = self.current() {
            t.now = Some(now);
            t.rev = rev;
        }
        true
    }

    /// Conversation `number` is titled `title` now (the live one's title comes with every
    /// change of the terminal, before its log is read again).
    pub fn set_title(&mut self, number: u32, title: &str) {
        if self.title(number) == Some(title) {
            return;
        }
        self.titles.retain(|(n, _)| *n != number);
        self.titles.push((number, title.to_string()));
        self.version += 1;
        // The conversation's first turn draws its divider: it is wrapped again.
        let version = self.version;
        if let Some(t) = self.turns.iter_mut().find(|t| t.conversation == number) {
            t.rev = version;
        }
    }

    /// The title of conversation `number`, if it has one.
    pub fn title(&self, number: u32) -> Option<&str> {
        self.titles
            .iter()
            .find(|(n, _)| *n == number)
            .map(|(_, t)| t.as_str())
    }

    /// The prompts of every turn, oldest first (the composer's history).
    pub fn prompts(&self) -> impl Iterator<Item = &str> {
        self.turns.iter().filter_map(|t| t.prompt.as_deref())
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
