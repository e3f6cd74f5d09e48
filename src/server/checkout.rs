//! A terminal's checkout, as the server carries it out: a worktree made at `baton new`, a plain
//! folder adopted into a worktree once it became a repository, a moved worktree followed, a
//! deleted one recreated, each changing turn committed, and review, landing and removal.
//!
//! Decisions made here (the design leaves them open):
//! - Worktrees live in `<data dir>/worktrees/<name>-<8 hex of the terminal id>` unless
//!   `[git] worktrees` in config.toml names another folder.
//! - `--in-place` terminals get no automatic commits: baton never commits on the user's own
//!   checked-out branch behind their back; their files simply stay where they are.
//! - The folder → worktree move and worktree moves happen at the next send (the watcher only
//!   keeps `show` current); the turn that follows opens a fresh conversation (reason `moved`).
//! - A big checkout's first turn after a server start walks it for the change tracker
//!   ([`Prime`]) from its CLI's first event, not at the server's start (which would walk every
//!   terminal's checkout, used or not, while the user's first CLI loads) nor at the turn's
//!   start (a cold CLI's own start needs the cores).
//! - After a crash, a cut-short turn's files are committed as that turn when recovery closes it
//!   ([`commit_recovered`]), and the git locks a commit cut short left are cleared at the
//!   server's start ([`at_start`]): baton is the only writer of its branches and worktrees.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::state::Server;
use crate::error::BatonError;
use crate::git::{self, CommitInfo, Located, RepoState, Worktree};
use crate::protocol::views::{DiffView, MergeView, RemovedView, RevertView};
use crate::store::{Entry, Record, TerminalRow};
use crate::words::CheckoutMode;

fn git_err(e: git::GitError) -> BatonError {
    BatonError::bad_input(e.to_string())
}

/// Where a terminal's worktree goes.
pub fn worktree_home(srv: &Server, name: &str, tid: &str) -> PathBuf {
    let base = srv
        .config
        .git
        .worktrees
        .as_ref()
        .map(PathBuf::from)
        .unwrap_or_else(|| srv.data_root().join("worktrees"));
    // The end of a v7 id is its random part.
    let hex: String = tid.chars().filter(char::is_ascii_hexdigit).collect();
    base.join(format!("{name}-{}", &hex[hex.len().saturating_sub(8)..]))
}

/// `base/rel`, without the trailing slash `join("")` would add.
pub(super) fn under(base: &Path, rel: &Path) -> PathBuf {
    if rel.as_os_str().is_empty() {
        base.to_path_buf()
    } else {
        base.join(rel)
    }
}

/// The checkout a new terminal gets: (mode, run dir, worktree).
pub fn open(
    srv: &Server,
    name: &str,
    tid: &str,
    source: &Path,
    in_place: bool,
) -> Result<(CheckoutMode, PathBuf, Option<Worktree>), BatonError> {
    if in_place {
        return Ok((CheckoutMode::InPlace, source.to_path_buf(), None));
    }
    match git::inspect(source).map_err(git_err)? {
        RepoState::NotRepo => Ok((CheckoutMode::Folder, source.to_path_buf(), None)),
        RepoState::Branch { root, .. } => {
            let into = worktree_home(srv, name, tid);
            if let Some(parent) = into.parent() {
                git::private_dirs(parent).map_err(|e| {
                    BatonError::failed(format!("cannot create {}: {e}", parent.display()))
                })?;
            }
            let wt = git::create_worktree(&root, name, &into).map_err(git_err)?;
            let rel = source.strip_prefix(&root).unwrap_or(Path::new(""));
            Ok((CheckoutMode::Worktree, under(&wt.path, rel), Some(wt)))
        }
        RepoState::NoCommit { root } => Err(BatonError::bad_input(format!(
            "{} is a git repository with no commit yet: commit something first (git commit --allow-empty -m init), or pass --in-place",
            root.display()
        ))),
        RepoState::Detached { root } => Err(BatonError::bad_input(format!(
            "{} has a detached HEAD: check out a branch first (git switch -c work), or pass --in-place",
            root.display()
        ))),
    }
}

/// Brings the terminal's checkout up to date before a turn: adopts a folder that became a
/// repository, follows a moved worktree, recreates a deleted one. Returns what it did, for the
/// user; `term` is updated in place.
pub fn follow(srv: &Server, term: &mut TerminalRow) -> Result<Vec<String>, BatonError> {
    let mut notes = Vec::new();
    match term.mode {
        CheckoutMode::InPlace => {}
        CheckoutMode::Folder => adopt_if_repo(srv, term, &mut notes)?,
        CheckoutMode::Worktree => {
            let Some(wt) = term.worktree.clone() else {
                return Ok(notes);
            };
            let moved = match git::locate(&wt) {
                Located::Here => None,
                Located::Moved(path) => {
                    Some((Worktree { path, ..wt.clone() }, "the worktree was moved"))
                }
                Located::Gone => {
                    let again = git::recreate(&wt, &wt.path).map_err(git_err)?;
                    notes.push(format!(
                        "the worktree {} was deleted: recreated it from branch {} (no work lost: every turn was committed)",
                        wt.path.display(),
                        wt.branch
                    ));
                    Some((again, "the worktree was recreated"))
                }
            };
            if let Some((wt, reason)) = moved {
                notes.extend(follow_worktree(srv, term, wt, reason)?);
            }
        }
    }
    Ok(notes)
}

fn adopt_if_repo(
    srv: &Server,
    term: &mut TerminalRow,
    notes: &mut Vec<String>,
) -> Result<(), BatonError> {
    let source = PathBuf::from(&term.source);
    let Ok(RepoState::Branch { .. }) = git::inspect(&source) else {
        return Ok(());
    };
    let into = worktree_home(srv, &term.name, &term.id);
    if let Some(parent) = into.parent() {
        let _ = git::private_dirs(parent);
    }
    match git::adopt_folder(&source, &term.name, &into) {
        Ok(adopted) => {
            notes.push(format!(
                "{} became a git repository: the terminal now works in its own worktree {} on branch {}{}",
                source.display(),
                adopted.dir.display(),
                adopted.worktree.branch,
                match adopted.carried.len() {
                    0 => String::new(),
                    n => format!(" ({n} uncommitted file(s) came along; the originals stay in place)"),
                }
            ));
            record_move(
                srv,
                term,
                CheckoutMode::Worktree,
                adopted.dir,
                Some(adopted.worktree),
                "the folder became a git repository",
            )
        }
        Err(e) => {
            notes.push(format!(
                "{} became a git repository, but the move into a worktree waits: {e}",
                source.display()
            ));
            Ok(())
        }
    }
}

fn record_move(
    srv: &Server,
    term: &mut TerminalRow,
    mode: CheckoutMode,
    dir: PathBuf,
    worktree: Option<Worktree>,
    reason: &str,
) -> Result<(), BatonError> {
    // Collecting the components drops a trailing slash, so equal dirs compare equal.
    let dir: PathBuf = dir.components().collect();
    let dir = dir.to_string_lossy().into_owned();
    srv.store.append(
        &term.id,
        Record::CheckoutMoved {
            dir: dir.clone(),
            mode,
            worktree: worktree.clone(),
            reason: reason.to_string(),
        },
    )?;
    term.dir = dir;
    term.mode = mode;
    term.worktree = worktree;
    srv.watch_files(term);
    srv.announce(&term.id);
    Ok(())
}

/// Between turns, when the watcher saw something: follow a moved worktree right away so
/// `show` and the UI name the new place. Adoption and recreation wait for the next send.
pub fn refresh(srv: &Server, term: &mut TerminalRow) -> Result<(), BatonError> {
    let (CheckoutMode::Worktree, Some(wt)) = (term.mode, term.worktree.clone()) else {
        srv.announce(&term.id);
        return Ok(());
    };
    if let Located::Moved(path) = git::locate(&wt) {
        follow_worktree(srv, term, Worktree { path, ..wt }, "the worktree was moved")?;
    }
    Ok(())
}

/// Moves the terminal's runs to `wt` (same subdirectory as before) and records it; says so
/// when the directory changed.
fn follow_worktree(
    srv: &Server,
    term: &mut TerminalRow,
    wt: Worktree,
    reason: &str,
) -> Result<Option<String>, BatonError> {
    let old_root = term
        .worktree
        .as_ref()
        .map(|w| w.path.clone())
        .unwrap_or_default();
    let rel = Path::new(&term.dir)
        .strip_prefix(&old_root)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let dir = under(&wt.path, &rel);
    let note = (dir.to_string_lossy() != term.dir)
        .then(|| format!("{reason}: the terminal follows it to {}", dir.display()));
    record_move(srv, term, CheckoutMode::Worktree, dir, Some(wt), reason)?;
    Ok(note)
}

/// What `commit_turn` needs to know about the turn.
pub struct TurnFacts<'a> {
    pub prompt: &'a str,
    pub conversation: &'a str,
    pub provider: &'a str,
    pub session: &'a str,
    pub number: u32,
}

/// The walk a big checkout's first commit after a server start would make, run while the
/// terminal's first turn runs instead ([`git::prime_tracked`]): the change tracker can then
/// vouch for that turn's commit. It starts at the turn's first event from its CLI (so it does
/// not compete with the CLI's own start for the cores) and the turn's commit waits for it.
pub struct Prime {
    path: PathBuf,
    tracker: Arc<git::Tracker>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Prime {
    /// The prime of `term`'s worktree, the first time a turn runs there since the server
    /// started; None after that (a commit leaves the tracker what it needs), without a
    /// tracker, or without a worktree.
    pub fn for_turn(
        srv: &Server,
        primed: &Mutex<Option<PathBuf>>,
        term: &TerminalRow,
    ) -> Option<Prime> {
        let tracker = srv.changes.get()?.clone();
        let wt = term
            .worktree
            .as_ref()
            .filter(|_| term.mode == CheckoutMode::Worktree)?;
        let mut primed = primed.lock().unwrap_or_else(|p| p.into_inner());
        if primed.as_deref() == Some(wt.path.as_path()) || tracker.knows(&wt.path) {
            return None;
        }
        *primed = Some(wt.path.clone());
        Some(Prime {
            path: wt.path.clone(),
            tracker,
            task: None,
        })
    }

    /// Starts the walk in the background (once).
    pub fn start(&mut self) {
        if self.task.is_some() {
            return;
        }
        let (path, tracker) = (self.path.clone(), self.tracker.clone());
        self.task = Some(tokio::task::spawn_blocking(move || {
            if let Err(e) = git::prime_tracked(&path, &tracker) {
                crate::log_line!(
                    "baton server: the change tracker could not walk {} ahead of its commit: {e}",
                    path.display()
                );
            }
        }));
    }

    /// Waits for the walk, if it started.
    pub async fn done(self) {
        if let Some(task) = self.task {
            let _ = task.await;
        }
    }
}

/// Commits the turn's changes on the terminal's branch. `Ok(None)`: nothing changed, or the
/// terminal has no worktree.
pub async fn commit_turn(
    term: &TerminalRow,
    facts: TurnFacts<'_>,
    tracker: Option<Arc<git::Tracker>>,
) -> Result<Option<String>, BatonError> {
    let Some(wt) = term
        .worktree
        .clone()
        .filter(|_| term.mode == CheckoutMode::Worktree)
    else {
        return Ok(None);
    };
    let message = CommitInfo::for_turn(
        facts.prompt,
        &term.name,
        facts.conversation,
        facts.provider,
        facts.session,
        &facts.number.to_string(),
    )
    .message();
    tokio::task::spawn_blocking(move || match tracker {
        Some(t) => git::auto_commit_tracked(&wt.path, &message, &[], &t),
        None => git::auto_commit(&wt.path, &message, &[]),
    })
    .await
    .map_err(|e| BatonError::failed(format!("the commit task crashed: {e}")))?
    .map_err(|e| BatonError::failed(e.to_string()))
}

/// Clears what a server that died in the middle of a git write left in `term`'s worktree
/// (`git::clear_left_locks`: its branch's and worktree's lock files, the index settled),
/// saying so in the server's log. Run when no write of baton's to it can be running: at the
/// server's start, once the dead server's CLIs are stopped.
pub fn clear_locks(term: &TerminalRow) {
    if let Some(wt) = term.worktree.as_ref() {
        clear_worktree_locks(wt);
    }
}

fn clear_worktree_locks(wt: &Worktree) {
    match git::clear_left_locks(wt) {
        Ok(cleared) => {
            for lock in cleared {
                crate::log_line!(
                    "baton server: removed {} (left by a git write of baton's a crash cut short)",
                    lock.display()
                );
            }
        }
        Err(e) => crate::log_line!(
            "baton server: cannot clear the git locks left in {}: {e}",
            wt.path.display()
        ),
    }
}

/// At the server's start, after the dead server's turns are closed: the lock files a crash
/// left in every terminal's worktree (a removal's too) are cleared, and the data directory's
/// `worktrees/` made private.
pub fn at_start(srv: &Server) {
    for term in srv.store.terminals().unwrap_or_default() {
        clear_locks(&term);
    }
    // A removal's commit may be what a crash cut short: its finish commits there next.
    for removal in srv.store.pending_removals().unwrap_or_default() {
        if let Some(wt) = &removal.worktree {
            clear_worktree_locks(wt);
        }
    }
    if srv.config.git.worktrees.is_none() {
        make_private(&srv.data_root().join("worktrees"));
    }
}

/// Makes `dir` (the data directory's `worktrees/`) and each folder in it 0700 like the data
/// directory's other folders: worktrees made before baton made them private are 0755. A link,
/// a file or another user's folder is left alone.
fn make_private(dir: &Path) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let me = nix::unistd::geteuid().as_raw();
    let tighten = |p: &Path| match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() && m.uid() == me && m.mode() & 0o077 != 0 => {
            let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o700));
        }
        _ => {}
    };
    tighten(dir);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        tighten(&entry.path());
    }
}

/// Commits what unfinished turn `turn_id` of terminal `tid` changed, as that turn, when a
/// server's start closes it (`server::recover`), before anything else runs in its worktree:
/// the locks a commit cut short left are cleared first, and a commit of the turn's that moved
/// the branch before the crash is found by its `Baton-Turn` trailer. Journals
/// `turn_committed`. A git failure is logged: the files stay for the next turn's commit.
pub fn commit_recovered(srv: &Server, tid: &str, turn_id: &str) -> Result<(), BatonError> {
    let Some(term) = srv.store.terminal(tid)? else {
        return Ok(());
    };
    let Some(wt) = term
        .worktree
        .clone()
        .filter(|_| term.mode == CheckoutMode::Worktree)
    else {
        return Ok(());
    };
    let entries = srv.store.entries(tid)?;
    let Some((number, message)) = recovered_message(&term, &entries, turn_id) else {
        return Ok(());
    };
    clear_locks(&term);
    let made = git::auto_commit(&wt.path, &message, &[]).and_then(|made| match made {
        Some(c) => Ok(Some(c)),
        None => git::commit_for_trailer(&wt, "Baton-Turn", &number.to_string()),
    });
    match made {
        Ok(Some(commit)) => {
            let committed = Record::TurnCommitted {
                turn_id: turn_id.to_string(),
                commit,
            };
            srv.store.append(tid, committed)?;
        }
        Ok(None) => {}
        Err(e) => crate::log_line!(
            "baton server: cannot commit what turn {number} of {} changed: {e} (the next turn's commit takes it)",
            term.name
        ),
    }
    Ok(())
}

/// The automatic commit message of turn `turn_id` as its end would have made it, from its
/// start in `entries`, with its number; None when it has no start, or has a commit already.
fn recovered_message(
    term: &TerminalRow,
    entries: &[Entry],
    turn_id: &str,
) -> Option<(u32, String)> {
    let committed = entries
        .iter()
        .any(|e| matches!(&e.record, Record::TurnCommitted { turn_id: t, .. } if t == turn_id));
    let (number, conversation, provider, prompt) =
        entries.iter().find_map(|e| match &e.record {
            Record::TurnStarted {
                turn_id: t,
                number,
                conversation_id,
                provider,
                prompt,
                ..
            } if t == turn_id && !committed => Some((number, conversation_id, provider, prompt)),
            _ => None,
        })?;
    // The session the turn ran in, as the journal has it (recovery journals one the stream
    // named first).
    let session = entries.iter().rev().find_map(|e| match &e.record {
        Record::SessionStarted {
            conversation_id,
            session_id,
            ..
        } if conversation_id == conversation => Some(session_id.as_str()),
        _ => None,
    });
    let info = CommitInfo::for_turn(
        prompt,
        &term.name,
        conversation,
        provider.as_str(),
        session.unwrap_or("none"),
        &number.to_string(),
    );
    Some((*number, info.message()))
}

fn worktree_of(term: &TerminalRow) -> Result<Worktree, BatonError> {
    match (&term.mode, &term.worktree) {
        (CheckoutMode::Worktree, Some(wt)) => Ok(wt.clone()),
        _ => Err(BatonError::bad_input(format!(
            "{} has no worktree of its own (it runs {} in {}): there is no branch to review or land",
            term.name,
            if term.mode == CheckoutMode::InPlace { "in place" } else { "in a plain folder" },
            term.dir
        ))),
    }
}

/// `baton diff`.
pub fn diff(srv: &Server, name: &str, patch: bool) -> Result<DiffView, BatonError> {
    let term = srv.terminal(name)?;
    let wt = worktree_of(&term)?;
    let found = git::diff(&wt, patch).map_err(git_err)?;
    Ok(DiffView {
        name: name.to_string(),
        branch: wt.branch,
        base_commit: wt.base_commit,
        since: found.since,
        merged: found.merged,
        diff: found.text,
    })
}

/// `baton merge`: squash the terminal's branch into the branch it was created from.
pub fn merge(srv: &Server, name: &str) -> Result<MergeView, BatonError> {
    let term = srv.terminal(name)?;
    let wt = worktree_of(&term)?;
    let subjects = git::subjects_since(&wt).map_err(git_err)?;
    let message = git::squash_message(&wt.branch, &subjects);
    let commit = git::merge_squash(&wt, &message).map_err(git_err)?;
    // Clients showing its diff read it again: what was merged is no longer left.
    srv.announce(&term.id);
    Ok(MergeView {
        name: name.to_string(),
        branch: wt.branch,
        into: wt.base_branch,
        commit,
    })
}

/// `baton revert NAME TURN`: revert one turn's automatic commit on the terminal's branch.
pub fn revert(
    srv: &Server,
    name: &str,
    turn: u32,
    running: bool,
) -> Result<RevertView, BatonError> {
    let term = srv.terminal(name)?;
    let wt = worktree_of(&term)?;
    if running {
        return Err(BatonError::bad_input(format!(
            "{name} is running a turn: revert once it ended (or `baton interrupt {name}`)"
        )));
    }
    let Some(commit) =
        git::commit_for_trailer(&wt, "Baton-Turn", &turn.to_string()).map_err(git_err)?
    else {
        return Err(BatonError::bad_input(format!(
            "turn {turn} of {name} has no automatic commit (it changed no file; see `baton log {name}`)"
        )));
    };
    let revert = git::revert(&wt, &commit).map_err(git_err)?;
    Ok(RevertView {
        name: name.to_string(),
        turn,
        reverted: commit,
        commit: revert,
    })
}

/// `baton rm`: commit leftovers, remove the worktree (the branch stays unless asked), forget the
/// terminal. Its journal stays on disk.
/// Removes what a removal of terminal `name` takes away on disk (its worktree, and its branch
/// when asked), committing work left in it first. Safe to run again after a crash: a worktree
/// already gone and a branch already deleted are skipped.
pub fn remove(
    name: &str,
    mode: CheckoutMode,
    worktree: Option<&Worktree>,
    delete_branch: bool,
    force: bool,
) -> Result<RemovedView, BatonError> {
    let mut out = RemovedView {
        name: name.to_string(),
        removed: true,
        branch: None,
        committed: None,
        worktree_removed: None,
        branch_deleted: None,
    };
    if let (CheckoutMode::Worktree, Some(wt)) = (mode, worktree) {
        let message = format!("baton: uncommitted work left in {name} when it was removed");
        let removed = git::remove(wt, &message, &[], delete_branch, force).map_err(git_err)?;
        out.branch = Some(wt.branch.clone());
        out.committed = Some(removed.committed);
        out.worktree_removed = Some(removed.path.map(|p| p.to_string_lossy().into_owned()));
        out.branch_deleted = Some(removed.branch_deleted);
    }
    Ok(out)
}
