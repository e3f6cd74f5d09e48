//! The write side of a terminal's life outside its turns: creating, renaming and removing
//! it, editing its standing instructions, interrupting its turn. Every change is a journal
//! record first; the answers are views from the read side. See ARCHITECTURE.md.

use std::path::Path;

use super::settings::{existing_dir, validate_model, ProviderChoice};
use super::state::{Interrupting, Server, TermRuntime};
use crate::error::BatonError;
use crate::git;
use crate::protocol::views::{ArchivedView, InstructionView, InterruptedView, RenamedView};
use crate::protocol::views::{TerminalView, TitledView};
use crate::protocol::InstructionsAction;
use crate::store::{Record, TerminalRow};
use crate::validate;
use crate::words::CheckoutMode;

/// `baton new`.
pub fn new_terminal(
    srv: &std::sync::Arc<Server>,
    name: Option<String>,
    dir: &str,
    provider: Option<String>,
    model: Option<String>,
    brief: Option<String>,
    in_place: bool,
) -> Result<TerminalView, BatonError> {
    let canonical = existing_dir(dir)?;
    let ProviderChoice { kind, endpoint } =
        super::settings::choose_provider(srv, provider.as_deref(), None)?.unwrap_or_default();
    let name = match name {
        Some(n) => n,
        None => free_name(srv, &validate::name_from_dir(Path::new(&canonical)))?,
    };
    validate::terminal_name(&name)?;
    if let Some(m) = &model {
        validate_model(m)?;
    }
    let model = model.as_deref().and_then(super::settings::pinned);
    if srv.store.terminal_id(&name)?.is_some() {
        return Err(BatonError::bad_input(format!(
            "a terminal named {name:?} already exists (pick another name, or use it: `baton send {name} …`)"
        )));
    }
    let worktree_next = !in_place
        && matches!(
            git::inspect(Path::new(&canonical)),
            Ok(git::RepoState::Branch { .. })
        );
    let rows = srv.store.terminals()?;
    let others = rows
        .iter()
        .filter(|t| !t.removing)
        .map(|t| (t.name.as_str(), t.mode, t.dir.as_str()));
    if let Some(other) = sharing(others, &canonical, worktree_next) {
        return Err(BatonError::bad_input(format!(
            "{canonical} is already the folder of terminal {other:?}: a second terminal there would share its files; send to it (`baton send {other} …`), or make the folder a git repository with a commit so each terminal gets its own worktree"
        )));
    }
    let brief = brief.filter(|b| !b.trim().is_empty());
    let tid = uuid::Uuid::now_v7().to_string();
    let (mode, run_dir, worktree) =
        super::checkout::open(srv, &name, &tid, Path::new(&canonical), in_place)?;
    srv.store.append(
        &tid,
        Record::TerminalCreated {
            terminal_id: tid.clone(),
            name: name.clone(),
            dir: run_dir.to_string_lossy().into_owned(),
            source: canonical,
            mode,
            worktree: worktree.clone(),
            provider: kind,
            model,
            brief,
            endpoint,
        },
    )?;
    if let Some(wt) = &worktree {
        super::setup::prepare(srv, &tid, &run_dir, wt);
    }
    srv.announce(&tid);
    if let Some(t) = srv.store.terminal(&tid)? {
        srv.watch_files(&t);
    }
    super::read::show(srv, &name)
}

/// The terminal that already runs in `dir` outside a worktree of its own, when a new
/// terminal there would run in that very folder too (`worktree_next`: it gets a worktree
/// instead, and shares nothing). Pure.
fn sharing<'a>(
    others: impl IntoIterator<Item = (&'a str, CheckoutMode, &'a str)>,
    dir: &str,
    worktree_next: bool,
) -> Option<&'a str> {
    if worktree_next {
        return None;
    }
    others
        .into_iter()
        .find(|(_, mode, d)| *mode != CheckoutMode::Worktree && *d == dir)
        .map(|(name, _, _)| name)
}

pub(super) fn free_name(srv: &Server, base: &str) -> Result<String, BatonError> {
    if srv.store.terminal_id(base)?.is_none() {
        return Ok(base.to_string());
    }
    for i in 2..1000 {
        let n = format!("{base}-{i}");
        if srv.store.terminal_id(&n)?.is_none() {
            return Ok(n);
        }
    }
    Err(BatonError::bad_input(
        "could not find a free terminal name: pass one",
    ))
}

/// True while a turn runs on the terminal or sends wait for it.
pub fn busy(srv: &Server, t: &TerminalRow) -> bool {
    let rt = srv.runtime(&t.id);
    rt.is_running() || rt.taken().is_some() || super::read::waiting(srv, t).unwrap_or(0) > 0
}

/// Instruction `number` of terminal `name`'s `current` ones, or the error that says how many
/// it has.
fn numbered<'a>(
    current: &'a [InstructionView],
    name: &str,
    number: u32,
) -> Result<&'a InstructionView, BatonError> {
    current.iter().find(|i| i.number == number).ok_or_else(|| {
        BatonError::bad_input(format!(
            "{name} has no instruction {number} (it has {}; see `baton instructions {name}`)",
            current.len()
        ))
    })
}

pub fn instructions(
    srv: &Server,
    name: &str,
    action: InstructionsAction,
) -> Result<Vec<InstructionView>, BatonError> {
    let t = srv.terminal(name)?;
    let rt = srv.runtime(&t.id);
    match action {
        InstructionsAction::List => {}
        InstructionsAction::Add { text } => {
            let text = instruction_line(&text)?;
            if super::extract::keep(srv, &rt, &t.id, None, std::slice::from_ref(&text))?.is_empty()
            {
                return Err(BatonError::bad_input(format!(
                    "{name} already has that instruction"
                )));
            }
        }
        InstructionsAction::Rm { number } => {
            let _guard = rt
                .instructions_lock
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let current = srv.store.instructions(&t.id)?;
            let i = numbered(&current, name, number)?;
            srv.store.append(
                &t.id,
                Record::InstructionRemoved {
                    text: i.text.clone(),
                },
            )?;
        }
        InstructionsAction::Edit { number, text } => {
            let text = instruction_line(&text)?;
            let _guard = rt
                .instructions_lock
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let current = srv.store.instructions(&t.id)?;
            let i = numbered(&current, name, number)?;
            if current.iter().any(|o| o.number != number && o.text == text) {
                return Err(BatonError::bad_input(format!(
                    "{name} already has that instruction"
                )));
            }
            if i.text != text {
                srv.store.append(
                    &t.id,
                    Record::InstructionEdited {
                        text: i.text.clone(),
                        new_text: text,
                    },
                )?;
            }
        }
        InstructionsAction::Clear => {
            let _guard = rt
                .instructions_lock
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if !srv.store.instructions(&t.id)?.is_empty() {
                srv.store.append(&t.id, Record::InstructionsCleared)?;
            }
        }
    }
    srv.announce(&t.id);
    Ok(srv.store.instructions(&t.id)?)
}

/// A standing instruction as typed: one non-empty line, trimmed.
fn instruction_line(text: &str) -> Result<String, BatonError> {
    let text = text.trim().to_string();
    if text.is_empty() || text.chars().any(|c| c.is_control() && c != '\t') {
        return Err(BatonError::bad_input(
            "an instruction is one non-empty line of text (no newlines or control characters)",
        ));
    }
    Ok(text)
}

pub fn interrupt(srv: &Server, name: &str) -> Result<InterruptedView, BatonError> {
    let t = srv.terminal(name)?;
    let rt = srv.runtime(&t.id);
    let turn_id = match rt
        .interrupt()
        .map_err(|e| BatonError::failed(format!("cannot interrupt {name}: {e}")))?
    {
        Interrupting::Turn(turn_id) => turn_id,
        Interrupting::Starting(input) => format!("(the turn of input {input}, starting)"),
        // The turn is over and recorded; what keeps the next prompt waiting is its CLI.
        Interrupting::Nothing => {
            let exiting = rt.ending.hurry().ok_or_else(|| {
                BatonError::failed(format!("{name} has no running turn to interrupt"))
            })?;
            return Ok(InterruptedView {
                name: name.to_string(),
                turn_id: exiting.turn_id,
                interrupted: false,
                stopped_exiting_cli: Some(exiting.pid),
            });
        }
    };
    Ok(InterruptedView {
        name: name.to_string(),
        turn_id,
        interrupted: true,
        stopped_exiting_cli: None,
    })
}

/// `baton rename`: the terminal keeps its id, history, worktree and branch; only the name it is
/// known by changes. Refused while a turn runs or sends wait (they were started under the old
/// name), and when the new name is invalid or taken.
pub async fn rename(srv: &Server, name: &str, new_name: &str) -> Result<RenamedView, BatonError> {
    let t = srv.terminal(name)?;
    validate::terminal_name(new_name)?;
    if new_name == name {
        return Ok(RenamedView {
            name: name.to_string(),
            old_name: name.to_string(),
        });
    }
    if srv.store.terminal_id(new_name)?.is_some() {
        return Err(BatonError::bad_input(format!(
            "a terminal named {new_name:?} already exists: pick another name"
        )));
    }
    let rt = srv.runtime(&t.id);
    // Holding the turn lock keeps a send from starting while the name changes.
    let _turn = settled(srv, &rt, &t, "rename").await?;
    srv.store.append(
        &t.id,
        Record::Renamed {
            name: new_name.to_string(),
        },
    )?;
    let _ = srv.watch.send(crate::protocol::WatchEvent::Renamed {
        name: name.to_string(),
        new_name: new_name.to_string(),
    });
    srv.announce(&t.id);
    Ok(RenamedView {
        name: new_name.to_string(),
        old_name: name.to_string(),
    })
}

/// How long a change that needs a quiet terminal waits for its turn lock: the runner of a turn
/// that just ended, or the file watcher following the checkout, hold it briefly.
const SETTLE: std::time::Duration = std::time::Duration::from_secs(5);

/// Terminal `t`'s turn lock, for a change that must not race a turn (fork, rewind, rename,
/// rm): refused at once while a turn runs or input waits; a lock held only briefly (a turn's
/// runner finishing up, the file watcher following the checkout) is waited for, and so is the
/// exit of the last turn's CLI (its runner holds the lock until then, which the close-out
/// bounds: `providers::closing`).
pub(super) async fn settled<'a>(
    srv: &Server,
    rt: &'a TermRuntime,
    t: &TerminalRow,
    what: &str,
) -> Result<tokio::sync::MutexGuard<'a, ()>, BatonError> {
    refuse_unfinished(srv, t, what)?;
    let guard = match tokio::time::timeout(SETTLE, rt.turn_lock.lock()).await {
        Ok(guard) => guard,
        Err(_) if rt.ending.is_exiting() => rt.turn_lock.lock().await,
        Err(_) => return Err(busy_refusal(&t.name, what)),
    };
    refuse_unfinished(srv, t, what)?;
    if busy(srv, t) {
        return Err(busy_refusal(&t.name, what));
    }
    Ok(guard)
}

/// The refusal of a change to `t` while its last turn has not ended or input waits.
pub(super) fn refuse_unfinished(
    srv: &Server,
    t: &TerminalRow,
    what: &str,
) -> Result<(), BatonError> {
    let last = srv.store.turns_summary(&t.id, None)?.last;
    if last.is_some_and(|l| l.status.is_none()) || super::read::waiting(srv, t)? > 0 {
        return Err(busy_refusal(&t.name, what));
    }
    Ok(())
}

fn busy_refusal(name: &str, what: &str) -> BatonError {
    BatonError::bad_input(format!(
        "{name} is running a turn or has prompts waiting: {what} it once they ended (or `baton interrupt {name}`)"
    ))
}

/// `baton archive` / `unarchive`: hides the terminal from `ls` and the multiplexer's list (or
/// shows it again). Nothing else changes: a running turn goes on, waiting input still runs. Its
/// shell is closed and its warm CLI stopped (a hidden terminal's would linger unseen).
pub fn archive(srv: &Server, name: &str, archived: bool) -> Result<ArchivedView, BatonError> {
    let t = srv.terminal(name)?;
    if t.archived != archived {
        let record = if archived {
            Record::Archived
        } else {
            Record::Unarchived
        };
        srv.store.append(&t.id, record)?;
        if archived {
            srv.shells.hang_up(&t.id);
            // So is its warm CLI: memory for a terminal nobody sees.
            if let Some(cli) = srv.warm.take(&t.id) {
                cli.retire();
            }
        }
        srv.announce(&t.id);
    }
    Ok(ArchivedView {
        name: name.to_string(),
        archived,
    })
}

/// Longest conversation title a user may give, in characters.
pub(super) const TITLE_MAX: usize = 200;

/// `baton rename NAME --conversation TITLE`: titles the live conversation.
pub fn title(srv: &Server, name: &str, title: &str) -> Result<TitledView, BatonError> {
    let t = srv.terminal(name)?;
    let title = title.trim();
    validate::title(title, TITLE_MAX)?;
    let Some(conv) = srv.store.live_conversation(&t.id)? else {
        return Err(BatonError::bad_input(format!(
            "{name} has no conversation yet: its first prompt opens one (and titles it)"
        )));
    };
    srv.store.append(
        &t.id,
        Record::ConversationTitled {
            conversation_id: conv.id.clone(),
            title: title.to_string(),
        },
    )?;
    srv.announce(&t.id);
    Ok(TitledView {
        name: name.to_string(),
        conversation: conv.number,
        title: title.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_terminal_is_refused_only_where_it_would_share_a_folder() {
        use CheckoutMode::{Folder, InPlace, Worktree};
        let others = [
            ("api", Folder, "/p"),
            ("wt", Worktree, "/w"),
            ("ip", InPlace, "/r"),
        ];
        let rows = [
            ("/p", false, Some("api")),
            ("/p", true, None),
            ("/r", false, Some("ip")),
            ("/w", false, None),
            ("/elsewhere", false, None),
        ];
        for (dir, worktree_next, want) in rows {
            assert_eq!(sharing(others, dir, worktree_next), want, "{dir}");
        }
    }
}
