//! The SQLite index: terminals, conversations, sessions, turns and instructions, kept for fast
//! listing. It is a pure function of the journals: [`apply`] is the only writer, both live and
//! during `baton reindex`.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::records::{Entry, Record};
use crate::providers::ProviderKind;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS terminals (
  id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, dir TEXT NOT NULL, provider TEXT NOT NULL,
  model TEXT, brief TEXT, created_at TEXT NOT NULL, source TEXT NOT NULL, mode TEXT NOT NULL,
  worktree TEXT);
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, terminal_id TEXT NOT NULL, number INTEGER NOT NULL,
  opened_reason TEXT NOT NULL, dir TEXT NOT NULL, system_text TEXT NOT NULL,
  opened_at TEXT NOT NULL, retired_at TEXT);
CREATE TABLE IF NOT EXISTS sessions (
  provider TEXT NOT NULL, session_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
  terminal_id TEXT NOT NULL, turn_id TEXT NOT NULL, model TEXT, reason TEXT NOT NULL,
  started_at TEXT NOT NULL, PRIMARY KEY (provider, session_id, conversation_id));
CREATE TABLE IF NOT EXISTS turns (
  id TEXT PRIMARY KEY, terminal_id TEXT NOT NULL, number INTEGER NOT NULL,
  conversation_id TEXT NOT NULL, provider TEXT NOT NULL, prompt TEXT NOT NULL,
  started_at TEXT NOT NULL, status TEXT, error TEXT, session_id TEXT, model TEXT,
  context_tokens INTEGER, context_window INTEGER, answer TEXT, tools TEXT, notes TEXT,
  finished_at TEXT, commit_id TEXT);
CREATE TABLE IF NOT EXISTS instructions (
  terminal_id TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, turn_id TEXT,
  added_at TEXT NOT NULL, PRIMARY KEY (terminal_id, seq));
CREATE INDEX IF NOT EXISTS turns_by_terminal ON turns (terminal_id, number);
CREATE INDEX IF NOT EXISTS conversations_by_terminal ON conversations (terminal_id, number);
";

const TABLES: [&str; 5] = [
    "terminals",
    "conversations",
    "sessions",
    "turns",
    "instructions",
];

pub fn create_schema(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(SCHEMA)
}

pub fn clear(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    for t in TABLES {
        tx.execute(&format!("DELETE FROM {t}"), [])?;
    }
    Ok(())
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A terminal's provider column: `local:NAME` carries the endpoint, so the schema stays as it is.
fn provider_cell(provider: ProviderKind, endpoint: Option<&str>) -> String {
    match (provider, endpoint) {
        (ProviderKind::Local, Some(e)) => format!("local:{e}"),
        (p, _) => p.as_str().to_string(),
    }
}

/// Applies one journal entry of terminal `tid` to the index.
pub fn apply(tx: &Transaction<'_>, tid: &str, e: &Entry) -> rusqlite::Result<()> {
    let at = &e.at;
    match &e.record {
        Record::TerminalCreated {
            terminal_id,
            name,
            dir,
            source,
            mode,
            worktree,
            provider,
            model,
            brief,
            endpoint,
        } => {
            tx.execute(
                "INSERT OR REPLACE INTO terminals VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
                params![
                    terminal_id,
                    name,
                    dir,
                    provider_cell(*provider, endpoint.as_deref()),
                    model,
                    brief,
                    at,
                    source,
                    mode.as_str(),
                    worktree.as_ref().map(json)
                ],
            )?;
        }
        Record::CheckoutMoved {
            dir,
            mode,
            worktree,
            reason: _,
        } => {
            tx.execute(
                "UPDATE terminals SET dir=?2, mode=?3, worktree=?4 WHERE id=?1",
                params![tid, dir, mode.as_str(), worktree.as_ref().map(json)],
            )?;
        }
        Record::TurnCommitted { turn_id, commit } => {
            tx.execute(
                "UPDATE turns SET commit_id=?2 WHERE id=?1",
                params![turn_id, commit],
            )?;
        }
        Record::TerminalRemoved => {
            for t in ["conversations", "sessions", "turns", "instructions"] {
                tx.execute(
                    &format!("DELETE FROM {t} WHERE terminal_id=?1"),
                    params![tid],
                )?;
            }
            tx.execute("DELETE FROM terminals WHERE id=?1", params![tid])?;
        }
        Record::Renamed { name } => {
            tx.execute(
                "UPDATE terminals SET name=?2 WHERE id=?1",
                params![tid, name],
            )?;
        }
        Record::SettingsChanged {
            provider,
            model,
            endpoint,
        } => {
            tx.execute(
                "UPDATE terminals SET provider=?2, model=?3 WHERE id=?1",
                params![tid, provider_cell(*provider, endpoint.as_deref()), model],
            )?;
        }
        // The local loop's messages are read from the journal when a local run needs them.
        Record::LocalMessages { .. } => {}
        Record::DirChanged { dir } => {
            tx.execute(
                "UPDATE terminals SET dir=?2, source=?2 WHERE id=?1",
                params![tid, dir],
            )?;
        }
        Record::ConversationOpened {
            conversation_id,
            number,
            reason,
            dir,
            system_text,
        } => {
            tx.execute(
                "UPDATE conversations SET retired_at=?2 WHERE terminal_id=?1 AND retired_at IS NULL",
                params![tid, at],
            )?;
            tx.execute(
                "INSERT OR REPLACE INTO conversations VALUES (?1,?2,?3,?4,?5,?6,?7,NULL)",
                params![
                    conversation_id,
                    tid,
                    number,
                    reason.as_str(),
                    dir,
                    system_text,
                    at
                ],
            )?;
        }
        Record::TurnStarted {
            turn_id,
            number,
            conversation_id,
            provider,
            prompt,
        } => {
            tx.execute(
                "INSERT OR REPLACE INTO turns (id, terminal_id, number, conversation_id, provider, prompt, started_at)
                 VALUES (?1,?2,?3,?4,?5,?6,?7)",
                params![turn_id, tid, number, conversation_id, provider.as_str(), prompt, at],
            )?;
        }
        Record::SessionStarted {
            conversation_id,
            turn_id,
            provider,
            session_id,
            model,
            reason,
        } => {
            tx.execute(
                "INSERT OR REPLACE INTO sessions VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
                params![
                    provider.as_str(),
                    session_id,
                    conversation_id,
                    tid,
                    turn_id,
                    model,
                    reason.as_str(),
                    at
                ],
            )?;
            tx.execute(
                "UPDATE turns SET session_id=?2 WHERE id=?1",
                params![turn_id, session_id],
            )?;
        }
        Record::TurnFinished {
            turn_id,
            status,
            error,
            session_id,
            model,
            context,
            answer,
            tools,
            notes,
        } => {
            tx.execute(
                "UPDATE turns SET status=?2, error=?3, session_id=COALESCE(?4, session_id), model=?5,
                 context_tokens=?6, context_window=?7, answer=?8, tools=?9, notes=?10, finished_at=?11
                 WHERE id=?1",
                params![
                    turn_id,
                    status.as_str(),
                    error,
                    session_id,
                    model,
                    context.map(|c| c.tokens as i64),
                    context.map(|c| c.window as i64),
                    answer,
                    json(tools),
                    json(notes),
                    at
                ],
            )?;
        }
        Record::InstructionAdded { text, turn_id } => {
            tx.execute(
                "INSERT INTO instructions VALUES (?1,
                   (SELECT COALESCE(MAX(seq),0)+1 FROM instructions WHERE terminal_id=?1), ?2, ?3, ?4)",
                params![tid, text, turn_id, at],
            )?;
        }
        Record::InstructionRemoved { text } => {
            tx.execute(
                "DELETE FROM instructions WHERE terminal_id=?1 AND text=?2",
                params![tid, text],
            )?;
        }
        Record::InstructionsCleared => {
            tx.execute(
                "DELETE FROM instructions WHERE terminal_id=?1",
                params![tid],
            )?;
        }
    }
    Ok(())
}

/// Every row of every table in a stable order, one line each: what `reindex` must reproduce.
pub fn dump(conn: &Connection) -> rusqlite::Result<String> {
    let orders = [
        ("terminals", "id"),
        ("conversations", "terminal_id, number"),
        ("sessions", "terminal_id, started_at, provider, session_id"),
        ("turns", "terminal_id, number"),
        ("instructions", "terminal_id, seq"),
    ];
    let mut out = String::new();
    for (table, order) in orders {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} ORDER BY {order}"))?;
        let n = stmt.column_count();
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let mut cells = Vec::with_capacity(n);
            for i in 0..n {
                let v: rusqlite::types::Value = row.get(i)?;
                cells.push(format!("{v:?}"));
            }
            out.push_str(table);
            out.push('|');
            out.push_str(&cells.join("|"));
            out.push('\n');
        }
    }
    Ok(out)
}

/// The id of the terminal called `name`.
pub fn terminal_id(conn: &Connection, name: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT id FROM terminals WHERE name=?1", [name], |r| {
        r.get(0)
    })
    .optional()
}
