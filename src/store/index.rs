//! The SQLite index: terminals, conversations, sessions, turns and instructions, kept for fast
//! listing. It is a pure function of the journals: [`apply`] is the only writer, both live and
//! during `baton reindex`. The schema carries [`SCHEMA_VERSION`]; an index of any other version
//! is dropped and rebuilt from the journals rather than migrated (see [`on_open`]).

use rusqlite::{named_params, Connection, OptionalExtension, Transaction};

use super::cached::Cached;

use super::records::{Entry, Record};
use crate::git::Worktree;
use crate::words::CheckoutMode;
use crate::words::ProviderKind;

/// The index's layout, stored as SQLite's `PRAGMA user_version`. Bump it whenever [`SCHEMA`] or
/// what [`apply`] writes changes: the next open rebuilds the index from the journals.
///
/// 0: no version (the index before versions, with the endpoint packed as `local:NAME`).
/// 1: terminals get `endpoint` and `last_local_endpoint` columns.
/// 2: the `inputs` table (waiting input, see `inputs.rs`); turns get `input` and `mode`.
/// 3: terminals get `archived`, `forked_from` and `removing`; conversations `title`, `titled` and `fork`;
///    the `forks` and `removals` tables (see `life.rs`); inputs get `fresh`.
/// 4: terminals get `active_at` (their latest journal entry's time, for `baton prune`);
///    removals get `purge`.
/// 5: turns get their cost (`cost_*`).
/// 6: turns get `duration_ms` (the server's measure of a turn, from `turn_finished`).
/// 7: sessions get `standing` (the lines a later session's system text adds, as JSON).
/// 8: indexes for what listing a terminal reads per row (issue 42): turns by conversation,
///    sessions by conversation, a terminal's costs without its turns' texts, waiting input.
pub const SCHEMA_VERSION: i32 = 8;

const SCHEMA: &str = "
CREATE TABLE terminals (
  id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, dir TEXT NOT NULL, provider TEXT NOT NULL,
  endpoint TEXT, last_local_endpoint TEXT, model TEXT, brief TEXT, created_at TEXT NOT NULL,
  source TEXT NOT NULL, mode TEXT NOT NULL, worktree TEXT,
  archived INTEGER NOT NULL DEFAULT 0, forked_from TEXT, removing INTEGER NOT NULL DEFAULT 0,
  active_at TEXT);
CREATE TABLE conversations (
  id TEXT PRIMARY KEY, terminal_id TEXT NOT NULL, number INTEGER NOT NULL,
  opened_reason TEXT NOT NULL, dir TEXT NOT NULL, system_text TEXT NOT NULL,
  opened_at TEXT NOT NULL, retired_at TEXT, title TEXT, titled INTEGER NOT NULL DEFAULT 0,
  fork TEXT);
CREATE TABLE forks (
  terminal_id TEXT NOT NULL, seq INTEGER NOT NULL, link TEXT NOT NULL, at TEXT NOT NULL,
  PRIMARY KEY (terminal_id, seq));
CREATE TABLE removals (
  terminal_id TEXT PRIMARY KEY, name TEXT NOT NULL, mode TEXT NOT NULL, worktree TEXT,
  delete_branch INTEGER NOT NULL, force INTEGER NOT NULL, at TEXT NOT NULL,
  purge INTEGER NOT NULL DEFAULT 0);
CREATE TABLE sessions (
  provider TEXT NOT NULL, session_id TEXT NOT NULL, conversation_id TEXT NOT NULL,
  terminal_id TEXT NOT NULL, turn_id TEXT NOT NULL, model TEXT, reason TEXT NOT NULL,
  started_at TEXT NOT NULL, standing TEXT, PRIMARY KEY (provider, session_id, conversation_id));
CREATE TABLE turns (
  id TEXT PRIMARY KEY, terminal_id TEXT NOT NULL, number INTEGER NOT NULL,
  conversation_id TEXT NOT NULL, provider TEXT NOT NULL, prompt TEXT NOT NULL,
  started_at TEXT NOT NULL, status TEXT, error TEXT, session_id TEXT, model TEXT,
  context_tokens INTEGER, context_window INTEGER, answer TEXT, tools TEXT, notes TEXT,
  finished_at TEXT, commit_id TEXT, input INTEGER, mode TEXT,
  cost_input INTEGER, cost_cached INTEGER, cost_output INTEGER, cost_usd REAL,
  duration_ms INTEGER);
CREATE TABLE inputs (
  terminal_id TEXT NOT NULL, number INTEGER NOT NULL, prompt TEXT NOT NULL, mode TEXT NOT NULL,
  direct INTEGER NOT NULL, jumped INTEGER NOT NULL, provider TEXT, endpoint TEXT, model TEXT,
  dir TEXT, fresh INTEGER NOT NULL DEFAULT 0, queued_at TEXT NOT NULL, state TEXT NOT NULL, position INTEGER, turn_id TEXT,
  PRIMARY KEY (terminal_id, number));
CREATE TABLE instructions (
  terminal_id TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, turn_id TEXT,
  added_at TEXT NOT NULL, PRIMARY KEY (terminal_id, seq));
CREATE INDEX turns_by_terminal ON turns (terminal_id, number);
CREATE INDEX conversations_by_terminal ON conversations (terminal_id, number);
CREATE INDEX turns_by_conversation ON turns (conversation_id, number, context_tokens, context_window);
CREATE INDEX turns_costs ON turns (terminal_id, cost_input, cost_cached, cost_output, cost_usd);
CREATE INDEX sessions_by_conversation ON sessions (conversation_id, started_at);
CREATE INDEX inputs_waiting ON inputs (terminal_id, state, position);
";

/// What opening an index of a given version calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnOpen {
    /// Written by this build's schema: use it as it is.
    Keep,
    /// Unversioned, older or newer: its tables may not be ours, so drop them and rebuild.
    Rebuild,
}

/// Whether an index whose `user_version` is `found` can be used by this build.
pub fn on_open(found: i32) -> OnOpen {
    if found == SCHEMA_VERSION {
        OnOpen::Keep
    } else {
        OnOpen::Rebuild
    }
}

/// The index's `PRAGMA user_version` (0 for a new file or an index from before versions).
pub fn schema_version(conn: &Connection) -> rusqlite::Result<i32> {
    conn.pragma_query_value(None, "user_version", |r| r.get("user_version"))
}

/// Drops every table the index has, whatever version made them, and creates this build's
/// schema, stamped with [`SCHEMA_VERSION`]. Run it in the transaction that refills the tables:
/// the stamp then commits with the rows, and a crash before the commit leaves the old version,
/// which the next open rebuilds again.
pub fn recreate_schema(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let found: Vec<(String, String)> = {
        let mut s = tx.prepare_cached(
            "SELECT type, name FROM sqlite_master
             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'",
        )?;
        let rows = s.query_map([], |r| Ok((r.get("type")?, r.get("name")?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for (kind, name) in found {
        // Dropping a table drops its indexes and triggers too.
        let kind = if kind == "view" { "VIEW" } else { "TABLE" };
        let name = name.replace('"', "\"\"");
        tx.exec(&format!("DROP {kind} \"{name}\""), [])?;
    }
    tx.execute_batch(SCHEMA)?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
}

pub(super) fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A terminal's endpoint column: only an endpoint provider's (`local`) terminal has one.
fn local_endpoint(provider: ProviderKind, endpoint: Option<&str>) -> Option<&str> {
    endpoint.filter(|_| !provider.is_cli())
}

/// Where an entry is applied: the open transaction, the terminal whose journal it is from, and
/// when it was journalled.
struct At<'a> {
    tx: &'a Transaction<'a>,
    tid: &'a str,
    at: &'a str,
}

/// Applies one journal entry of terminal `tid` to the index. Every entry is activity: the
/// terminal's `active_at` becomes its time.
pub fn apply(tx: &Transaction<'_>, tid: &str, e: &Entry) -> rusqlite::Result<()> {
    apply_record(tx, tid, e)?;
    super::life::active(tx, tid, &e.at)
}

/// What the entry's record changes in the index.
fn apply_record(tx: &Transaction<'_>, tid: &str, e: &Entry) -> rusqlite::Result<()> {
    let c = At { tx, tid, at: &e.at };
    match &e.record {
        r @ Record::TerminalCreated { .. } => apply_terminal_created(&c, r),
        Record::CheckoutMoved {
            dir,
            mode,
            worktree,
            reason: _,
        } => apply_checkout_moved(&c, dir, *mode, worktree.as_ref()),
        Record::TurnCommitted { turn_id, commit } => apply_turn_committed(&c, turn_id, commit),
        Record::TerminalRemoved => {
            super::life::removal_done(c.tx, c.tid)?;
            apply_terminal_removed(&c)
        }
        Record::RemovalStarted {
            delete_branch,
            force,
            purge,
        } => super::life::removal_started(c.tx, c.tid, c.at, *delete_branch, *force, *purge),
        Record::RemovalCancelled { .. } => super::life::removal_cancelled(c.tx, c.tid),
        Record::Archived => super::life::archived(c.tx, c.tid, true),
        Record::Unarchived => super::life::archived(c.tx, c.tid, false),
        Record::Forked { from } => super::life::forked(c.tx, c.tid, c.at, from),
        Record::ConversationTitled {
            conversation_id,
            title,
        } => super::life::titled(c.tx, conversation_id, title),
        // Read from the journal by the local loop, like `LocalMessages`.
        Record::HistoryCopied { .. } => Ok(()),
        Record::Renamed { name } => apply_renamed(&c, name),
        Record::SettingsChanged {
            provider,
            model,
            endpoint,
        } => apply_settings_changed(&c, *provider, model.as_deref(), endpoint.as_deref()),
        // The local loop's messages are read from the journal when a local run needs them.
        Record::LocalMessages { .. } => Ok(()),
        Record::DirChanged { dir } => apply_dir_changed(&c, dir),
        r @ Record::ConversationOpened { .. } => apply_conversation_opened(&c, r),
        r @ Record::TurnStarted { .. } => apply_turn_started(&c, r),
        // Read from the journal by the recovery at server start.
        Record::TurnProcess { .. } | Record::TurnPrompted { .. } => Ok(()),
        Record::TurnVoided { turn_id } => apply_turn_voided(&c, turn_id),
        // Read from the journal by the approvals inbox (`server::approvals`).
        Record::Approval(_) => Ok(()),
        r @ (Record::InputAccepted { .. }
        | Record::InputEdited { .. }
        | Record::InputWithdrawn { .. }
        | Record::InputMoved { .. }
        | Record::InputModeChanged { .. }
        | Record::InputJumped { .. }
        | Record::InputSteered { .. }) => super::inputs::apply(c.tx, c.tid, c.at, r),
        r @ Record::SessionStarted { .. } => apply_session_started(&c, r),
        r @ Record::TurnFinished { .. } => apply_turn_finished(&c, r),
        Record::InstructionAdded { text, turn_id } => {
            apply_instruction_added(&c, text, turn_id.as_deref())
        }
        Record::InstructionRemoved { text } => apply_instruction_removed(&c, text),
        Record::InstructionEdited { text, new_text } => {
            apply_instruction_edited(&c, text, new_text)
        }
        Record::InstructionsCleared => apply_instructions_cleared(&c),
        r @ Record::Imported { .. } => apply_imported(&c, r),
    }
}

/// `r` is an `Imported`: the terminal under its new name, source and checkout.
fn apply_imported(c: &At<'_>, r: &Record) -> rusqlite::Result<()> {
    let Record::Imported {
        from: _,
        name,
        dir,
        source,
        mode,
        worktree,
        conversation,
    } = r
    else {
        return Ok(());
    };
    apply_renamed(c, name)?;
    c.tx.exec(
        "UPDATE terminals SET source=:source WHERE id=:tid",
        named_params! { ":tid": c.tid, ":source": source },
    )?;
    apply_checkout_moved(c, dir, *mode, worktree.as_ref())?;
    super::life::repointed(c.tx, conversation.as_ref())
}

/// `r` is a `TerminalCreated` ([`apply`] dispatches by kind; it has too many fields to pass).
fn apply_terminal_created(c: &At<'_>, r: &Record) -> rusqlite::Result<()> {
    // The row is the journal's own terminal (`c.tid`, its folder): a creation naming another
    // id (a crafted or damaged journal) must not replace that terminal's row, nor list one
    // whose id is not a folder name (`purge` deletes `terminals/<id>`).
    let Record::TerminalCreated {
        terminal_id: _,
        name,
        dir,
        source,
        mode,
        worktree,
        provider,
        model,
        brief,
        endpoint,
    } = r
    else {
        return Ok(());
    };
    let endpoint = local_endpoint(*provider, endpoint.as_deref());
    let name = free_name(c, name)?;
    // The endpoint a terminal last ran `local` on outlives a switch to another provider; a
    // second creation in the same journal keeps it, as reading the journal would.
    c.tx.exec(
        "INSERT OR REPLACE INTO terminals (id, name, dir, provider, endpoint,
           last_local_endpoint, model, brief, created_at, source, mode, worktree)
         VALUES (:id, :name, :dir, :provider, :endpoint,
           COALESCE(:endpoint, (SELECT last_local_endpoint FROM terminals WHERE id=:id)),
           :model, :brief, :at, :source, :mode, :worktree)",
        named_params! {
            ":id": c.tid,
            ":name": name,
            ":dir": dir,
            ":provider": provider.as_str(),
            ":endpoint": endpoint,
            ":model": model,
            ":brief": brief,
            ":at": c.at,
            ":source": source,
            ":mode": mode.as_str(),
            ":worktree": worktree.as_ref().map(json),
        },
    )?;
    Ok(())
}

fn apply_checkout_moved(
    c: &At<'_>,
    dir: &str,
    mode: CheckoutMode,
    worktree: Option<&Worktree>,
) -> rusqlite::Result<()> {
    c.tx.exec(
        "UPDATE terminals SET dir=:dir, mode=:mode, worktree=:worktree WHERE id=:tid",
        named_params! {
            ":tid": c.tid,
            ":dir": dir,
            ":mode": mode.as_str(),
            ":worktree": worktree.map(json),
        },
    )?;
    Ok(())
}

fn apply_turn_committed(c: &At<'_>, turn_id: &str, commit: &str) -> rusqlite::Result<()> {
    c.tx.exec(
        "UPDATE turns SET commit_id=:commit WHERE id=:turn_id",
        named_params! { ":turn_id": turn_id, ":commit": commit },
    )?;
    Ok(())
}

fn apply_terminal_removed(c: &At<'_>) -> rusqlite::Result<()> {
    for t in [
        "conversations",
        "sessions",
        "turns",
        "instructions",
        "inputs",
        "forks",
    ] {
        c.tx.exec(
            &format!("DELETE FROM {t} WHERE terminal_id=:tid"),
            named_params! { ":tid": c.tid },
        )?;
    }
    c.tx.exec(
        "DELETE FROM terminals WHERE id=:tid",
        named_params! { ":tid": c.tid },
    )?;
    Ok(())
}

/// `name`, or when another terminal holds it, a stand-in no name can be (`NAME~<id>`). The
/// names are unique, and `INSERT OR REPLACE` would delete the other terminal's row: an
/// imported journal's creation (or rename) under a name taken here, with `--name` renaming
/// it in its `imported` record, must not hide the terminal that has it, whatever order a
/// rebuild reads the journals in.
fn free_name(c: &At<'_>, name: &str) -> rusqlite::Result<String> {
    let other: Option<String> =
        c.tx.row(
            "SELECT id FROM terminals WHERE name=:name AND id<>:tid",
            named_params! { ":name": name, ":tid": c.tid },
            |r| r.get("id"),
        )
        .optional()?;
    Ok(match other {
        Some(_) => format!("{name}~{}", c.tid),
        None => name.to_string(),
    })
}

fn apply_renamed(c: &At<'_>, name: &str) -> rusqlite::Result<()> {
    let name = free_name(c, name)?;
    c.tx.exec(
        "UPDATE terminals SET name=:name WHERE id=:tid",
        named_params! { ":tid": c.tid, ":name": name },
    )?;
    Ok(())
}

fn apply_settings_changed(
    c: &At<'_>,
    provider: ProviderKind,
    model: Option<&str>,
    endpoint: Option<&str>,
) -> rusqlite::Result<()> {
    let endpoint = local_endpoint(provider, endpoint);
    // A choice of `local` without a name leaves the remembered endpoint as it was.
    c.tx.exec(
        "UPDATE terminals SET provider=:provider, endpoint=:endpoint, model=:model,
           last_local_endpoint=COALESCE(:endpoint, last_local_endpoint)
         WHERE id=:tid",
        named_params! {
            ":tid": c.tid,
            ":provider": provider.as_str(),
            ":endpoint": endpoint,
            ":model": model,
        },
    )?;
    Ok(())
}

fn apply_dir_changed(c: &At<'_>, dir: &str) -> rusqlite::Result<()> {
    c.tx.exec(
        "UPDATE terminals SET dir=:dir, source=:dir WHERE id=:tid",
        named_params! { ":tid": c.tid, ":dir": dir },
    )?;
    Ok(())
}

/// `r` is a `ConversationOpened`: the live conversation retired, this one opened, with what
/// it carries.
fn apply_conversation_opened(c: &At<'_>, r: &Record) -> rusqlite::Result<()> {
    let Record::ConversationOpened {
        conversation_id,
        number,
        reason,
        dir,
        system_text,
        title,
        fork,
    } = r
    else {
        return Ok(());
    };
    c.tx.exec(
        "UPDATE conversations SET retired_at=:at WHERE terminal_id=:tid AND retired_at IS NULL",
        named_params! { ":tid": c.tid, ":at": c.at },
    )?;
    c.tx.exec(
        "INSERT OR REPLACE INTO conversations (id, terminal_id, number, opened_reason, dir,
           system_text, opened_at, retired_at)
         VALUES (:id, :tid, :number, :reason, :dir, :system_text, :at, NULL)",
        named_params! {
            ":id": conversation_id,
            ":tid": c.tid,
            ":number": number,
            ":reason": reason.as_str(),
            ":dir": dir,
            ":system_text": system_text,
            ":at": c.at,
        },
    )?;
    super::life::conversation_carries(c.tx, conversation_id, title.as_deref(), fork)
}

/// `r` is a `TurnStarted`: the turn, and the input it runs leaves the queue.
fn apply_turn_started(c: &At<'_>, r: &Record) -> rusqlite::Result<()> {
    let Record::TurnStarted {
        turn_id,
        number,
        conversation_id,
        provider,
        prompt,
        input,
        mode,
        ..
    } = r
    else {
        return Ok(());
    };
    c.tx.exec(
        "INSERT OR REPLACE INTO turns (id, terminal_id, number, conversation_id, provider, prompt,
           started_at, input, mode)
         VALUES (:id, :tid, :number, :conversation_id, :provider, :prompt, :at, :input, :mode)",
        named_params! {
            ":id": turn_id,
            ":tid": c.tid,
            ":number": number,
            ":conversation_id": conversation_id,
            ":provider": provider.as_str(),
            ":prompt": prompt,
            ":at": c.at,
            ":input": input,
            ":mode": mode.map(|m| json_name(&m)),
        },
    )?;
    if let Some(n) = input {
        super::inputs::leave_queue(c.tx, c.tid, *n, "started", Some(turn_id))?;
    }
    super::life::title_from_first_prompt(c.tx, conversation_id, prompt)
}

/// Turn `turn_id`'s start is void (it never handed its prompt over): no row of it is left,
/// and the input it took waits again at the head of the queue.
fn apply_turn_voided(c: &At<'_>, turn_id: &str) -> rusqlite::Result<()> {
    let input: Option<u32> =
        c.tx.row(
            "SELECT input FROM turns WHERE id=:id AND terminal_id=:tid",
            named_params! { ":id": turn_id, ":tid": c.tid },
            |r| r.get("input"),
        )
        .optional()?
        .flatten();
    c.tx.exec(
        "DELETE FROM turns WHERE id=:id AND terminal_id=:tid",
        named_params! { ":id": turn_id, ":tid": c.tid },
    )?;
    match input {
        Some(n) => super::inputs::back_to_head(c.tx, c.tid, n, turn_id),
        None => Ok(()),
    }
}

/// An enum's serialized name (`"queue"` → `queue`).
pub(super) fn json_name<T: serde::Serialize>(v: &T) -> String {
    json(v).trim_matches('"').to_string()
}

/// `r` is a `SessionStarted`.
fn apply_session_started(c: &At<'_>, r: &Record) -> rusqlite::Result<()> {
    let Record::SessionStarted {
        conversation_id,
        turn_id,
        provider,
        session_id,
        model,
        reason,
        standing,
    } = r
    else {
        return Ok(());
    };
    let standing = (!standing.is_empty()).then(|| json(standing));
    c.tx.exec(
        "INSERT OR REPLACE INTO sessions (provider, session_id, conversation_id, terminal_id,
           turn_id, model, reason, started_at, standing)
         VALUES (:provider, :session_id, :conversation_id, :tid, :turn_id, :model, :reason, :at,
           :standing)",
        named_params! {
            ":provider": provider.as_str(),
            ":session_id": session_id,
            ":conversation_id": conversation_id,
            ":tid": c.tid,
            ":turn_id": turn_id,
            ":model": model,
            ":reason": reason.as_str(),
            ":at": c.at,
            ":standing": standing,
        },
    )?;
    c.tx.exec(
        "UPDATE turns SET session_id=:session_id WHERE id=:turn_id",
        named_params! { ":turn_id": turn_id, ":session_id": session_id },
    )?;
    Ok(())
}

/// `r` is a `TurnFinished` ([`apply`] dispatches by kind; it has too many fields to pass).
fn apply_turn_finished(c: &At<'_>, r: &Record) -> rusqlite::Result<()> {
    let Record::TurnFinished {
        turn_id,
        status,
        error,
        session_id,
        model,
        context,
        answer,
        tools,
        notes,
        cost,
        duration_ms,
    } = r
    else {
        return Ok(());
    };
    c.tx.exec(
        "UPDATE turns SET status=:status, error=:error,
           session_id=COALESCE(:session_id, session_id), model=:model,
           context_tokens=:context_tokens, context_window=:context_window, answer=:answer,
           tools=:tools, notes=:notes, finished_at=:at, cost_input=:cost_input,
           cost_cached=:cost_cached, cost_output=:cost_output, cost_usd=:cost_usd,
           duration_ms=:duration_ms
         WHERE id=:turn_id",
        named_params! {
            ":turn_id": turn_id,
            ":status": status.as_str(),
            ":error": error,
            ":session_id": session_id,
            ":model": model,
            ":context_tokens": context.map(|c| c.tokens as i64),
            ":context_window": context.map(|c| c.window as i64),
            ":answer": answer,
            ":tools": json(tools),
            ":notes": json(notes),
            ":at": c.at,
            ":cost_input": cost.map(|k| k.input_tokens.min(i64::MAX as u64) as i64),
            ":cost_cached": cost.map(|k| k.cached_tokens.min(i64::MAX as u64) as i64),
            ":cost_output": cost.map(|k| k.output_tokens.min(i64::MAX as u64) as i64),
            ":cost_usd": cost.and_then(|k| k.usd),
            ":duration_ms": duration_ms.map(|ms| ms.min(i64::MAX as u64) as i64),
        },
    )?;
    Ok(())
}

fn apply_instruction_added(c: &At<'_>, text: &str, turn_id: Option<&str>) -> rusqlite::Result<()> {
    c.tx.exec(
        "INSERT INTO instructions (terminal_id, seq, text, turn_id, added_at)
         VALUES (:tid, (SELECT COALESCE(MAX(seq), 0) + 1 FROM instructions WHERE terminal_id=:tid),
           :text, :turn_id, :at)",
        named_params! { ":tid": c.tid, ":text": text, ":turn_id": turn_id, ":at": c.at },
    )?;
    Ok(())
}

fn apply_instruction_removed(c: &At<'_>, text: &str) -> rusqlite::Result<()> {
    c.tx.exec(
        "DELETE FROM instructions WHERE terminal_id=:tid AND text=:text",
        named_params! { ":tid": c.tid, ":text": text },
    )?;
    Ok(())
}

fn apply_instruction_edited(c: &At<'_>, text: &str, new_text: &str) -> rusqlite::Result<()> {
    c.tx.exec(
        "UPDATE instructions SET text=:new WHERE terminal_id=:tid AND text=:text",
        named_params! { ":tid": c.tid, ":text": text, ":new": new_text },
    )?;
    Ok(())
}

fn apply_instructions_cleared(c: &At<'_>) -> rusqlite::Result<()> {
    c.tx.exec(
        "DELETE FROM instructions WHERE terminal_id=:tid",
        named_params! { ":tid": c.tid },
    )?;
    Ok(())
}

/// Every row of every table in a stable order, one line each, as `column=value` cells: what
/// `reindex` must reproduce.
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
        let mut stmt = conn.prepare_cached(&format!("SELECT * FROM {table} ORDER BY {order}"))?;
        let columns: Vec<String> = stmt.column_names().map(String::from).collect();
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            out.push_str(table);
            for col in &columns {
                let v: rusqlite::types::Value = row.get(col.as_str())?;
                out.push_str(&format!("|{col}={v:?}"));
            }
            out.push('\n');
        }
    }
    Ok(out)
}

/// The id of the terminal called `name`.
pub fn terminal_id(conn: &Connection, name: &str) -> rusqlite::Result<Option<String>> {
    conn.row(
        "SELECT id FROM terminals WHERE name=:name",
        named_params! { ":name": name },
        |r| r.get("id"),
    )
    .optional()
}

/// The endpoint terminal `tid` last chose for `local` (at `new` or by a `send --provider`),
/// kept across switches to other providers.
pub fn last_local_endpoint(conn: &Connection, tid: &str) -> rusqlite::Result<Option<String>> {
    Ok(conn
        .row(
            "SELECT last_local_endpoint FROM terminals WHERE id=:tid",
            named_params! { ":tid": tid },
            |r| r.get("last_local_endpoint"),
        )
        .optional()?
        .flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_index_of_this_builds_version_is_kept() {
        let cases = [
            (SCHEMA_VERSION, OnOpen::Keep),
            // no version: a new file, or an index from before versions
            (0, OnOpen::Rebuild),
            (SCHEMA_VERSION - 1, OnOpen::Rebuild),
            // a newer build's: its tables may not be ours
            (SCHEMA_VERSION + 1, OnOpen::Rebuild),
            (-1, OnOpen::Rebuild),
        ];
        for (found, want) in cases {
            assert_eq!(on_open(found), want, "found version {found}");
        }
    }
}
