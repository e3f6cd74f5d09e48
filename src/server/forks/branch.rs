//! Making the new terminal of a fork or rewind: its worktree at the start commit, a Codex
//! thread forked for it through the app-server (once the checkout exists, so the fork is told
//! it), and its journal written whole (`Store::create`). See `forks.rs`.

use std::path::{Path, PathBuf};

use super::{git_err, worktree, Branching, Carried};
use crate::error::BatonError;
use crate::git;
use crate::providers::codex::app as codex_app;
use crate::server::state::Server;
use crate::server::turn::plan::system_text;
use crate::store::{ForkLink, Record, SessionFork, TerminalRow};
use crate::words::{CheckoutMode, OpenReason, ProviderKind};

/// The new terminal, made and journalled: its checkout, its first conversation, the links
/// both ways. Also says whether the history was carried (false: it opened fresh).
pub(super) async fn branch(
    srv: &Server,
    b: Branching,
    notes: &mut Vec<String>,
) -> Result<(TerminalRow, bool), BatonError> {
    let from = &b.from;
    let tid = uuid::Uuid::now_v7().to_string();
    let (mode, dir, wt) = match (worktree(from), &b.start) {
        (Some(wt), Some(start)) => {
            let into = crate::server::checkout::worktree_home(srv, &b.new_name, &tid);
            if let Some(parent) = into.parent() {
                std::fs::create_dir_all(parent).map_err(|e| {
                    BatonError::failed(format!("cannot create {}: {e}", parent.display()))
                })?;
            }
            let new = git::create_worktree_at(wt, &b.new_name, &into, start).map_err(git_err)?;
            // Runs happen in the same place inside the checkout as the original's.
            let rel = Path::new(&from.dir)
                .strip_prefix(&wt.path)
                .map(Path::to_path_buf)
                .unwrap_or_default();
            let dir = crate::server::checkout::under(&new.path, &rel);
            (CheckoutMode::Worktree, dir, Some(new))
        }
        _ => (from.mode, PathBuf::from(&from.dir), None),
    };
    let link = ForkLink {
        terminal_id: from.id.clone(),
        name: from.name.clone(),
        conversation_id: b.conversation_id.clone(),
        turn: b.turn,
        rewind: b.rewind,
    };
    let reason = if b.rewind {
        OpenReason::Rewind
    } else {
        OpenReason::Fork
    };
    let text = system_text(
        srv,
        &tid,
        from.brief.as_deref(),
        &dir,
        reason,
        &b.instructions,
    );
    let carried = match b.carried {
        Carried::Codex { thread, model, cut } => {
            match codex_fork(srv, &dir, &thread, &text, model.clone(), cut).await {
                Ok(id) => Carried::Session(SessionFork {
                    provider: ProviderKind::Codex,
                    session_id: id,
                    model,
                    at: None,
                    ready: true,
                    system_text: None,
                }),
                Err(e) => {
                    notes.push(format!(
                        "the codex thread could not be forked ({e}): a fresh conversation opens with the standing text"
                    ));
                    Carried::Fresh
                }
            }
        }
        other => other,
    };
    let kept = !matches!(carried, Carried::Fresh);
    let (fork, copied) = match carried {
        Carried::Session(f) => (Some(f), None),
        Carried::Local(turns) => (None, Some(turns)),
        Carried::Codex { .. } | Carried::Nothing | Carried::Fresh => (None, None),
    };
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
        Record::Forked { from: link },
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
    crate::server::removal::crash_point("fork-journal");
    // All of it or nothing: a crash never leaves half a terminal.
    srv.store.create(&tid, records)?;
    let new = srv
        .store
        .terminal(&tid)?
        .ok_or_else(|| BatonError::failed("internal: the new terminal is not in the index"))?;
    srv.announce(&tid);
    srv.announce(&from.id);
    srv.watch_files(&new);
    Ok((new, kept))
}

/// Forks Codex thread `thread` into a new one that runs in `dir` and is told `system_text`
/// (Codex keeps the original's developer message, so this one is added after the history),
/// cut back for a rewind. Through `codex app-server`: no model call.
async fn codex_fork(
    srv: &Server,
    dir: &Path,
    thread: &str,
    system_text: &str,
    model: Option<String>,
    cut: Option<(usize, String)>,
) -> Result<String, BatonError> {
    let bin = srv.resolve_bin(ProviderKind::Codex)?;
    let (dir, thread, text) = (
        dir.to_path_buf(),
        thread.to_string(),
        system_text.to_string(),
    );
    tokio::task::spawn_blocking(move || {
        let req = codex_app::ForkRequest {
            bin: &bin,
            env: &[],
            cwd: &dir,
            thread_id: &thread,
            system_text: &text,
            model: model.as_deref(),
            keep: cut
                .as_ref()
                .map(|(later, prompt)| codex_app::Keep::before_last(*later, prompt)),
        };
        codex_app::fork_thread(&req)
    })
    .await
    .map_err(|e| BatonError::failed(format!("the fork task crashed: {e}")))?
    .map_err(|e| BatonError::failed(e.to_string()))
}
