//! `baton doctor [--fix] [--json]`: checks a data directory and, with `--fix`, repairs what can
//! be repaired without losing anything, then says what it found and did (see `report`).
//!
//! Where it runs (a decision): in the client process, never through the server, and it never
//! starts one. Starting a server would change what doctor is there to look at: it recovers
//! crashed turns, finishes cut-short removals and makes a new socket (hiding a stale one). So
//! everything is read directly: the journals, the index (read-only, see `store::check`), git.
//! Without `--fix` nothing in the data directory, the repositories or the worktrees changes.
//! With `--fix`, permission, socket, worktree and branch fixes are done directly; the index is
//! rebuilt by the running server when there is one (`Request::Reindex`), else by doctor itself,
//! which then holds `server.lock` for the whole of its fixes so no server starts meanwhile.
//!
//! Checks, in order: config, permissions (`perms`), the server's lock and socket (`socket`),
//! the index, the journals (`journals`), worktrees, removals a crash cut short and the branches
//! removed terminals left (`worktrees`), the CLIs (`clis`); then disk use (`disk`). Exit 0 when no fault is left
//! (notes allowed), 1 otherwise.

mod clis;
mod disk;
mod journals;
mod perms;
pub mod report;
mod socket;
mod worktrees;

use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use crate::client::{self, Client};
use crate::config::Config;
use crate::error::BatonError;
use crate::git::{self, Worktree};
use crate::paths::{open_private_append, DataDir, EnvDirs};
use crate::protocol::{data_as, views::ReindexView, Reply, Request};
use crate::store::check::{Expected, IndexState};
use crate::store::Store;
use report::{Check, DoctorView, Finding, Status};

/// A repair `--fix` may carry out for a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fix {
    /// Set the mode of the entry (`dev`, `ino`, as looked at) to `want`.
    Mode {
        path: PathBuf,
        want: u32,
        dir: bool,
        dev: u64,
        ino: u64,
    },
    RemoveSocket,
    Reindex,
    Worktree(Worktree),
    /// Remove the lock files a cut-short commit left in this worktree and its branch.
    ClearLocks(Worktree),
    DeleteBranch(Worktree),
}

/// Why a fix could not be carried out (its message goes into the finding).
#[derive(Debug, thiserror::Error)]
enum FixError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Git(#[from] crate::git::GitError),
    #[error("{0}")]
    Store(#[from] crate::store::StoreError),
    #[error("{0}")]
    Server(#[from] BatonError),
    /// Not done, on purpose: why.
    #[error("{0}")]
    Declined(&'static str),
}

/// A finding and the repair that would settle it.
pub(crate) struct Found {
    finding: Finding,
    fix: Option<Fix>,
}

impl Found {
    fn new(
        check: Check,
        status: Status,
        subject: impl Into<String>,
        detail: impl Into<String>,
    ) -> Found {
        Found {
            finding: Finding {
                check,
                status,
                subject: subject.into(),
                detail: detail.into(),
            },
            fix: None,
        }
    }

    /// The same finding, settled by `fix` under `--fix`.
    fn fixed_by(self, fix: Option<Fix>) -> Found {
        Found { fix, ..self }
    }
}

/// `baton doctor`: prints what it found (and did), returns the exit code.
pub fn run(client: &Client, fix: bool, json: bool) -> Result<i32, BatonError> {
    let view = examine(client, fix);
    if json {
        client::commands::print_json(&view);
    } else {
        client::out::print(&report::text(&view, fix));
    }
    Ok(view.exit_code())
}

fn examine(client: &Client, fix: bool) -> DoctorView {
    let data = DataDir::new(resolved_root(&client.data.root));
    let data_dir = data.root.display().to_string();
    let mut found = Vec::new();
    let config = match Config::load(EnvDirs::from_env().config_file().as_deref()) {
        Ok(c) => c,
        Err(e) => {
            found.push(Found::new(
                Check::Config,
                Status::Fault,
                "config.toml",
                format!("{e} (the checks below use the defaults)"),
            ));
            Config::default()
        }
    };
    if unused(&data.root) {
        found.push(Found::new(
            Check::Permissions,
            Status::Ok,
            data_dir.clone(),
            "no data yet: nothing to check (baton makes it private at its first use)",
        ));
        let (cli_found, clis) = clis::check(&config, &[]);
        found.extend(cli_found);
        return finish(data_dir, found, Vec::new(), clis);
    }
    if data.root != client.data.root {
        found.push(Found::new(
            Check::Permissions,
            Status::Note,
            client.data.root.display().to_string(),
            format!("a link to {data_dir}: checked there"),
        ));
    }
    let live = data.server_locked();
    let server = socket::check(&data, live);
    let stale = server.iter().any(|f| f.fix == Some(Fix::RemoveSocket));
    // A server that holds the lock and does not answer would not answer a reindex either.
    let hung = live && server.iter().any(|f| f.finding.status == Status::Fault);
    found.extend(perms::check(&data.root, stale));
    found.extend(server);
    let expected = Expected::build(&data);
    let (terminals, removals) = match &expected {
        Ok(x) => (
            x.terminals().unwrap_or_default(),
            x.pending_removals().unwrap_or_default(),
        ),
        Err(_) => (Vec::new(), Vec::new()),
    };
    found.push(index_finding(&data, &expected, live));
    let scans = journals::scan(&data);
    found.extend(journals::check(&scans));
    found.extend(worktrees::check(&terminals, live));
    found.extend(worktrees::pending(&removals));
    found.extend(worktrees::branches(&scans, &terminals));
    let (cli_found, clis) = clis::check(&config, &terminals);
    found.extend(cli_found);
    if fix {
        repair(client, &data, hung, &mut found);
    }
    let disk = disk::measure(&data, &terminals);
    finish(data_dir, found, disk, clis)
}

fn finish(
    data_dir: String,
    found: Vec<Found>,
    disk: Vec<report::DiskUse>,
    clis: Vec<report::CliView>,
) -> DoctorView {
    let checks = found.into_iter().map(|f| f.finding).collect();
    DoctorView::new(data_dir, checks, disk, clis)
}

/// True when the data directory does not exist or holds nothing (made by someone else, never
/// used by baton yet).
fn unused(root: &Path) -> bool {
    match std::fs::read_dir(root) {
        Ok(mut entries) => entries.next().is_none(),
        Err(_) => std::fs::symlink_metadata(root).is_err(),
    }
}

/// The data directory itself, through a link if it is one (its own entries are never followed).
fn resolved_root(root: &Path) -> PathBuf {
    match std::fs::symlink_metadata(root) {
        Ok(m) if m.file_type().is_symlink() => root.canonicalize().unwrap_or(root.to_path_buf()),
        _ => root.to_path_buf(),
    }
}

fn index_finding(data: &DataDir, expected: &crate::store::Result<Expected>, live: bool) -> Found {
    let subject = data.index_db().display().to_string();
    let x = match expected {
        Ok(x) => x,
        Err(e) => {
            return Found::new(
                Check::Index,
                Status::Fault,
                subject,
                format!("cannot rebuild what the journals say to compare: {e}"),
            )
        }
    };
    let (status, detail) = match x.compare(data, live) {
        IndexState::Current => (Status::Ok, "it holds what the journals say".to_string()),
        IndexState::Missing => (Status::Fault, "missing (--fix rebuilds it from the journals)".into()),
        IndexState::Unreadable { why } => (
            Status::Fault,
            format!("unreadable: {why} (--fix moves it aside, kept, and rebuilds it from the journals)"),
        ),
        IndexState::OtherVersion { found } => (
            Status::Fault,
            format!("written by another version of baton (schema {found}; --fix rebuilds it from the journals)"),
        ),
        IndexState::Behind { detail, terminals } => (
            Status::Fault,
            format!(
                "out of date with the journals: {detail}{} (--fix rebuilds it from them)",
                named(x, &terminals)
            ),
        ),
    };
    let fix = (status == Status::Fault).then_some(Fix::Reindex);
    Found::new(Check::Index, status, subject, detail).fixed_by(fix)
}

/// `; terminals that differ: api, notes` for these ids (by their names where the journals
/// still list them).
fn named(x: &Expected, ids: &[String]) -> String {
    if ids.is_empty() {
        return String::new();
    }
    let rows = x.terminals().unwrap_or_default();
    let names: Vec<&str> = ids
        .iter()
        .map(|id| {
            rows.iter()
                .find(|t| &t.id == id)
                .map_or(id.as_str(), |t| t.name.as_str())
        })
        .collect();
    format!("; terminals that differ: {}", names.join(", "))
}

/// How the fixes reach the data directory: through the running server, or under the lock
/// doctor holds itself.
enum Hold {
    /// A server runs; `answers`: it answered the server check.
    Server { answers: bool },
    /// Held until the fixes are done: no server can start meanwhile.
    Lock { _held: Flock<std::fs::File> },
    /// Neither: the lock file cannot be opened.
    Nothing(std::io::Error),
}

fn take_hold(data: &DataDir, hung: bool) -> Hold {
    if data.server_locked() {
        return Hold::Server { answers: !hung };
    }
    let file = match open_private_append(&data.lock_file()) {
        Ok(f) => f,
        Err(e) => return Hold::Nothing(e),
    };
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => Hold::Lock { _held: lock },
        // A server started just now.
        Err(_) => Hold::Server { answers: true },
    }
}

/// Carries out every fix the findings call for, in their order, updating each finding.
fn repair(client: &Client, data: &DataDir, hung: bool, found: &mut [Found]) {
    if found.iter().all(|f| f.fix.is_none()) {
        return;
    }
    let hold = take_hold(data, hung);
    for f in found.iter_mut() {
        let Some(fix) = f.fix.take() else {
            continue;
        };
        let done = apply(client, data, &hold, &fix);
        match done {
            Ok(what) => {
                f.finding.status = Status::Fixed;
                f.finding.detail = what;
            }
            Err(why) => {
                f.finding.status = match f.finding.status {
                    Status::Note => Status::Note,
                    _ => Status::Fault,
                };
                f.finding.detail = format!("{} (the fix failed: {why})", f.finding.detail);
            }
        }
    }
    drop(hold);
}

fn apply(client: &Client, data: &DataDir, hold: &Hold, fix: &Fix) -> Result<String, FixError> {
    match fix {
        Fix::Mode {
            path,
            want,
            dir,
            dev,
            ino,
        } => {
            perms::tighten(path, *want, *dir, *dev, *ino)?;
            Ok(format!("mode set to {want:04o}"))
        }
        Fix::RemoveSocket => match hold {
            Hold::Lock { .. } => {
                socket::remove_stale(&data.socket())?;
                Ok("the stale socket was removed".to_string())
            }
            Hold::Server { .. } => Err(FixError::Declined(
                "a server started meanwhile: the socket is its own now",
            )),
            Hold::Nothing(e) => Err(lock_unopened(data, e)),
        },
        Fix::Reindex => reindex(client, data, hold),
        Fix::Worktree(wt) => {
            let again = git::recreate(wt, &wt.path)?;
            Ok(format!(
                "recreated {} from branch {}",
                again.path.display(),
                again.branch
            ))
        }
        Fix::ClearLocks(wt) => match hold {
            Hold::Lock { .. } => {
                let cleared = git::clear_left_locks(wt)?;
                Ok(format!(
                    "removed {}: its commits work again",
                    report::plural(cleared.len(), "lock file")
                ))
            }
            Hold::Server { .. } => Err(FixError::Declined(
                "a server started meanwhile: its start clears them",
            )),
            Hold::Nothing(e) => Err(lock_unopened(data, e)),
        },
        Fix::DeleteBranch(wt) => {
            if !git::delete_contained_branch(&wt.repo, &wt.branch, &wt.base_branch)? {
                return Err(FixError::Declined("it gained commits meanwhile: kept"));
            }
            Ok(format!(
                "deleted: left by a removed terminal, every commit of it is in {}",
                wt.base_branch
            ))
        }
    }
}

fn lock_unopened(data: &DataDir, e: &std::io::Error) -> FixError {
    FixError::Io(std::io::Error::new(
        e.kind(),
        format!("cannot open {}: {e}", data.lock_file().display()),
    ))
}

fn reindex(client: &Client, data: &DataDir, hold: &Hold) -> Result<String, FixError> {
    let said = |terminals: usize, skipped: usize| {
        format!(
            "rebuilt from the journals: {}, {} skipped",
            report::plural(terminals, "terminal"),
            report::plural(skipped, "line")
        )
    };
    match hold {
        Hold::Lock { .. } => {
            let report = Store::open(data.clone())?.reindex()?;
            Ok(said(report.terminals, report.skipped.len()))
        }
        Hold::Server { answers: false } => Err(FixError::Declined(
            "the server holds server.lock but does not answer (see the server check)",
        )),
        Hold::Server { answers: true } => {
            let stream = client.connect_existing().ok_or(FixError::Declined(
                "the server went away; run `baton reindex`",
            ))?;
            match client::send_request(stream, &Request::Reindex, &mut |_| {})? {
                Reply::Ok { data } => {
                    let view: ReindexView = data_as(data)?;
                    Ok(format!(
                        "{} (by the running server)",
                        said(view.terminals, view.skipped.len())
                    ))
                }
                Reply::Error { error } => Err(error.into()),
                Reply::Event { .. } | Reply::Watch { .. } | Reply::Shell { .. } => {
                    Err(FixError::Declined("the server answered with an event"))
                }
            }
        }
        Hold::Nothing(e) => Err(lock_unopened(data, e)),
    }
}
