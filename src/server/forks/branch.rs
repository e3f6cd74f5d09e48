//! Making the new terminal of a fork or rewind: its worktree at the start commit, a session
//! copied for it now where its provider copies so (`Carrying::Now`: a Codex thread, through its
//! app-server, once the checkout exists so the fork is told it), and its journal written whole
//! (`Store::create`). See `forks.rs`.

use std::path::{Path, PathBuf};

use super::{git_err, worktree, Branching, Carried, CopyNow};
use crate::error::BatonError;
use crate::git::{self, Worktree};
use crate::providers::{self, SessionCopy};
use crate::server::state::Server;
use crate::server::turn::plan::system_text;
use crate::store::{ForkLink, Record, SessionFork, TerminalRow};
use crate::words::{CheckoutMode, OpenReason};

/// The new terminal, made and journalled: its checkout, its first conversation, the links
/// both ways. Also says whether the history was carried (false: it opened fresh).
pub(super) async fn branch(
    srv: &Server,
    b: Branching,
    notes: &mut Vec<String>,
) -> Result<(TerminalRow, bool), BatonError> {
    let tid = uuid::Uuid::now_v7().to_string();
    let (mode, dir, wt) = checkout(srv, &b, &tid)?;
    let forked = Record::Forked { from: link(&b) };
    let reason = if b.rewind {
        OpenReason::Rewind
    } else {
        OpenReason::Fork
    };
    let text = system_text(
        srv,
        &tid,
        b.from.brief.as_deref(),
        &dir,
        reason,
        &b.instructions,
    );
    let carried = match b.carried {
        Carried::Now(now) => copy_now(srv, now, &dir, &text, notes).await,
        other => other,
    };
    let kept = !matches!(carried, Carried::Fresh);
    let (fork, copied) = match carried {
        Carried::Session(f) => (Some(f), None),
        Carried::History(turns) => (None, Some(turns)),
        Carried::Now(_) | Carried::Nothing | Carried::Fresh => (None, None),
    };
    let from = &b.from;
    let dir_text = dir.to_string_lossy().into_owned();
    let conversation_id = uuid::Uuid::now_v7().to_string();
    let mut records = vec![
        Record::TerminalCreated {
            terminal_id: tid.clone(),
            name: b.new_name.clone(),
            dir: dir_text.clone(),
            source: from.source.clone(),
            mode,
            worktree: wt,
            provider: b.provider,
            model: b.model.clone(),
            brief: from.brief.clone(),
            endpoint: b.endpoint.clone(),
        },
        forked,
    ];
    records.extend(b.instructions.iter().map(|text| Record::InstructionAdded {
        text: text.clone(),
        turn_id: None,
    }));
    records.push(Record::ConversationOpened {
        conversation_id: conversation_id.clone(),
        number: 1,
        reason,
        dir: dir_text,
        system_text: text,
        title: b.title,
        fork,
    });
    if let Some(turns) = copied {
        records.push(Record::HistoryCopied {
            conversation_id,
            turns,
        });
    }
    Ok((journal(srv, &tid, &from.id, records)?, kept))
}

/// Where the new terminal `tid` works: a worktree of its own at the start commit, in the same
/// place inside the checkout as the original's; else the original's directory.
fn checkout(
    srv: &Server,
    b: &Branching,
    tid: &str,
) -> Result<(CheckoutMode, PathBuf, Option<Worktree>), BatonError> {
    let from = &b.from;
    let (Some(wt), Some(start)) = (worktree(from), &b.start) else {
        return Ok((from.mode, PathBuf::from(&from.dir), None));
    };
    let into = crate::server::checkout::worktree_home(srv, &b.new_name, tid);
    if let Some(parent) = into.parent() {
        git::private_dirs(parent)
            .map_err(|e| BatonError::failed(format!("cannot create {}: {e}", parent.display())))?;
    }
    let new = git::create_worktree_at(wt, &b.new_name, &into, start).map_err(git_err)?;
    let rel = Path::new(&from.dir)
        .strip_prefix(&wt.path)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let dir = crate::server::checkout::under(&new.path, &rel);
    Ok((CheckoutMode::Worktree, dir, Some(new)))
}

fn link(b: &Branching) -> ForkLink {
    ForkLink {
        terminal_id: b.from.id.clone(),
        name: b.from.name.clone(),
        conversation_id: b.conversation_id.clone(),
        turn: b.turn,
        rewind: b.rewind,
    }
}

/// Writes the new terminal's journal, all of it or nothing (a crash never leaves half a
/// terminal), and tells the watchers of both.
fn journal(
    srv: &Server,
    tid: &str,
    from: &str,
    records: Vec<Record>,
) -> Result<TerminalRow, BatonError> {
    crate::server::removal::crash_point("fork-journal");
    srv.store.create(tid, records)?;
    let new = srv
        .store
        .terminal(tid)?
        .ok_or_else(|| BatonError::failed("internal: the new terminal is not in the index"))?;
    srv.announce(tid);
    srv.announce(from);
    srv.watch_files(&new);
    Ok(new)
}

/// The session of `now` copied for the new checkout `dir`, told `system_text` (Codex keeps
/// the original's developer message, so this one is added after the history), cut back for a
/// rewind; else a fresh conversation, and a note says why.
async fn copy_now(
    srv: &Server,
    now: CopyNow,
    dir: &Path,
    system_text: &str,
    notes: &mut Vec<String>,
) -> Carried {
    match fork_now(srv, &now, dir, system_text).await {
        Ok(id) => Carried::Session(SessionFork {
            provider: now.provider,
            session_id: id,
            model: now.model,
            at: None,
            ready: true,
            system_text: None,
        }),
        Err(e) => {
            notes.push(format!(
                "the {} {} could not be forked ({e}): a fresh conversation opens with the standing text",
                now.provider,
                providers::of(now.provider).session_word()
            ));
            Carried::Fresh
        }
    }
}

/// [`providers::Provider::fork_now`], off the async workers (it waits on a process): no model
/// call.
async fn fork_now(
    srv: &Server,
    now: &CopyNow,
    dir: &Path,
    system_text: &str,
) -> Result<String, BatonError> {
    let bin = srv.resolve_bin(now.provider)?;
    let provider = providers::of(now.provider);
    let (dir, id, text, model, cut) = (
        dir.to_path_buf(),
        now.session_id.clone(),
        system_text.to_string(),
        now.model.clone(),
        now.cut.clone(),
    );
    tokio::task::spawn_blocking(move || {
        provider.fork_now(&SessionCopy {
            bin: &bin,
            cwd: &dir,
            id: &id,
            system_text: &text,
            model: model.as_deref(),
            cut: cut
                .as_ref()
                .map(|(later, prompt)| (*later, prompt.as_str())),
        })
    })
    .await
    .map_err(|e| BatonError::failed(format!("the fork task crashed: {e}")))?
    .map_err(|e| BatonError::failed(e.to_string()))
}
