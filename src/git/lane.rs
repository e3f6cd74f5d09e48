//! The integration lane's git side (`baton integrate`, issue 44): merges of terminals'
//! branches computed in memory (a clean merge is written as a commit object no ref points to),
//! and the lane's own worktree per repository: a linked worktree on a detached HEAD, no branch
//! of its own, that no terminal works in, where the check command runs. Nothing here moves a
//! branch or touches a terminal's checkout. See ARCHITECTURE.md, "The integration lane".

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::build::CheckoutBuilder;
use git2::{BranchType, Oid, Repository, WorktreeAddOptions, WorktreePruneOptions};

use super::error::GitContext;
use super::review::{conflict_paths, merge_ancestor, merged_index, merged_tree, tree_of, Merged};
use super::{main_repo_path, open, private_dirs, same_path, signature, GitError};

/// A repository opened for one lane run.
pub struct Integration {
    repo: Repository,
    /// What each tip changed from an ancestor, by (ancestor, tip): a run's pairs share them.
    touched: RefCell<HashMap<(Oid, Oid), Arc<Touched>>>,
}

/// The paths a commit changed from an ancestor, and every folder above them.
#[derive(Debug, Default)]
struct Touched {
    paths: HashSet<String>,
    dirs: HashSet<String>,
}

impl Touched {
    fn of(paths: impl IntoIterator<Item = String>) -> Touched {
        let mut t = Touched::default();
        for p in paths {
            let mut at = p.as_str();
            while let Some((dir, _)) = at.rsplit_once('/') {
                if !t.dirs.insert(dir.to_string()) {
                    break;
                }
                at = dir;
            }
            t.paths.insert(p);
        }
        t
    }

    /// Whether no path of one is a path, or a folder of a path, of the other: two such sides
    /// never conflict (what a merge could fight over, a path or a file against a folder, is
    /// always a path both touch or a path one touches above the other's).
    fn disjoint(&self, other: &Touched) -> bool {
        let apart = |a: &Touched, b: &Touched| {
            a.paths
                .iter()
                .all(|p| !b.paths.contains(p) && !b.dirs.contains(p))
        };
        apart(self, other) && apart(other, self)
    }
}

/// A merge of one commit into another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// It merged: the merge as a commit (its parents the two), or `ours` itself when
    /// `theirs` brought nothing new.
    Clean(String),
    /// It conflicts on these paths.
    Conflicts(Vec<String>),
}

impl Integration {
    /// The repository whose main checkout (or git dir) is `repo`.
    pub fn open(repo: &Path) -> Result<Integration, GitError> {
        Ok(Integration {
            repo: open(repo)?,
            touched: RefCell::default(),
        })
    }

    /// The commit at the tip of local branch `branch` (None: there is no such branch).
    pub fn tip(&self, branch: &str) -> Option<String> {
        let b = self.repo.find_branch(branch, BranchType::Local).ok()?;
        Some(b.get().target()?.to_string())
    }

    /// Merges `theirs` into `ours` (as `baton merge` would: the ancestor skips what a squash
    /// merge already landed). A clean merge that changes `ours` is written as a commit object
    /// whose parents are both, so the next merge finds their common history.
    pub fn merge(&self, ours: &str, theirs: &str) -> Result<Step, GitError> {
        let (o, t) = (oid(ours)?, oid(theirs)?);
        if o == t || self.repo.graph_descendant_of(o, t).unwrap_or(false) {
            return Ok(Step::Clean(ours.to_string()));
        }
        let tree = match merged_tree(&self.repo, o, t)? {
            Merged::Clean(tree) => tree,
            Merged::Conflicts(files) => return Ok(Step::Conflicts(files)),
        };
        let read = |id: Oid| {
            self.repo
                .find_commit(id)
                .ctx(|| format!("cannot read commit {id}"))
        };
        let (oc, tc) = (read(o)?, read(t)?);
        let tree = self
            .repo
            .find_tree(tree)
            .ctx(|| "cannot read the merged tree".to_string())?;
        let sig = signature(&self.repo)?;
        let made = self
            .repo
            .commit(
                None,
                &sig,
                &sig,
                "baton integration lane",
                &tree,
                &[&oc, &tc],
            )
            .ctx(|| format!("cannot write the merge of {theirs} into {ours}"))?;
        Ok(Step::Clean(made.to_string()))
    }

    /// The paths on which `a` and `b` conflict (empty: they merge cleanly). Writes nothing.
    /// The merge itself is skipped when `b` already holds `a`, or when what each changed from
    /// their ancestor is apart from the other's ([`Touched::disjoint`]): neither can conflict.
    pub fn conflicts(&self, a: &str, b: &str) -> Result<Vec<String>, GitError> {
        let (x, y) = (oid(a)?, oid(b)?);
        if x == y || self.repo.graph_descendant_of(y, x).unwrap_or(false) {
            return Ok(Vec::new());
        }
        let ancestor = merge_ancestor(&self.repo, x, y)?;
        if self
            .touched(ancestor, x)?
            .disjoint(&*self.touched(ancestor, y)?)
        {
            return Ok(Vec::new());
        }
        let index = merged_index(&self.repo, ancestor, x, y)?;
        Ok(match index.has_conflicts() {
            true => conflict_paths(&index),
            false => Vec::new(),
        })
    }

    /// What `tip` changed from `ancestor` (kept for the run's other pairs).
    fn touched(&self, ancestor: Oid, tip: Oid) -> Result<Arc<Touched>, GitError> {
        if let Some(t) = self.touched.borrow().get(&(ancestor, tip)) {
            return Ok(t.clone());
        }
        let (from, to) = (tree_of(&self.repo, ancestor)?, tree_of(&self.repo, tip)?);
        let diff = self
            .repo
            .diff_tree_to_tree(Some(&from), Some(&to), None)
            .ctx(|| format!("cannot compare {tip} with {ancestor}"))?;
        let paths = diff.deltas().flat_map(|d| {
            [d.old_file().path(), d.new_file().path()]
                .into_iter()
                .flatten()
                .map(|p| p.to_string_lossy().into_owned())
        });
        let t = Arc::new(Touched::of(paths));
        self.touched.borrow_mut().insert((ancestor, tip), t.clone());
        Ok(t)
    }
}

/// The main checkout (a bare repository's git dir) of the repository holding `dir`, which may
/// be any of its linked worktrees.
pub fn main_checkout(dir: &Path) -> Result<PathBuf, GitError> {
    let repo = Repository::discover(dir)
        .ctx(|| format!("cannot open the repository at {}", dir.display()))?;
    Ok(main_repo_path(&repo))
}

fn oid(id: &str) -> Result<Oid, GitError> {
    Oid::from_str(id).ctx(|| format!("bad commit id {id}"))
}

/// Checks `commit` out in the lane's worktree at `into` (made the first time, and again when
/// it was deleted or is not a worktree of `repo`), on a detached HEAD: every file as the
/// commit has it, untracked files removed, ignored ones (build output) kept for the next run.
pub fn check_out_lane(repo: &Path, into: &Path, commit: &str) -> Result<(), GitError> {
    let main = open(repo)?;
    let id = oid(commit)?;
    if !is_lane_of(&main, into) {
        remove_lane(repo, into)?;
        add_lane(&main, into, id)?;
    }
    let lane = open(into)?;
    let target = lane
        .find_commit(id)
        .ctx(|| format!("cannot read commit {commit}"))?;
    let mut co = CheckoutBuilder::new();
    co.force().remove_untracked(true);
    lane.checkout_tree(target.as_object(), Some(&mut co))
        .ctx(|| format!("cannot check {commit} out in {}", into.display()))?;
    lane.set_head_detached(id)
        .ctx(|| format!("cannot point {} at {commit}", into.display()))
}

/// Whether `into` is a linked worktree of `main`.
fn is_lane_of(main: &Repository, into: &Path) -> bool {
    let Ok(lane) = Repository::open(into) else {
        return false;
    };
    lane.is_worktree() && same_path(lane.commondir(), main.commondir())
}

/// Git's name for the lane's worktree: `baton-lane-<its folder's name>`.
fn lane_name(into: &Path) -> String {
    let leaf = into
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let safe: String = leaf
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("baton-lane-{safe}")
}

/// A new linked worktree at `into` on a detached HEAD at `at`. libgit2 checks a worktree out
/// on a branch, so a short-lived one is made for it and deleted once HEAD is detached.
fn add_lane(main: &Repository, into: &Path, at: Oid) -> Result<(), GitError> {
    if let Some(parent) = into.parent() {
        private_dirs(parent).ctx(|| format!("cannot create {}", parent.display()))?;
    }
    let name = lane_name(into);
    let commit = main
        .find_commit(at)
        .ctx(|| format!("cannot read commit {at}"))?;
    let temp = format!("baton-lane/{name}");
    let mut branch = main
        .branch(&temp, &commit, true)
        .ctx(|| format!("cannot create branch {temp}"))?;
    let added = {
        let mut opts = WorktreeAddOptions::new();
        opts.reference(Some(branch.get()));
        main.worktree(&name, into, Some(&opts))
            .ctx(|| format!("cannot create the lane's worktree at {}", into.display()))
            .and_then(|_| open(into))
            .and_then(|lane| {
                lane.set_head_detached(at)
                    .ctx(|| format!("cannot detach {}", into.display()))
            })
    };
    let deleted = branch
        .delete()
        .ctx(|| format!("cannot delete branch {temp}"));
    added?;
    deleted?;
    let _ = fs::set_permissions(into, fs::Permissions::from_mode(0o700));
    Ok(())
}

/// Removes the lane's worktree at `into` and git's registration of it (any registration of
/// `repo` pointing there); nothing else. Nothing there: nothing to do.
pub fn remove_lane(repo: &Path, into: &Path) -> Result<(), GitError> {
    if into.exists() {
        fs::remove_dir_all(into).ctx(|| format!("cannot remove {}", into.display()))?;
    }
    let Ok(main) = Repository::open(repo) else {
        return Ok(());
    };
    let names = main
        .worktrees()
        .ctx(|| "cannot list worktrees".to_string())?;
    let wanted = lane_name(into);
    for name in names.iter().flatten().flatten() {
        let Ok(found) = main.find_worktree(name) else {
            continue;
        };
        let at: PathBuf = found.path().components().collect();
        let into_clean: PathBuf = into.components().collect();
        if name == wanted || at == into_clean {
            let mut opts = WorktreePruneOptions::new();
            opts.valid(true).locked(false).working_tree(false);
            found
                .prune(Some(&mut opts))
                .ctx(|| format!("cannot drop git's registration of {}", into.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "lane_tests.rs"]
mod tests;
