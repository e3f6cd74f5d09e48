//! Listing terminals (issue 42): what `ls`, `show` and every update pushed to a watching
//! client read of the index, in five statements for a whole list (eight per terminal before:
//! 2.7 ms of server CPU for 100 terminals of 20 turns). Each statement starts from the
//! `terminals` table and reaches a terminal's rows through the indexes, so a list costs what
//! its terminals hold now (a count and a cost sum over their turns' index entries), not the
//! whole history of the index; no turn's answer, tools or prompt and no system text is read.

use std::collections::HashMap;

use rusqlite::{named_params, Connection, Row, Rows, Statement};

use super::inputs::{self, InputRow};
use super::views::{self, TerminalRow};
use crate::protocol::views::{LastTurnView, SessionView};
use crate::words::{ContextUsage, TurnCost};

/// One listed terminal, as the index has it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub row: TerminalRow,
    /// Its live conversation (None: it has none open yet).
    pub conversation: Option<ListedConversation>,
    /// How many turns it ran.
    pub turns: u32,
    pub last_turn: Option<LastTurnView>,
    /// Where its live conversation's context last stood.
    pub context: Option<ContextUsage>,
    /// The live conversation's provider sessions, oldest first.
    pub sessions: Vec<SessionView>,
    /// Its standing instructions' texts, in order.
    pub instructions: Vec<String>,
    /// What its turns cost, summed (None: no turn reported a cost).
    pub cost: Option<TurnCost>,
    /// Its waiting input, in the order it will run.
    pub waiting: Vec<InputRow>,
}

/// A live conversation as a list shows it (not its system text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedConversation {
    pub id: String,
    pub number: u32,
    pub opened_reason: String,
    pub dir: String,
    pub opened_at: String,
    pub title: Option<String>,
}

/// The live conversation of terminal `t` (by the index `conversations_by_terminal`).
const LIVE: &str = "(SELECT rowid FROM conversations WHERE terminal_id=t.id AND retired_at IS NULL
     ORDER BY number DESC LIMIT 1)";

/// Listings read since their terminal's rows in the index last changed (issue 42: a list of
/// 100 idle terminals of 20 turns took 2.3 ms of the server's CPU to read whole, each time).
/// Used and changed under the index's lock: a terminal's listing is forgotten whenever
/// entries of it are indexed ([`Store::index_entries`](super::Store)), and all of them when
/// the index is rebuilt; no other write reaches the index while the server runs.
#[derive(Debug, Default)]
pub struct Kept(HashMap<String, Listed>);

impl Kept {
    pub fn forget(&mut self, tid: &str) {
        self.0.remove(tid);
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// [`listing`], with what `kept` holds of terminals that did not change since: those are not
/// read again.
pub fn kept_listing(
    c: &Connection,
    kept: &mut Kept,
    only: Option<&str>,
) -> rusqlite::Result<Vec<Listed>> {
    let ids = match only {
        Some(id) => vec![id.to_string()],
        None => listed_ids(c)?,
    };
    let missing = ids.iter().filter(|id| !kept.0.contains_key(*id)).count();
    if only.is_none() && missing * 2 > ids.len() {
        // Most of them changed, or none was read yet: one read of all costs less than one
        // read of each.
        for l in listing(c, None)? {
            kept.0.insert(l.row.id.clone(), l);
        }
    }
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if !kept.0.contains_key(&id) {
            for l in listing(c, Some(&id))? {
                kept.0.insert(id.clone(), l);
            }
        }
        out.extend(kept.0.get(&id).cloned());
    }
    Ok(out)
}

/// The ids of the terminals not being removed, oldest first.
fn listed_ids(c: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT t.id AS id {LISTED_FROM} {EVERY} ORDER BY t.created_at, t.name"
    ))?;
    let ids = s.query_map([], |r| r.get("id"))?;
    ids.collect()
}

/// Every terminal not being removed (`only`: the terminal with that id alone, whatever its
/// state: `show` reads the one it was handed), oldest first, with what the index holds of it.
pub fn listing(c: &Connection, only: Option<&str>) -> rusqlite::Result<Vec<Listed>> {
    let filter = if only.is_some() { ONE } else { EVERY };
    let mut sessions = grouped(c, only, &sessions_sql(filter), views::session_row)?;
    let mut instructions = grouped(c, only, &instructions_sql(filter), |r| r.get("text"))?;
    let mut waiting = grouped(c, only, &waiting_sql(filter), inputs::row)?;
    let mut costs = grouped(c, only, &costs_sql(filter), views::cost_of)?;
    let mut s = c.prepare_cached(&main_sql(filter))?;
    let mut rows = query(&mut s, only)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let mut l = main_row(r)?;
        let id = &l.row.id;
        l.sessions = sessions.remove(id).unwrap_or_default();
        l.instructions = instructions.remove(id).unwrap_or_default();
        l.waiting = waiting.remove(id).unwrap_or_default();
        l.cost = costs.remove(id).and_then(|mut c| c.pop()).flatten();
        out.push(l);
    }
    Ok(out)
}

/// `s`'s rows, with `:only` bound to the terminal's id when one is asked for ([`ONE`]).
fn query<'s>(s: &'s mut Statement<'_>, only: Option<&str>) -> rusqlite::Result<Rows<'s>> {
    match only {
        Some(id) => s.query(named_params! { ":only": id }),
        None => s.query([]),
    }
}

/// The rows of `sql` (whose column `tid` names their terminal), grouped by terminal in the
/// order the statement gives them.
fn grouped<T>(
    c: &Connection,
    only: Option<&str>,
    sql: &str,
    f: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<HashMap<String, Vec<T>>> {
    let mut s = c.prepare_cached(sql)?;
    let mut rows = query(&mut s, only)?;
    let mut out: HashMap<String, Vec<T>> = HashMap::new();
    while let Some(r) = rows.next()? {
        out.entry(r.get("tid")?).or_default().push(f(r)?);
    }
    Ok(out)
}

/// A row per listed terminal: itself, its live conversation, its turns counted, its latest
/// turn and where its live conversation's context last stood.
fn main_sql(filter: &str) -> String {
    format!(
        "SELECT {terminal},
           c.id AS conv_id, c.number AS conv_number, c.opened_reason AS conv_reason,
           c.dir AS conv_dir, c.opened_at AS conv_opened_at, c.title AS conv_title,
           (SELECT COUNT(*) FROM turns WHERE terminal_id=t.id) AS turn_count,
           l.number AS last_number, l.status AS last_status, l.error AS last_error,
           x.context_tokens AS context_tokens, x.context_window AS context_window
         {LISTED_FROM}
         LEFT JOIN conversations c ON c.rowid = {LIVE}
         LEFT JOIN turns l ON l.rowid = (SELECT rowid FROM turns WHERE terminal_id=t.id
           ORDER BY number DESC LIMIT 1)
         LEFT JOIN turns x ON x.rowid = (SELECT rowid FROM turns WHERE conversation_id=c.id
           AND context_tokens IS NOT NULL AND context_window IS NOT NULL
           ORDER BY number DESC LIMIT 1)
         {filter} ORDER BY t.created_at, t.name",
        terminal = views::terminal_cols("t"),
    )
}

fn main_row(r: &Row<'_>) -> rusqlite::Result<Listed> {
    let conversation = match r.get::<_, Option<String>>("conv_id")? {
        None => None,
        Some(id) => Some(ListedConversation {
            id,
            number: r.get("conv_number")?,
            opened_reason: r.get("conv_reason")?,
            dir: r.get("conv_dir")?,
            opened_at: r.get("conv_opened_at")?,
            title: r.get("conv_title")?,
        }),
    };
    let last_turn = match r.get::<_, Option<u32>>("last_number")? {
        None => None,
        Some(number) => Some(LastTurnView {
            number,
            status: views::status(r.get("last_status")?),
            error: r.get("last_error")?,
        }),
    };
    Ok(Listed {
        row: views::terminal_row(r)?,
        conversation,
        turns: r.get("turn_count")?,
        last_turn,
        context: views::context_of(r.get("context_tokens")?, r.get("context_window")?),
        sessions: vec![],
        instructions: vec![],
        cost: None,
        waiting: vec![],
    })
}

/// The sessions of each listed terminal's live conversation, oldest first.
fn sessions_sql(filter: &str) -> String {
    format!(
        "SELECT t.id AS tid, s.provider AS provider, s.session_id AS session_id,
           s.model AS model, s.reason AS reason, s.started_at AS started_at
         {LISTED_FROM} CROSS JOIN conversations c ON c.rowid = {LIVE}
         CROSS JOIN sessions s ON s.conversation_id = c.id
         {filter} ORDER BY s.started_at, s.rowid"
    )
}

/// Each listed terminal's standing instructions, in order.
fn instructions_sql(filter: &str) -> String {
    format!(
        "SELECT t.id AS tid, i.text AS text {LISTED_FROM}
         CROSS JOIN instructions i ON i.terminal_id = t.id {filter} ORDER BY i.seq"
    )
}

/// Each listed terminal's waiting input (by the index `inputs_waiting`), in queue order.
fn waiting_sql(filter: &str) -> String {
    format!(
        "SELECT t.id AS tid, {cols} {LISTED_FROM}
         CROSS JOIN inputs i ON i.terminal_id = t.id AND i.state='waiting'
         LEFT JOIN turns u ON u.id = i.turn_id
         {filter} ORDER BY i.position",
        cols = inputs::COLS,
    )
}

/// Each listed terminal's costs summed (by the index `turns_costs`), for those with any.
fn costs_sql(filter: &str) -> String {
    format!(
        "SELECT t.id AS tid, SUM(k.cost_input) AS cost_input, SUM(k.cost_cached) AS cost_cached,
           SUM(k.cost_output) AS cost_output, SUM(k.cost_usd) AS cost_usd {LISTED_FROM}
         CROSS JOIN turns k ON k.terminal_id = t.id AND k.cost_input IS NOT NULL
         {filter} GROUP BY t.id"
    )
}

/// The terminals listed, `t`: every one not being removed ([`EVERY`]), or the one with id
/// `:only` ([`ONE`]). Each list joins its rows to `t` with `CROSS JOIN`, which SQLite takes
/// as the order of its loops: the terminals first.
const LISTED_FROM: &str = "FROM terminals t";
const EVERY: &str = "WHERE t.removing=0";
const ONE: &str = "WHERE t.id=:only";

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
