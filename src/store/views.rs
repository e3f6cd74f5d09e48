//! Read-only queries on the index, returned as plain rows that serialize to the `--json` shapes.

use rusqlite::{named_params, Connection, OptionalExtension, Row};

use super::cached::Cached;
use serde::Serialize;

use super::records::{ForkLink, SessionFork};
use crate::git::Worktree;
pub use crate::protocol::views::{InstructionView, LastTurnView, SessionView, TurnView};
use crate::words::CheckoutMode;
use crate::words::{ContextUsage, ProviderKind, TurnCost, TurnStatus};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TerminalRow {
    pub id: String,
    pub name: String,
    pub dir: String,
    pub provider: ProviderKind,
    /// The endpoint of a `local` terminal (`[providers.local.endpoints.NAME]`).
    pub endpoint: Option<String>,
    pub model: Option<String>,
    pub brief: Option<String>,
    pub created_at: String,
    pub source: String,
    pub mode: CheckoutMode,
    pub worktree: Option<Worktree>,
    /// Hidden from `ls` and the multiplexer's list (`baton archive`).
    pub archived: bool,
    /// The terminal it was forked or rewound from.
    pub forked_from: Option<ForkLink>,
    /// `baton rm` started and has not finished: hidden from listings, its name still taken.
    pub removing: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConversationView {
    pub id: String,
    pub number: u32,
    pub opened_reason: String,
    pub dir: String,
    #[serde(skip)]
    pub system_text: String,
    pub opened_at: String,
    pub retired_at: Option<String>,
    /// Its first prompt's first line (40 characters) until the user renames it.
    pub title: Option<String>,
    /// The session its first turn forks (a fork or rewind of another terminal).
    #[serde(skip)]
    pub fork: Option<SessionFork>,
}

/// A `baton rm` that started and has not finished (a crash cut it short).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRemoval {
    pub terminal_id: String,
    pub name: String,
    pub mode: CheckoutMode,
    pub worktree: Option<Worktree>,
    pub delete_branch: bool,
    pub force: bool,
    /// Baton's own data of the terminal goes too (`baton prune`).
    pub purge: bool,
}

fn provider(s: String) -> rusqlite::Result<ProviderKind> {
    ProviderKind::parse(&s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("unknown provider {s}").into(),
        )
    })
}

pub(super) fn status(s: Option<String>) -> Option<TurnStatus> {
    match s.as_deref() {
        Some("completed") => Some(TurnStatus::Completed),
        Some("failed") => Some(TurnStatus::Failed),
        Some("interrupted") => Some(TurnStatus::Interrupted),
        _ => None,
    }
}

fn list(s: Option<String>) -> Vec<String> {
    s.and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

const TERMINAL_COLS: &str = "id, name, dir, provider, endpoint, model, brief, created_at, source,
    mode, worktree, archived, forked_from, removing";

/// [`TERMINAL_COLS`] read from table `alias`, each under its own name.
pub(super) fn terminal_cols(alias: &str) -> String {
    TERMINAL_COLS
        .split(',')
        .map(|c| format!("{alias}.{c} AS {c}", c = c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn from_json<T: serde::de::DeserializeOwned>(s: Option<String>) -> Option<T> {
    s.and_then(|s| serde_json::from_str(&s).ok())
}

pub(super) fn terminal_row(r: &Row<'_>) -> rusqlite::Result<TerminalRow> {
    Ok(TerminalRow {
        id: r.get("id")?,
        name: r.get("name")?,
        dir: r.get("dir")?,
        provider: provider(r.get("provider")?)?,
        endpoint: r.get("endpoint")?,
        model: r.get("model")?,
        brief: r.get("brief")?,
        created_at: r.get("created_at")?,
        source: r.get("source")?,
        mode: {
            let m: String = r.get("mode")?;
            CheckoutMode::parse(&m).unwrap_or(CheckoutMode::InPlace)
        },
        worktree: from_json(r.get("worktree")?),
        archived: r.get("archived")?,
        forked_from: from_json(r.get("forked_from")?),
        removing: r.get("removing")?,
    })
}

pub fn terminals(c: &Connection) -> rusqlite::Result<Vec<TerminalRow>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {TERMINAL_COLS} FROM terminals WHERE removing=0 ORDER BY created_at, name"
    ))?;
    let rows = s.query_map([], terminal_row)?;
    rows.collect()
}

pub fn terminal(c: &Connection, tid: &str) -> rusqlite::Result<Option<TerminalRow>> {
    c.row(
        &format!("SELECT {TERMINAL_COLS} FROM terminals WHERE id=:tid"),
        named_params! { ":tid": tid },
        terminal_row,
    )
    .optional()
}

const CONV_COLS: &str =
    "id, number, opened_reason, dir, system_text, opened_at, retired_at, title, fork";

fn conversation_row(r: &Row<'_>) -> rusqlite::Result<ConversationView> {
    Ok(ConversationView {
        id: r.get("id")?,
        number: r.get("number")?,
        opened_reason: r.get("opened_reason")?,
        dir: r.get("dir")?,
        system_text: r.get("system_text")?,
        opened_at: r.get("opened_at")?,
        retired_at: r.get("retired_at")?,
        title: r.get("title")?,
        fork: from_json(r.get("fork")?),
    })
}

/// The time of terminal `tid`'s latest journal entry (None: no such terminal).
pub fn active_at(c: &Connection, tid: &str) -> rusqlite::Result<Option<String>> {
    c.row(
        "SELECT active_at FROM terminals WHERE id=:tid",
        named_params! { ":tid": tid },
        |r| r.get("active_at"),
    )
    .optional()
    .map(Option::flatten)
}

/// Removals that started and never finished.
pub fn pending_removals(c: &Connection) -> rusqlite::Result<Vec<PendingRemoval>> {
    let mut s = c.prepare_cached(
        "SELECT terminal_id, name, mode, worktree, delete_branch, force, purge
         FROM removals ORDER BY at",
    )?;
    let rows = s.query_map([], |r| {
        Ok(PendingRemoval {
            terminal_id: r.get("terminal_id")?,
            name: r.get("name")?,
            mode: {
                let m: String = r.get("mode")?;
                CheckoutMode::parse(&m).unwrap_or(CheckoutMode::InPlace)
            },
            worktree: from_json(r.get("worktree")?),
            delete_branch: r.get("delete_branch")?,
            force: r.get("force")?,
            purge: r.get("purge")?,
        })
    })?;
    rows.collect()
}

/// The terminals forked (or rewound) from terminal `tid`, oldest first, each by its name now
/// (the name it had then once it is gone).
pub fn forks(c: &Connection, tid: &str) -> rusqlite::Result<Vec<ForkLink>> {
    let mut s = c.prepare_cached(
        "SELECT f.link, t.name FROM forks f
         LEFT JOIN terminals t ON t.id = json_extract(f.link, '$.terminal_id')
         WHERE f.terminal_id=:tid ORDER BY f.at, f.seq",
    )?;
    let rows = s.query_map(named_params! { ":tid": tid }, |r| {
        Ok((
            r.get::<_, String>("link")?,
            r.get::<_, Option<String>>("name")?,
        ))
    })?;
    Ok(rows
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .filter_map(|(link, name)| {
            let mut l: ForkLink = serde_json::from_str(&link).ok()?;
            if let Some(name) = name {
                l.name = name;
            }
            Some(l)
        })
        .collect())
}

pub fn live_conversation(c: &Connection, tid: &str) -> rusqlite::Result<Option<ConversationView>> {
    c.row(
        &format!(
            "SELECT {CONV_COLS} FROM conversations WHERE terminal_id=:tid AND retired_at IS NULL
             ORDER BY number DESC LIMIT 1"
        ),
        named_params! { ":tid": tid },
        conversation_row,
    )
    .optional()
}

pub fn conversations(c: &Connection, tid: &str) -> rusqlite::Result<Vec<ConversationView>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {CONV_COLS} FROM conversations WHERE terminal_id=:tid ORDER BY number"
    ))?;
    let rows = s.query_map(named_params! { ":tid": tid }, conversation_row)?;
    rows.collect()
}

/// A conversation's sessions, oldest first.
pub(super) const SESSIONS: &str = "SELECT provider, session_id, model, reason, started_at
     FROM sessions WHERE conversation_id=:conversation_id ORDER BY started_at, rowid";

pub fn sessions(c: &Connection, conversation_id: &str) -> rusqlite::Result<Vec<SessionView>> {
    let mut s = c.prepare_cached(SESSIONS)?;
    let rows = s.query_map(
        named_params! { ":conversation_id": conversation_id },
        session_row,
    )?;
    rows.collect()
}

pub(super) fn session_row(r: &Row<'_>) -> rusqlite::Result<SessionView> {
    Ok(SessionView {
        provider: provider(r.get("provider")?)?,
        session_id: r.get("session_id")?,
        model: r.get("model")?,
        reason: r.get("reason")?,
        started_at: r.get("started_at")?,
    })
}

/// What baton kept of session `session_id` of conversation `conversation_id` (its latest
/// start, when the index has it): the model it is pinned to, and the standing instructions it
/// adds to the conversation's system text.
pub fn session(
    c: &Connection,
    conversation_id: &str,
    session_id: &str,
) -> rusqlite::Result<Option<SessionKept>> {
    let mut s = c.prepare_cached(
        "SELECT model, standing FROM sessions WHERE conversation_id=:conversation_id
           AND session_id=:session_id ORDER BY started_at DESC, rowid DESC LIMIT 1",
    )?;
    s.query_row(
        named_params! { ":conversation_id": conversation_id, ":session_id": session_id },
        |r| {
            Ok(SessionKept {
                model: r.get("model")?,
                standing: list(r.get("standing")?),
            })
        },
    )
    .optional()
}

/// A provider session as the send path, forks and rewinds use it ([`session`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionKept {
    pub model: Option<String>,
    pub standing: Vec<String>,
}

const TURN_COLS: &str = "id, number, conversation_id, provider, session_id, model, prompt, status,
    error, answer, tools, notes, context_tokens, context_window, started_at, finished_at, commit_id,
    input, mode, cost_input, cost_cached, cost_output, cost_usd";

pub fn turns(c: &Connection, tid: &str) -> rusqlite::Result<Vec<TurnView>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {TURN_COLS} FROM turns WHERE terminal_id=:tid ORDER BY number"
    ))?;
    let rows = s.query_map(named_params! { ":tid": tid }, turn_row)?;
    rows.collect()
}

/// Turn `number` of terminal `tid`, if it has one.
pub fn turn(c: &Connection, tid: &str, number: u32) -> rusqlite::Result<Option<TurnView>> {
    c.row(
        &format!("SELECT {TURN_COLS} FROM turns WHERE terminal_id=:tid AND number=:n"),
        named_params! { ":tid": tid, ":n": number },
        turn_row,
    )
    .optional()
}

/// What `show` needs of a terminal's turns without reading its whole history: how many, the
/// latest, and the context its live conversation last reported.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnsSummary {
    pub count: u32,
    /// The latest turn as every view shows it: read here alone ([`last_turn_row`]).
    pub last: Option<LastTurnView>,
    pub context: Option<ContextUsage>,
}

/// A terminal's turns, counted (from the index alone).
pub(super) const TURN_COUNT: &str = "SELECT COUNT(*) AS count FROM turns WHERE terminal_id=:tid";
/// A terminal's latest turn, its status alone: never its answer or tools, which listing a
/// terminal does not show.
pub(super) const LAST_TURN: &str = "SELECT number, status, error FROM turns WHERE terminal_id=:tid
     ORDER BY number DESC LIMIT 1";

pub fn turns_summary(
    c: &Connection,
    tid: &str,
    conversation_id: Option<&str>,
) -> rusqlite::Result<TurnsSummary> {
    let count: u32 = c.row(TURN_COUNT, named_params! { ":tid": tid }, |r| {
        r.get("count")
    })?;
    let last = c
        .row(LAST_TURN, named_params! { ":tid": tid }, last_turn_row)
        .optional()?;
    let context = match conversation_id {
        None => None,
        Some(conv) => last_context(c, conv)?,
    };
    Ok(TurnsSummary {
        count,
        last,
        context,
    })
}

/// What the send path needs of a conversation's turns.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationState {
    /// Where the latest turn that reported a context ended.
    pub context: Option<ContextUsage>,
    /// The latest provider session it ran in: provider, session id.
    pub session: Option<(ProviderKind, String)>,
}

pub fn conversation_state(
    c: &Connection,
    conversation_id: &str,
) -> rusqlite::Result<ConversationState> {
    let context = last_context(c, conversation_id)?;
    let session = c
        .row(
            LATEST_SESSION,
            named_params! { ":conversation_id": conversation_id },
            |r| {
                Ok((
                    provider(r.get("provider")?)?,
                    r.get::<_, String>("session_id")?,
                ))
            },
        )
        .optional()?;
    Ok(ConversationState { context, session })
}

/// A conversation's latest provider session (the send path's plan, twice a send).
pub(super) const LATEST_SESSION: &str = "SELECT provider, session_id FROM turns
     WHERE conversation_id=:conversation_id AND session_id IS NOT NULL
     ORDER BY number DESC LIMIT 1";
/// Where a conversation's context last stood (every listed terminal, every send's plan).
pub(super) const LAST_CONTEXT: &str = "SELECT context_tokens, context_window FROM turns
     WHERE conversation_id=:conversation_id
       AND context_tokens IS NOT NULL AND context_window IS NOT NULL
     ORDER BY number DESC LIMIT 1";

/// The context a conversation's latest turn that reported one ended at.
fn last_context(c: &Connection, conversation_id: &str) -> rusqlite::Result<Option<ContextUsage>> {
    Ok(c.row(
        LAST_CONTEXT,
        named_params! { ":conversation_id": conversation_id },
        |r| {
            Ok(context_of(
                r.get("context_tokens")?,
                r.get("context_window")?,
            ))
        },
    )
    .optional()?
    .flatten())
}

pub(super) fn context_of(tokens: Option<i64>, window: Option<i64>) -> Option<ContextUsage> {
    match (tokens, window) {
        (Some(t), Some(w)) => Some(ContextUsage {
            tokens: t.max(0) as u64,
            window: w.max(0) as u64,
        }),
        _ => None,
    }
}

/// A terminal's latest turn, as `show`, `ls` and the multiplexer show it.
fn last_turn_row(r: &Row<'_>) -> rusqlite::Result<LastTurnView> {
    Ok(LastTurnView {
        number: r.get("number")?,
        status: status(r.get("status")?),
        error: r.get("error")?,
    })
}

fn turn_row(r: &Row<'_>) -> rusqlite::Result<TurnView> {
    let tokens: Option<i64> = r.get("context_tokens")?;
    let window: Option<i64> = r.get("context_window")?;
    Ok(TurnView {
        id: r.get("id")?,
        number: r.get("number")?,
        conversation_id: r.get("conversation_id")?,
        provider: provider(r.get("provider")?)?,
        session_id: r.get("session_id")?,
        model: r.get("model")?,
        prompt: r.get("prompt")?,
        status: status(r.get("status")?),
        error: r.get("error")?,
        answer: r.get("answer")?,
        tools: list(r.get("tools")?),
        notes: list(r.get("notes")?),
        context: context_of(tokens, window),
        started_at: r.get("started_at")?,
        finished_at: r.get("finished_at")?,
        commit: r.get("commit_id")?,
        input: r.get("input")?,
        mode: r
            .get::<_, Option<String>>("mode")?
            .and_then(|m| serde_json::from_value(serde_json::Value::from(m)).ok()),
        cost: cost_of(r)?,
    })
}

/// The cost in columns `cost_input`, `cost_cached`, `cost_output`, `cost_usd` (a turn's, or
/// a query's sums under those names); None when the turn (or every turn summed) reported none.
pub(super) fn cost_of(r: &Row<'_>) -> rusqlite::Result<Option<TurnCost>> {
    let Some(input) = r.get::<_, Option<i64>>("cost_input")? else {
        return Ok(None);
    };
    let count = |v: Option<i64>| v.map_or(0, |v| v.max(0) as u64);
    Ok(Some(TurnCost {
        input_tokens: count(Some(input)),
        cached_tokens: count(r.get("cost_cached")?),
        output_tokens: count(r.get("cost_output")?),
        usd: r.get("cost_usd")?,
    }))
}

pub fn unfinished_turns(c: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let mut s = c.prepare_cached(
        "SELECT terminal_id, id FROM turns WHERE status IS NULL ORDER BY started_at",
    )?;
    let rows = s.query_map([], |r| Ok((r.get("terminal_id")?, r.get("id")?)))?;
    rows.collect()
}

pub fn instructions(c: &Connection, tid: &str) -> rusqlite::Result<Vec<InstructionView>> {
    let mut s = c.prepare_cached(
        "SELECT i.text AS text, i.turn_id AS turn_id, t.number AS turn, i.added_at AS added_at
         FROM instructions i LEFT JOIN turns t ON t.id = i.turn_id
         WHERE i.terminal_id=:tid ORDER BY i.seq",
    )?;
    let rows = s.query_map(named_params! { ":tid": tid }, |r| {
        Ok((
            r.get("text")?,
            r.get("turn_id")?,
            r.get("turn")?,
            r.get("added_at")?,
        ))
    })?;
    let mut out = Vec::new();
    for (i, row) in rows.enumerate() {
        let (text, turn_id, turn, added_at) = row?;
        out.push(InstructionView {
            number: i as u32 + 1,
            text,
            turn_id,
            turn,
            added_at,
        });
    }
    Ok(out)
}

#[cfg(test)]
#[path = "views_tests.rs"]
pub(super) mod tests;

/// The highest turn number of terminal `tid` (0: none yet).
pub fn last_turn_number(c: &Connection, tid: &str) -> rusqlite::Result<u32> {
    c.row(
        "SELECT COALESCE(MAX(number), 0) AS n FROM turns WHERE terminal_id=:tid",
        named_params! { ":tid": tid },
        |r| r.get("n"),
    )
}

/// The terminal whose turn, conversation or terminal row has id `id` here (None: no such
/// row; sessions are not keyed by id alone and are never held).
pub fn id_holder(
    c: &Connection,
    kind: super::records::IdKind,
    id: &str,
) -> rusqlite::Result<Option<String>> {
    use super::records::IdKind;
    let sql = match kind {
        IdKind::Terminal => "SELECT id AS tid FROM terminals WHERE id=:id",
        IdKind::Conversation => "SELECT terminal_id AS tid FROM conversations WHERE id=:id",
        IdKind::Turn => "SELECT terminal_id AS tid FROM turns WHERE id=:id",
        IdKind::Session => return Ok(None),
    };
    c.row(sql, named_params! { ":id": id }, |r| r.get("tid"))
        .optional()
}
