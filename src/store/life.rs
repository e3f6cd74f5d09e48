//! The index side of a terminal's life beyond its turns: its last activity, archiving, removal in two steps
//! (`RemovalStarted` hides the terminal from listings at once, keeps its name taken and
//! remembers what to finish; `TerminalRemoved` drops it, `RemovalCancelled` brings it back), forks (where a terminal came from, where it was forked into), imports (the live
//! conversation re-pointed at the new checkout) and conversation
//! titles (the first prompt's until the user renames it). See ARCHITECTURE.md ("The journal's
//! records").

use rusqlite::{named_params, OptionalExtension, Transaction};

use super::cached::Cached;

use super::index::json;
use super::records::{ForkLink, Repointed, SessionFork};
use crate::words::title_of;

pub fn archived(tx: &Transaction<'_>, tid: &str, archived: bool) -> rusqlite::Result<()> {
    tx.exec(
        "UPDATE terminals SET archived=:archived WHERE id=:tid",
        named_params! { ":tid": tid, ":archived": archived },
    )?;
    Ok(())
}

/// Hides the terminal and remembers what its removal has to finish.
pub fn removal_started(
    tx: &Transaction<'_>,
    tid: &str,
    at: &str,
    delete_branch: bool,
    force: bool,
    purge: bool,
) -> rusqlite::Result<()> {
    let row: Option<(String, String, Option<String>)> = tx
        .row(
            "SELECT name, mode, worktree FROM terminals WHERE id=:tid",
            named_params! { ":tid": tid },
            |r| Ok((r.get("name")?, r.get("mode")?, r.get("worktree")?)),
        )
        .optional()?;
    let Some((name, mode, worktree)) = row else {
        return Ok(());
    };
    tx.exec(
        "INSERT OR REPLACE INTO removals
           (terminal_id, name, mode, worktree, delete_branch, force, at, purge)
         VALUES (:tid, :name, :mode, :worktree, :delete_branch, :force, :at, :purge)",
        named_params! {
            ":tid": tid,
            ":name": name,
            ":mode": mode,
            ":worktree": worktree,
            ":delete_branch": delete_branch,
            ":force": force,
            ":at": at,
            ":purge": purge,
        },
    )?;
    tx.exec(
        "UPDATE terminals SET removing=1 WHERE id=:tid",
        named_params! { ":tid": tid },
    )?;
    Ok(())
}

/// The terminal's latest journal entry is from `at` (what `baton prune` calls its last
/// activity).
pub fn active(tx: &Transaction<'_>, tid: &str, at: &str) -> rusqlite::Result<()> {
    tx.exec(
        "UPDATE terminals SET active_at=:at WHERE id=:tid",
        named_params! { ":tid": tid, ":at": at },
    )?;
    Ok(())
}

pub fn removal_cancelled(tx: &Transaction<'_>, tid: &str) -> rusqlite::Result<()> {
    removal_done(tx, tid)?;
    tx.exec(
        "UPDATE terminals SET removing=0 WHERE id=:tid",
        named_params! { ":tid": tid },
    )?;
    Ok(())
}

pub fn removal_done(tx: &Transaction<'_>, tid: &str) -> rusqlite::Result<()> {
    tx.exec(
        "DELETE FROM removals WHERE terminal_id=:tid",
        named_params! { ":tid": tid },
    )?;
    Ok(())
}

/// Terminal `tid` came from `from`: it says so, and `from` lists it among its forks.
pub fn forked(tx: &Transaction<'_>, tid: &str, at: &str, from: &ForkLink) -> rusqlite::Result<()> {
    tx.exec(
        "UPDATE terminals SET forked_from=:from WHERE id=:tid",
        named_params! { ":tid": tid, ":from": json(from) },
    )?;
    let name: Option<String> = tx
        .row(
            "SELECT name FROM terminals WHERE id=:tid",
            named_params! { ":tid": tid },
            |r| r.get("name"),
        )
        .optional()?;
    let into = ForkLink {
        terminal_id: tid.to_string(),
        name: name.unwrap_or_default(),
        ..from.clone()
    };
    tx.exec(
        "INSERT INTO forks (terminal_id, seq, link, at)
         VALUES (:from, (SELECT COALESCE(MAX(seq), 0) + 1 FROM forks WHERE terminal_id=:from),
           :link, :at)",
        named_params! { ":from": from.terminal_id, ":link": json(&into), ":at": at },
    )?;
    Ok(())
}

/// An imported terminal's live conversation runs in its new directory, with the system text
/// that names it.
pub fn repointed(tx: &Transaction<'_>, conv: Option<&Repointed>) -> rusqlite::Result<()> {
    let Some(c) = conv else {
        return Ok(());
    };
    tx.exec(
        "UPDATE conversations SET dir=:dir, system_text=:text WHERE id=:id",
        named_params! { ":id": c.conversation_id, ":dir": c.dir, ":text": c.system_text },
    )?;
    Ok(())
}

/// A user's title: it stays, whatever the prompts.
pub fn titled(tx: &Transaction<'_>, conversation_id: &str, title: &str) -> rusqlite::Result<()> {
    tx.exec(
        "UPDATE conversations SET title=:title, titled=1 WHERE id=:id",
        named_params! { ":id": conversation_id, ":title": title },
    )?;
    Ok(())
}

/// What a conversation opened with: a title carried on from the original, and the session
/// its first turn forks.
pub fn conversation_carries(
    tx: &Transaction<'_>,
    conversation_id: &str,
    title: Option<&str>,
    fork: &Option<SessionFork>,
) -> rusqlite::Result<()> {
    tx.exec(
        "UPDATE conversations SET title=:title, fork=:fork WHERE id=:id",
        named_params! {
            ":id": conversation_id,
            ":title": title,
            ":fork": fork.as_ref().map(json),
        },
    )?;
    Ok(())
}

/// A conversation without a title takes its first prompt's.
pub fn title_from_first_prompt(
    tx: &Transaction<'_>,
    conversation_id: &str,
    prompt: &str,
) -> rusqlite::Result<()> {
    let title = title_of(prompt);
    if title.is_empty() {
        return Ok(());
    }
    tx.exec(
        "UPDATE conversations SET title=:title WHERE id=:id AND title IS NULL",
        named_params! { ":id": conversation_id, ":title": title },
    )?;
    Ok(())
}
