//! `baton fork` and `baton rewind`: a new terminal that carries on from another one, now or
//! from just before one of its turns. Each gets its own worktree on a new branch (a fork's at
//! the original's branch head, after committing its uncommitted work as after a turn; a
//! rewind's at the commit before the turn's automatic commit), the original's brief and
//! standing instructions (a rewind's as they were when the turn was sent), and a first
//! conversation (reason `fork` / `rewind`) whose first turn starts from a copy of the
//! original's provider session (`SessionFork`; see `engine::decide`), cut back before the turn
//! for a rewind (`rewind_cut`). A local conversation's history is copied into the new
//! journal. Where the history cannot be carried, the new conversation opens fresh on the
//! standing text and the answer says so. The new terminal's journal is written whole or not
//! at all (`Store::create`); the original's journal is never touched (the index lists a fork
//! under its original from the fork's `Forked` record). See ARCHITECTURE.md.

use std::sync::Arc;

use super::state::Server;
use super::terminals::{free_name, settled};
use crate::error::BatonError;
use crate::git::{self, Worktree};
use crate::protocol::views::{ForkView, HistoryMode, RewindView};
use crate::providers::{self, Carrying};
use crate::store::{Record, SessionFork, TerminalRow, TurnView};
use crate::validate;
use crate::words::{CheckoutMode, ProviderKind};

mod branch;
mod cut;

use branch::branch;

/// What the new terminal's first conversation carries of the original's.
enum Carried {
    /// Its first turn forks this session.
    Session(SessionFork),
    /// The turns of a conversation whose history is baton's own ([`Carrying::History`]: a
    /// local one), copied.
    History(Vec<Vec<serde_json::Value>>),
    /// A session its provider copies now ([`Carrying::Now`]), once the new checkout exists (so
    /// the copy is told that checkout).
    Now(CopyNow),
    /// Nothing, and that is all the model had (a rewind to the turn that opened its session).
    Nothing,
    /// Nothing: a fresh conversation on the standing text (the reason is in the notes).
    Fresh,
}

/// A session to copy now for the new terminal, cut back to before the turn that `later`
/// turns followed and that read `prompt` for a rewind.
#[derive(Debug, Clone)]
struct CopyNow {
    provider: ProviderKind,
    session_id: String,
    model: Option<String>,
    cut: Option<(usize, String)>,
}

impl Carried {
    /// What a new terminal carries of a fork that has not run yet: the same source, except a
    /// copy already made for that fork (`ready`), which is copied again (two terminals never
    /// share one Codex thread).
    fn again(f: SessionFork) -> Carried {
        if f.ready {
            Carried::Now(CopyNow {
                provider: f.provider,
                session_id: f.session_id,
                model: f.model,
                cut: None,
            })
        } else {
            Carried::Session(f)
        }
    }

    /// Session `session_id` of `provider` (pinned to `model`), carried the provider's way.
    fn session(provider: ProviderKind, session_id: String, model: Option<String>) -> Carried {
        match providers::of(provider).carrying() {
            Carrying::Now => Carried::Now(CopyNow {
                provider,
                session_id,
                model,
                cut: None,
            }),
            Carrying::AtFirstRun | Carrying::History => Carried::Session(SessionFork {
                provider,
                session_id,
                model,
                at: None,
                ready: false,
                system_text: None,
            }),
        }
    }
}

/// Everything a new terminal made from `from` needs.
struct Branching {
    from: TerminalRow,
    new_name: String,
    /// Where its branch starts (None: `from` has no worktree, the new terminal shares its dir).
    start: Option<String>,
    instructions: Vec<String>,
    carried: Carried,
    title: Option<String>,
    /// A fork: the last turn carried; a rewind: the turn it stops before.
    turn: u32,
    rewind: bool,
    conversation_id: Option<String>,
    /// What the new terminal runs on (a rewind: what the turn ran on).
    provider: ProviderKind,
    model: Option<String>,
    endpoint: Option<String>,
}

/// `baton fork NAME [NEW]`.
pub async fn fork(
    srv: &Arc<Server>,
    name: &str,
    new: Option<String>,
) -> Result<ForkView, BatonError> {
    let from = srv.terminal(name)?;
    let rt = srv.runtime(&from.id);
    let _turn = settled(srv, &rt, &from, "fork").await?;
    free_one_writer(srv, &from.id).await;
    let new_name = new_name(srv, &from, new)?;
    let mut notes = Vec::new();
    let start = match worktree(&from) {
        Some(wt) => {
            commit_left_work(&from, wt, &new_name).await?;
            Some(git::branch_head(wt).map_err(git_err)?)
        }
        None => {
            notes.push(format!(
                "{name} has no worktree of its own: {new_name} works in the same directory ({})",
                from.dir
            ));
            None
        }
    };
    let live = srv.store.live_conversation(&from.id)?;
    let turn = srv.store.last_turn_number(&from.id)?;
    let carried = match &live {
        None => {
            notes.push(format!(
                "{name} has no conversation yet: {new_name} starts fresh"
            ));
            Carried::Fresh
        }
        Some(c) => carry_live(srv, &from, c, &mut notes)?,
    };
    let instructions = srv
        .store
        .instructions(&from.id)?
        .into_iter()
        .map(|i| i.text)
        .collect();
    let (made, carried) = branch(
        srv,
        Branching {
            provider: from.provider,
            model: from.model.clone(),
            endpoint: from.endpoint.clone(),
            title: live.as_ref().and_then(|c| c.title.clone()),
            conversation_id: live.map(|c| c.id),
            from,
            new_name,
            start,
            instructions,
            carried,
            turn,
            rewind: false,
        },
        &mut notes,
    )
    .await?;
    let session_mode = if carried {
        HistoryMode::Forked
    } else {
        HistoryMode::Fresh
    };
    notes.extend(ready(srv, &made));
    Ok(ForkView {
        name: made.name.clone(),
        from: name.to_string(),
        from_turn: turn,
        branch: made.worktree.as_ref().map(|w| w.branch.clone()),
        worktree: made.worktree.map(|w| w.path.to_string_lossy().into_owned()),
        session_mode,
        notes,
    })
}

/// `baton rewind NAME TURN [NEW]`.
pub async fn rewind(
    srv: &Arc<Server>,
    name: &str,
    turn: u32,
    new: Option<String>,
) -> Result<RewindView, BatonError> {
    let from = srv.terminal(name)?;
    let rt = srv.runtime(&from.id);
    let _turn = settled(srv, &rt, &from, "rewind").await?;
    free_one_writer(srv, &from.id).await;
    let Some(wt) = worktree(&from).cloned() else {
        return Err(BatonError::bad_input(format!(
            "{name} has no git worktree of its own, so there are no automatic commits to bring its files back to turn {turn}: fork it instead (`baton fork {name}`)"
        )));
    };
    let turns = srv.store.turns(&from.id)?;
    let target = turn_of(&turns, name, turn)?;
    let new_name = new_name(srv, &from, new)?;
    let mut notes = Vec::new();
    let base = base_commit(&wt, &turns, &target, &mut notes)?;
    let entries = srv.store.entries(&from.id)?;
    let instructions = instructions_before(&entries, &target.id);
    let carried = cut::carry_before(srv, &from, &turns, &target, &entries, &mut notes).await?;
    let conversation = srv
        .store
        .conversations(&from.id)?
        .into_iter()
        .find(|c| c.id == target.conversation_id);
    let (provider, model, endpoint) = runs_on(srv, &from, &target)?;
    let (made, carried) = branch(
        srv,
        Branching {
            provider,
            model,
            endpoint,
            title: conversation.and_then(|c| c.title),
            conversation_id: Some(target.conversation_id.clone()),
            from,
            new_name,
            start: Some(base.clone()),
            instructions,
            carried,
            turn,
            rewind: true,
        },
        &mut notes,
    )
    .await?;
    let history = if carried {
        HistoryMode::Kept
    } else {
        HistoryMode::Fresh
    };
    notes.extend(ready(srv, &made));
    Ok(RewindView {
        name: made.name,
        from: name.to_string(),
        before_turn: turn,
        branch: made.worktree.map(|w| w.branch),
        base_commit: Some(base),
        prompt: target.prompt,
        history,
        notes,
    })
}

/// Makes the new terminal's own worktree ready (`setup`): what the user should know of it.
fn ready(srv: &Arc<Server>, made: &TerminalRow) -> Vec<String> {
    match &made.worktree {
        Some(wt) => super::setup::prepare(srv, &made.id, std::path::Path::new(&made.dir), wt),
        None => Vec::new(),
    }
}

/// Turn `turn` of terminal `name`, or what to say when it has none.
fn turn_of(turns: &[TurnView], name: &str, turn: u32) -> Result<TurnView, BatonError> {
    if let Some(target) = turns.iter().find(|t| t.number == turn) {
        return Ok(target.clone());
    }
    let hint = match turns.last() {
        Some(l) => format!("it has turns 1 to {}", l.number),
        None => "it has none yet".to_string(),
    };
    Err(BatonError::bad_input(format!(
        "{name} has no turn {turn} ({hint}; see `baton log {name}`)"
    )))
}

/// What a rewind to `target` runs on (provider, model, endpoint): what the turn ran on, so
/// the history it keeps is used; an endpoint provider's, the endpoint `from` last ran on.
fn runs_on(
    srv: &Server,
    from: &TerminalRow,
    target: &TurnView,
) -> Result<(ProviderKind, Option<String>, Option<String>), BatonError> {
    if target.provider == from.provider {
        return Ok((from.provider, from.model.clone(), from.endpoint.clone()));
    }
    let endpoint = if target.provider.is_cli() {
        None
    } else {
        srv.store.last_local_endpoint(&from.id)?
    };
    Ok((target.provider, None, endpoint))
}

/// A Codex fork opens the thread in an app-server of its own, and a session that takes one
/// writer at a time (`Provider::one_writer`) is held by the terminal's warm CLI: that one is
/// stopped first (its next turn starts cold). A warm Claude CLI stays.
async fn free_one_writer(srv: &Server, tid: &str) {
    srv.warm.settled(tid).await;
    for p in providers::all().filter(|p| p.one_writer()) {
        if let Some(cli) = srv.warm.take_of(tid, p.kind()) {
            cli.stop().await;
        }
    }
}

fn new_name(srv: &Server, from: &TerminalRow, new: Option<String>) -> Result<String, BatonError> {
    let name = from.name.as_str();
    let new_name = match new {
        Some(n) => n,
        None => free_name(srv, name)?,
    };
    validate::terminal_name(&new_name)?;
    if srv.store.terminal_id(&new_name)?.is_some() {
        return Err(BatonError::bad_input(format!(
            "a terminal named {new_name:?} already exists: pick another name"
        )));
    }
    if let Some(wt) = worktree(from) {
        git::check_branch_free(wt, &new_name).map_err(|e| BatonError::bad_input(e.to_string()))?;
    }
    Ok(new_name)
}

fn worktree(t: &TerminalRow) -> Option<&Worktree> {
    t.worktree
        .as_ref()
        .filter(|_| t.mode == CheckoutMode::Worktree)
}

fn git_err(e: git::GitError) -> BatonError {
    BatonError::failed(e.to_string())
}

/// The original's uncommitted work is committed on its branch first, as after a turn, so the
/// fork starts with it.
async fn commit_left_work(from: &TerminalRow, wt: &Worktree, new: &str) -> Result<(), BatonError> {
    let message = format!(
        "baton: work in {} when it was forked into {new}\n\nBaton-Terminal: {}\n",
        from.name, from.name
    );
    let path = wt.path.clone();
    tokio::task::spawn_blocking(move || git::auto_commit(&path, &message, &[]))
        .await
        .map_err(|e| BatonError::failed(format!("the commit task crashed: {e}")))?
        .map_err(git_err)?;
    Ok(())
}

/// What a fork carries of the original's live conversation `c`.
fn carry_live(
    srv: &Server,
    from: &TerminalRow,
    c: &crate::store::ConversationView,
    notes: &mut Vec<String>,
) -> Result<Carried, BatonError> {
    let state = srv.store.conversation_state(&c.id)?;
    let provider = state.session.as_ref().map_or(from.provider, |s| s.0);
    if super::read::rotates_next(provider, state.context.as_ref()) {
        notes.push(format!(
            "{}'s conversation passed the rotation line: the fork opens a fresh one, as its next prompt would",
            from.name
        ));
        return Ok(Carried::Fresh);
    }
    match state.session {
        Some((provider, _)) if providers::of(provider).carrying() == Carrying::History => {
            let entries = srv.store.entries(&from.id)?;
            Ok(Carried::History(super::turn::local::history(
                &entries, &c.id, "",
            )))
        }
        Some((provider, session_id)) => {
            let kept = srv.store.session(&c.id, &session_id)?;
            // The text the session keeps: a later session's adds its standing lines.
            let text = crate::engine::system_text::session_text(&c.system_text, &kept.standing);
            Ok(match Carried::session(provider, session_id, kept.model) {
                Carried::Session(f) => Carried::Session(SessionFork {
                    system_text: Some(text),
                    ..f
                }),
                other => other,
            })
        }
        None => match c.fork.clone() {
            // A fork not yet run on carries what it was going to carry.
            Some(f) => Ok(Carried::again(f)),
            None => {
                let entries = srv.store.entries(&from.id)?;
                let copied = super::turn::local::history(&entries, &c.id, "");
                if copied.is_empty() {
                    notes.push(format!(
                        "{}'s conversation has no provider session yet: the fork starts fresh",
                        from.name
                    ));
                    Ok(Carried::Fresh)
                } else {
                    Ok(Carried::History(copied))
                }
            }
        },
    }
}

/// The commit a rewind to `target` starts at: the parent of its automatic commit (the files
/// as they were when it was sent); for a turn that changed nothing, the newest commit of an
/// earlier turn, else where the branch started.
fn base_commit(
    wt: &Worktree,
    turns: &[TurnView],
    target: &TurnView,
    notes: &mut Vec<String>,
) -> Result<String, BatonError> {
    if let Some(commit) = &target.commit {
        if let Some(parent) = git::parent_of(wt, commit).map_err(git_err)? {
            return Ok(parent);
        }
    }
    let earlier = turns
        .iter()
        .filter(|t| t.number < target.number)
        .rev()
        .find_map(|t| t.commit.clone().map(|c| (c, t.number)));
    let (commit, what) = match earlier {
        Some((c, n)) => (c, format!("as turn {n} left them")),
        None => (
            wt.base_commit.clone(),
            "as they were when the branch started".to_string(),
        ),
    };
    if target.commit.is_none() {
        notes.push(format!(
            "turn {} changed no files: the files are {what}",
            target.number
        ));
    }
    Ok(commit)
}

/// The standing instructions as they were when turn `turn_id` was sent.
fn instructions_before(entries: &[crate::store::Entry], turn_id: &str) -> Vec<String> {
    let mut list: Vec<String> = Vec::new();
    for e in entries {
        match &e.record {
            Record::TurnStarted { turn_id: t, .. } if t == turn_id => break,
            Record::InstructionAdded { text, .. } if !list.contains(text) => {
                list.push(text.clone())
            }
            Record::InstructionRemoved { text } => list.retain(|l| l != text),
            Record::InstructionEdited { text, new_text } => {
                for l in list.iter_mut().filter(|l| *l == text) {
                    l.clone_from(new_text);
                }
            }
            Record::InstructionsCleared => list.clear(),
            _ => {}
        }
    }
    let keep = crate::instructions::MAX_LINES_PER_TERMINAL;
    let drop = list.len().saturating_sub(keep);
    list.split_off(drop)
}
