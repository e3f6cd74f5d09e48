//! Read-only queries on the index, returned as plain rows that serialize to the `--json` shapes.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

use super::records::CheckoutMode;
use crate::git::Worktree;
pub use crate::protocol::views::{InstructionView, SessionView, TurnView};
use crate::providers::{ContextUsage, ProviderKind, TurnStatus};

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

fn status(s: Option<String>) -> Option<TurnStatus> {
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

const TERMINAL_COLS: &str =
    "id, name, dir, provider, model, brief, created_at, source, mode, worktree";

fn terminal_row(r: &Row<'_>) -> rusqlite::Result<TerminalRow> {
    // `local:NAME` (see index.rs): the provider and its endpoint.
    let cell: String = r.get(3)?;
    let (kind, endpoint) = match cell.split_once(':') {
        Some((k, e)) => (k.to_string(), Some(e.to_string())),
        None => (cell, None),
    };
    Ok(TerminalRow {
        id: r.get(0)?,
        name: r.get(1)?,
        dir: r.get(2)?,
        provider: provider(kind)?,
        endpoint,
        model: r.get(4)?,
        brief: r.get(5)?,
        created_at: r.get(6)?,
        source: r.get(7)?,
        mode: {
            let m: String = r.get(8)?;
            CheckoutMode::parse(&m).unwrap_or(CheckoutMode::InPlace)
        },
        worktree: r
            .get::<_, Option<String>>(9)?
            .and_then(|w| serde_json::from_str(&w).ok()),
    })
}

pub fn terminals(c: &Connection) -> rusqlite::Result<Vec<TerminalRow>> {
    let mut s = c.prepare(&format!(
        "SELECT {TERMINAL_COLS} FROM terminals ORDER BY created_at, name"
    ))?;
    let rows = s.query_map([], terminal_row)?;
    rows.collect()
}

pub fn terminal(c: &Connection, tid: &str) -> rusqlite::Result<Option<TerminalRow>> {
    c.query_row(
        &format!("SELECT {TERMINAL_COLS} FROM terminals WHERE id=?1"),
        [tid],
        terminal_row,
    )
    .optional()
}

const CONV_COLS: &str = "id, number, opened_reason, dir, system_text, opened_at, retired_at";

fn conversation_row(r: &Row<'_>) -> rusqlite::Result<ConversationView> {
    Ok(ConversationView {
        id: r.get(0)?,
        number: r.get(1)?,
        opened_reason: r.get(2)?,
        dir: r.get(3)?,
        system_text: r.get(4)?,
        opened_at: r.get(5)?,
        retired_at: r.get(6)?,
    })
}

pub fn live_conversation(c: &Connection, tid: &str) -> rusqlite::Result<Option<ConversationView>> {
    c.query_row(
        &format!("SELECT {CONV_COLS} FROM conversations WHERE terminal_id=?1 AND retired_at IS NULL ORDER BY number DESC LIMIT 1"),
        [tid],
        conversation_row,
    )
    .optional()
}

pub fn conversations(c: &Connection, tid: &str) -> rusqlite::Result<Vec<ConversationView>> {
    let mut s = c.prepare(&format!(
        "SELECT {CONV_COLS} FROM conversations WHERE terminal_id=?1 ORDER BY number"
    ))?;
    let rows = s.query_map([tid], conversation_row)?;
    rows.collect()
}

pub fn sessions(c: &Connection, conversation_id: &str) -> rusqlite::Result<Vec<SessionView>> {
    let mut s = c.prepare(
        "SELECT provider, session_id, model, reason, started_at FROM sessions
         WHERE conversation_id=?1 ORDER BY started_at, rowid",
    )?;
    let rows = s.query_map([conversation_id], |r| {
        Ok(SessionView {
            provider: provider(r.get(0)?)?,
            session_id: r.get(1)?,
            model: r.get(2)?,
            reason: r.get(3)?,
            started_at: r.get(4)?,
        })
    })?;
    rows.collect()
}

const TURN_COLS: &str = "id, number, conversation_id, provider, session_id, model, prompt, status,
    error, answer, tools, notes, context_tokens, context_window, started_at, finished_at, commit_id";

pub fn turns(c: &Connection, tid: &str) -> rusqlite::Result<Vec<TurnView>> {
    let mut s = c.prepare(&format!(
        "SELECT {TURN_COLS} FROM turns WHERE terminal_id=?1 ORDER BY number"
    ))?;
    let rows = s.query_map([tid], turn_row)?;
    rows.collect()
}

/// What `show` needs of a terminal's turns without reading its whole history: how many, the
/// latest, and the context its live conversation last reported.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnsSummary {
    pub count: u32,
    pub last: Option<TurnView>,
    pub context: Option<ContextUsage>,
}

pub fn turns_summary(
    c: &Connection,
    tid: &str,
    conversation_id: Option<&str>,
) -> rusqlite::Result<TurnsSummary> {
    let count: u32 = c.query_row(
        "SELECT COUNT(*) FROM turns WHERE terminal_id=?1",
        [tid],
        |r| r.get(0),
    )?;
    let last = c
        .query_row(
            &format!(
                "SELECT {TURN_COLS} FROM turns WHERE terminal_id=?1 ORDER BY number DESC LIMIT 1"
            ),
            [tid],
            turn_row,
        )
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
        .query_row(
            "SELECT provider, session_id FROM turns
             WHERE conversation_id=?1 AND session_id IS NOT NULL
             ORDER BY number DESC LIMIT 1",
            [conversation_id],
            |r| Ok((provider(r.get(0)?)?, r.get::<_, String>(1)?)),
        )
        .optional()?;
    Ok(ConversationState { context, session })
}

/// The context a conversation's latest turn that reported one ended at.
fn last_context(c: &Connection, conversation_id: &str) -> rusqlite::Result<Option<ContextUsage>> {
    Ok(c.query_row(
        "SELECT context_tokens, context_window FROM turns
         WHERE conversation_id=?1 AND context_tokens IS NOT NULL AND context_window IS NOT NULL
         ORDER BY number DESC LIMIT 1",
        [conversation_id],
        |r| Ok(context_of(r.get(0)?, r.get(1)?)),
    )
    .optional()?
    .flatten())
}

fn context_of(tokens: Option<i64>, window: Option<i64>) -> Option<ContextUsage> {
    match (tokens, window) {
        (Some(t), Some(w)) => Some(ContextUsage {
            tokens: t.max(0) as u64,
            window: w.max(0) as u64,
        }),
        _ => None,
    }
}

fn turn_row(r: &Row<'_>) -> rusqlite::Result<TurnView> {
    let tokens: Option<i64> = r.get(12)?;
    let window: Option<i64> = r.get(13)?;
    Ok(TurnView {
        id: r.get(0)?,
        number: r.get(1)?,
        conversation_id: r.get(2)?,
        provider: provider(r.get(3)?)?,
        session_id: r.get(4)?,
        model: r.get(5)?,
        prompt: r.get(6)?,
        status: status(r.get(7)?),
        error: r.get(8)?,
        answer: r.get(9)?,
        tools: list(r.get(10)?),
        notes: list(r.get(11)?),
        context: context_of(tokens, window),
        started_at: r.get(14)?,
        finished_at: r.get(15)?,
        commit: r.get(16)?,
    })
}

pub fn unfinished_turns(c: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    let mut s =
        c.prepare("SELECT terminal_id, id FROM turns WHERE status IS NULL ORDER BY started_at")?;
    let rows = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

pub fn instructions(c: &Connection, tid: &str) -> rusqlite::Result<Vec<InstructionView>> {
    let mut s = c.prepare(
        "SELECT i.seq, i.text, i.turn_id, t.number, i.added_at FROM instructions i
         LEFT JOIN turns t ON t.id = i.turn_id WHERE i.terminal_id=?1 ORDER BY i.seq",
    )?;
    let rows = s.query_map(params![tid], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for (i, row) in rows.enumerate() {
        let (_seq, text, turn_id, turn, added_at) = row?;
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
mod tests {
    use super::*;
    use crate::store::index;
    use crate::store::records::Entry;
    use serde_json::json;

    fn index_of(records: Vec<serde_json::Value>) -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        index::create_schema(&conn).unwrap();
        let tx = conn.transaction().unwrap();
        for (n, mut r) in records.into_iter().enumerate() {
            r["at"] = json!(format!("2026-11-29T10:00:{n:02}.000Z"));
            let e: Entry = serde_json::from_value(r).unwrap();
            index::apply(&tx, "T", &e).unwrap();
        }
        tx.commit().unwrap();
        conn
    }

    fn started(turn: &str, number: u32, conv: &str, provider: &str) -> serde_json::Value {
        json!({"type": "turn_started", "turn_id": turn, "number": number,
               "conversation_id": conv, "provider": provider, "prompt": "p"})
    }

    fn finished(
        turn: &str,
        session: Option<&str>,
        context: Option<(u64, u64)>,
    ) -> serde_json::Value {
        json!({"type": "turn_finished", "turn_id": turn, "status": "completed", "error": null,
               "session_id": session, "model": null,
               "context": context.map(|(tokens, window)| json!({"tokens": tokens, "window": window})),
               "answer": "a", "tools": [], "notes": []})
    }

    #[test]
    fn a_conversations_state_is_its_latest_context_and_latest_session() {
        let opened = |conv: &str, number: u32| {
            json!({"type": "conversation_opened", "conversation_id": conv, "number": number,
                   "reason": "first", "dir": "/w", "system_text": "s"})
        };
        let conn = index_of(vec![
            json!({"type": "terminal_created", "terminal_id": "T", "name": "t", "dir": "/w",
                   "source": "/w", "mode": "in_place", "worktree": null, "provider": "claude",
                   "model": null, "brief": null}),
            opened("C1", 1),
            started("t1", 1, "C1", "claude"),
            finished("t1", Some("s-claude"), Some((100, 1000))),
            // A switch: a codex session, then a failed turn that reported neither.
            started("t2", 2, "C1", "codex"),
            finished("t2", Some("s-codex"), Some((300, 2000))),
            started("t3", 3, "C1", "codex"),
            finished("t3", None, None),
            opened("C2", 2),
            started("t4", 4, "C2", "claude"),
            finished("t4", Some("s-other"), Some((5, 1000))),
        ]);
        let state = conversation_state(&conn, "C1").unwrap();
        assert_eq!(
            state.context,
            Some(ContextUsage {
                tokens: 300,
                window: 2000
            })
        );
        assert_eq!(
            state.session,
            Some((ProviderKind::Codex, "s-codex".to_string()))
        );
        let none = ConversationState {
            context: None,
            session: None,
        };
        assert_eq!(conversation_state(&conn, "C9").unwrap(), none);
    }
}
