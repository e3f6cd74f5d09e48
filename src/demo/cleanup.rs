//! Ending a demo: what it made in repositories outside its scratch folder (the worktrees and
//! `baton/*` branches of terminals opened there on a real repository) is taken away, then its
//! server stops and its folder is deleted. Nothing it did not make is touched: only worktrees
//! under the demo's own folder, and only their branches (each one the demo created, since
//! baton refuses a terminal whose branch already exists).

use std::path::{Path, PathBuf};

use crate::client::{commands, out, Client};
use crate::error::BatonError;
use crate::git::{self, Worktree};
use crate::protocol::views::{CheckoutView, TerminalView};
use crate::protocol::Request;
use crate::words::CheckoutMode;

/// The file that marks a folder as a demo's, so `baton demo --stop DIR` deletes nothing else.
pub const MARKER: &str = ".baton-demo";

/// The worktrees of `terminals` that the demo rooted at `root` made: a worktree checkout
/// whose folder is under `root`. Pure.
pub fn made_by_demo<'a>(
    root: &Path,
    checkouts: impl IntoIterator<Item = &'a CheckoutView>,
) -> Vec<Worktree> {
    let mut out = Vec::new();
    for c in checkouts {
        let (CheckoutMode::Worktree, Some(path), Some(branch)) = (c.mode, &c.worktree, &c.branch)
        else {
            continue;
        };
        let path = PathBuf::from(path);
        if !path.starts_with(root) {
            continue;
        }
        out.push(Worktree {
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            repo: PathBuf::from(&c.source),
            branch: branch.clone(),
            base_commit: c.base_commit.clone().unwrap_or_default(),
            base_branch: c.base_branch.clone().unwrap_or_default(),
            path,
        });
    }
    out
}

/// Ends the demo rooted at `root`: its worktrees and branches in outside repositories, its
/// server, its folder. Each step is tried even when one before it failed; the first failure
/// is returned.
pub fn finish(client: &Client, root: &Path) -> Result<(), BatonError> {
    let made = match client.connect_existing() {
        Some(_) => {
            let all = client.call(&Request::Ls {
                all: true,
                table: false,
            })?;
            let all = Vec::<TerminalView>::try_from(all)?;
            made_by_demo(root, all.iter().map(|t| &t.checkout))
        }
        None => Vec::new(),
    };
    // Stopped first: its turns are interrupted and nothing writes in the worktrees any more.
    let _ = commands::server_stop(client);
    let mut first_error = None;
    for wt in made {
        let repo = git::inspect(&wt.repo).ok().and_then(|s| match s {
            git::RepoState::Branch { root, .. } => Some(root),
            _ => None,
        });
        let wt = Worktree {
            repo: repo.unwrap_or_else(|| wt.repo.clone()),
            ..wt
        };
        let message = "baton demo: uncommitted work left when the demo ended";
        match git::remove(&wt, message, &[], true, true) {
            Ok(_) => out::line(&format!(
                "baton demo: removed its worktree {} and branch {} from {}",
                wt.path.display(),
                wt.branch,
                wt.repo.display()
            )),
            Err(e) => {
                let e = BatonError::failed(format!(
                    "baton demo: cannot remove its worktree {}: {e}",
                    wt.path.display()
                ));
                out::side(&e.to_string());
                first_error.get_or_insert(e);
            }
        }
    }
    if let Err(e) = remove_folder(root) {
        first_error.get_or_insert(BatonError::failed(format!(
            "baton demo: cannot delete {}: {e}",
            root.display()
        )));
    }
    first_error.map_or(Ok(()), Err)
}

/// Deletes the demo's folder. A simulated CLI the stopped server interrupted may still be
/// writing its session file into it for a moment (it is not the server's child to wait for
/// any more): a folder that refills while it is deleted is deleted again, for a bounded time.
fn remove_folder(root: &Path) -> std::io::Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match std::fs::remove_dir_all(root) {
            Err(e)
                if e.kind() == std::io::ErrorKind::DirectoryNotEmpty
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(mode: CheckoutMode, worktree: Option<&str>) -> CheckoutView {
        CheckoutView {
            mode,
            source: "/src/repo".into(),
            branch: worktree.map(|_| "baton/t".into()),
            base_branch: Some("main".into()),
            base_commit: Some("abc".into()),
            worktree: worktree.map(Into::into),
        }
    }

    #[test]
    fn only_worktrees_under_the_demo_folder_are_the_demos() {
        let root = Path::new("/tmp/baton-demo-1");
        let rows = [
            (
                view(
                    CheckoutMode::Worktree,
                    Some("/tmp/baton-demo-1/data/worktrees/t-1"),
                ),
                true,
            ),
            (
                view(CheckoutMode::Worktree, Some("/home/u/worktrees/t-1")),
                false,
            ),
            (
                view(
                    CheckoutMode::Worktree,
                    Some("/tmp/baton-demo-10/data/worktrees/t"),
                ),
                false,
            ),
            (view(CheckoutMode::InPlace, None), false),
            (view(CheckoutMode::Folder, None), false),
        ];
        for (t, want) in rows {
            let got = made_by_demo(root, [&t]);
            assert_eq!(got.len() == 1, want, "{t:?}");
            if want {
                assert_eq!(got[0].branch, "baton/t");
                assert_eq!(got[0].name, "t-1");
            }
        }
    }
}
