//! Waiting input in the index: the `inputs` table, written by the `Input*` records (and by
//! `TurnStarted`, which takes an input out of the queue), and read back in queue order.
//!
//! Order: waiting input has a `position` from 1 (next to run) with no gaps; input that left
//! the queue (started, joined a turn, withdrawn) keeps its row with `position` null. A steer
//! is meant for the running turn, so when it has to wait it goes ahead of queued input (after
//! earlier steers), at acceptance and when input is turned into a steer; a jump goes first.
//! Position 1 is always what runs next.

use rusqlite::{named_params, OptionalExtension, Row, Transaction};

use super::cached::Cached;

use super::index::json_name;
use super::records::Record;
use crate::words::{InputMode, ProviderKind};

/// One input as the index keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRow {
    pub number: u32,
    pub prompt: String,
    pub mode: InputMode,
    pub direct: bool,
    pub jumped: bool,
    pub provider: Option<ProviderKind>,
    pub endpoint: Option<String>,
    pub model: Option<String>,
    pub dir: Option<String>,
    /// Its turn opens a fresh conversation.
    pub fresh: bool,
    pub queued_at: String,
    /// `waiting`, `started`, `steered` or `withdrawn`.
    pub state: String,
    /// 1 = next to run; None once it left the queue.
    pub position: Option<u32>,
    /// The turn it started or joined.
    pub turn_id: Option<String>,
    /// That turn's number.
    pub turn: Option<u32>,
}

/// Applies an `Input*` record of terminal `tid`, journalled at `at`.
pub fn apply(tx: &Transaction<'_>, tid: &str, at: &str, r: &Record) -> rusqlite::Result<()> {
    match r {
        Record::InputAccepted {
            input,
            prompt,
            mode,
            direct,
            provider,
            endpoint,
            model,
            dir,
            fresh,
            retries: _,
        } => {
            let last = waiting_count(tx, tid)?;
            tx.exec(
                "INSERT OR REPLACE INTO inputs (terminal_id, number, prompt, mode, direct, jumped,
                   provider, endpoint, model, dir, fresh, queued_at, state, position)
                 VALUES (:tid, :n, :prompt, :mode, :direct, 0, :provider, :endpoint, :model, :dir,
                   :fresh, :at, 'waiting', :position)",
                named_params! {
                    ":tid": tid, ":n": input, ":prompt": prompt, ":mode": json_name(mode),
                    ":direct": direct, ":provider": provider.map(|p| p.as_str()),
                    ":endpoint": endpoint, ":model": model, ":dir": dir, ":fresh": fresh,
                    ":at": at, ":position": last + 1,
                },
            )?;
            if *mode == InputMode::Steer {
                move_to(tx, tid, *input, first_queued(tx, tid)?)?;
            }
            Ok(())
        }
        Record::InputEdited { input, prompt } => {
            tx.exec(
                "UPDATE inputs SET prompt=:prompt WHERE terminal_id=:tid AND number=:n",
                named_params! { ":tid": tid, ":n": input, ":prompt": prompt },
            )?;
            Ok(())
        }
        Record::InputWithdrawn { input } => leave_queue(tx, tid, *input, "withdrawn", None),
        Record::InputMoved { input, position } => move_to(tx, tid, *input, *position),
        Record::InputModeChanged { input, mode } => {
            tx.exec(
                "UPDATE inputs SET mode=:mode WHERE terminal_id=:tid AND number=:n",
                named_params! { ":tid": tid, ":n": input, ":mode": json_name(mode) },
            )?;
            if *mode == InputMode::Steer {
                move_to(tx, tid, *input, first_queued(tx, tid)?)?;
            }
            Ok(())
        }
        Record::InputJumped { input } => {
            tx.exec(
                "UPDATE inputs SET jumped=1 WHERE terminal_id=:tid AND number=:n",
                named_params! { ":tid": tid, ":n": input },
            )?;
            move_to(tx, tid, *input, 1)
        }
        Record::InputSteered { input, turn_id } => {
            leave_queue(tx, tid, *input, "steered", Some(turn_id))
        }
        _ => Ok(()),
    }
}

fn waiting_count(tx: &Transaction<'_>, tid: &str) -> rusqlite::Result<u32> {
    tx.row(
        "SELECT COUNT(*) AS n FROM inputs WHERE terminal_id=:tid AND state='waiting'",
        named_params! { ":tid": tid },
        |r| r.get("n"),
    )
}

/// The position just after the waiting steers (where a new steer goes).
fn first_queued(tx: &Transaction<'_>, tid: &str) -> rusqlite::Result<u32> {
    let steers: u32 = tx.row(
        "SELECT COUNT(*) AS n FROM inputs
         WHERE terminal_id=:tid AND state='waiting' AND (mode='steer' OR jumped=1)",
        named_params! { ":tid": tid },
        |r| r.get("n"),
    )?;
    Ok(steers.max(1))
}

fn position(tx: &Transaction<'_>, tid: &str, n: u32) -> rusqlite::Result<Option<u32>> {
    Ok(tx
        .row(
            "SELECT position FROM inputs WHERE terminal_id=:tid AND number=:n",
            named_params! { ":tid": tid, ":n": n },
            |r| r.get::<_, Option<u32>>("position"),
        )
        .optional()?
        .flatten())
}

/// Moves waiting input `n` to `to` (clamped to the queue), shifting the others.
fn move_to(tx: &Transaction<'_>, tid: &str, n: u32, to: u32) -> rusqlite::Result<()> {
    let Some(from) = position(tx, tid, n)? else {
        return Ok(());
    };
    let to = to.clamp(1, waiting_count(tx, tid)?.max(1));
    if to == from {
        return Ok(());
    }
    let (shift, lo, hi) = if to < from {
        (1, to, from - 1)
    } else {
        (-1, from + 1, to)
    };
    tx.exec(
        "UPDATE inputs SET position=position+:shift
         WHERE terminal_id=:tid AND state='waiting' AND position BETWEEN :lo AND :hi",
        named_params! { ":tid": tid, ":shift": shift, ":lo": lo, ":hi": hi },
    )?;
    tx.exec(
        "UPDATE inputs SET position=:to WHERE terminal_id=:tid AND number=:n",
        named_params! { ":tid": tid, ":n": n, ":to": to },
    )?;
    Ok(())
}

/// Input `n` left the queue (`state`: started, steered, withdrawn); the ones after it move up.
pub fn leave_queue(
    tx: &Transaction<'_>,
    tid: &str,
    n: u32,
    state: &str,
    turn_id: Option<&str>,
) -> rusqlite::Result<()> {
    let Some(from) = position(tx, tid, n)? else {
        return Ok(());
    };
    tx.exec(
        "UPDATE inputs SET state=:state, position=NULL, turn_id=:turn
         WHERE terminal_id=:tid AND number=:n",
        named_params! { ":tid": tid, ":n": n, ":state": state, ":turn": turn_id },
    )?;
    tx.exec(
        "UPDATE inputs SET position=position-1
         WHERE terminal_id=:tid AND state='waiting' AND position > :from",
        named_params! { ":tid": tid, ":from": from },
    )?;
    Ok(())
}

/// Input `n`, which turn `turn_id` took and whose start is void, waits again: first in the
/// queue (where it was when the runner took it), the others one place down.
pub fn back_to_head(
    tx: &Transaction<'_>,
    tid: &str,
    n: u32,
    turn_id: &str,
) -> rusqlite::Result<()> {
    let taken = tx.exec(
        "UPDATE inputs SET state='waiting', position=0, turn_id=NULL
         WHERE terminal_id=:tid AND number=:n AND state='started' AND turn_id=:turn",
        named_params! { ":tid": tid, ":n": n, ":turn": turn_id },
    )?;
    if taken == 0 {
        return Ok(());
    }
    tx.exec(
        "UPDATE inputs SET position=position+1 WHERE terminal_id=:tid AND state='waiting'",
        named_params! { ":tid": tid },
    )?;
    Ok(())
}

/// The columns [`row`] reads, from `inputs i` and the turn it started, `turns u`.
pub(super) const COLS: &str =
    "i.number, i.prompt, i.mode, i.direct, i.jumped, i.provider, i.endpoint,
    i.model, i.dir, i.fresh, i.queued_at, i.state, i.position, i.turn_id, u.number AS turn";

pub(super) fn row(r: &Row<'_>) -> rusqlite::Result<InputRow> {
    let mode: String = r.get("mode")?;
    let provider: Option<String> = r.get("provider")?;
    Ok(InputRow {
        number: r.get("number")?,
        prompt: r.get("prompt")?,
        mode: if mode == "steer" {
            InputMode::Steer
        } else {
            InputMode::Queue
        },
        direct: r.get("direct")?,
        jumped: r.get("jumped")?,
        provider: provider.as_deref().and_then(ProviderKind::parse),
        endpoint: r.get("endpoint")?,
        model: r.get("model")?,
        dir: r.get("dir")?,
        fresh: r.get("fresh")?,
        queued_at: r.get("queued_at")?,
        state: r.get("state")?,
        position: r.get("position")?,
        turn_id: r.get("turn_id")?,
        turn: r.get("turn")?,
    })
}

/// Terminal `tid`'s waiting input (`waiting`: by the index `inputs_waiting`, not every input
/// the terminal ever took).
pub(super) fn waiting_sql() -> String {
    format!(
        "SELECT {COLS} FROM inputs i LEFT JOIN turns u ON u.id = i.turn_id
         WHERE i.terminal_id=:tid AND i.state='waiting' ORDER BY i.position"
    )
}

/// Terminal `tid`'s waiting input, in the order it will run.
pub fn waiting(c: &rusqlite::Connection, tid: &str) -> rusqlite::Result<Vec<InputRow>> {
    let mut s = c.prepare_cached(&waiting_sql())?;
    let rows = s.query_map(named_params! { ":tid": tid }, row)?;
    rows.collect()
}

/// Input `n` of terminal `tid`, whatever became of it.
pub fn input(c: &rusqlite::Connection, tid: &str, n: u32) -> rusqlite::Result<Option<InputRow>> {
    c.row(
        &format!(
            "SELECT {COLS} FROM inputs i LEFT JOIN turns u ON u.id = i.turn_id
             WHERE i.terminal_id=:tid AND i.number=:n"
        ),
        named_params! { ":tid": tid, ":n": n },
        row,
    )
    .optional()
}

/// The highest input number terminal `tid` used (0: none yet).
pub fn last_number(c: &rusqlite::Connection, tid: &str) -> rusqlite::Result<u32> {
    c.row(
        "SELECT COALESCE(MAX(number), 0) AS n FROM inputs WHERE terminal_id=:tid",
        named_params! { ":tid": tid },
        |r| r.get("n"),
    )
}
