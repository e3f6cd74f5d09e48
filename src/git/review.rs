//! Reviewing and landing a terminal's work: its diff, a squash merge, reverting one commit.

use std::fs;
use std::path::{Path, PathBuf};

use git2::build::CheckoutBuilder;
use git2::{Commit, DiffFormat, DiffStatsFormat, ObjectType, Oid, Repository, Tree};

use super::commit::branch_tip;
use super::error::GitContext;
use super::worktree::checked_out_at;
use super::{
    changed_paths, ensure_idle, ensure_writable, locate, open, signature, GitError, Located,
    Worktree,
};

/// The terminal's committed work: its branch tip against what the base branch already has
/// (see [`diff_base`]), as a `git diff --stat` summary, or the full patch when `patch`.
/// Uncommitted changes in the checkout are not shown; a last line counts them when there are
/// any (see the module docs).
pub fn diff(wt: &Worktree, patch: bool) -> Result<BranchDiff, GitError> {
    let repo = open(&wt.repo)?;
    let tip = branch_tip(&repo, &wt.branch)?;
    let since = diff_base(&repo, wt, tip)?;
    let base = commit_of(&repo, &since.to_string())?;
    let tip_tree = tree_of(&repo, tip)?;
    let base_tree = base
        .tree()
        .ctx(|| "cannot read the base tree".to_string())?;
    let text = diff_text(&repo, wt, &base_tree, &tip_tree, patch)?;
    Ok(BranchDiff {
        text,
        since: since.to_string(),
        merged: landed(&repo, wt, tip, since),
    })
}

/// Whether `since` is a tip `baton merge` landed rather than where the branch meets its base
/// branch (a fork never merged meets it before its own start).
fn landed(repo: &Repository, wt: &Worktree, tip: Oid, since: Oid) -> bool {
    branch_tip(repo, &wt.base_branch)
        .ok()
        .and_then(|base_tip| repo.merge_base(base_tip, tip).ok())
        .is_some_and(|met| met != since)
}

/// What [`diff`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchDiff {
    /// The stat or the patch, then the line on uncommitted files; empty: nothing.
    pub text: String,
    /// The commit the branch was compared with.
    pub since: String,
    /// `since` is a tip `baton merge` landed (not the merge base).
    pub merged: bool,
}

/// What the branch is compared with: the newest of its tips already squash-merged into the
/// base branch (`Baton-Squashed`), else its merge base with the base branch's tip, so work
/// that `baton merge` (or a plain merge) landed is no longer listed. Without the base branch
/// (deleted, renamed): the commit the terminal started from.
pub(crate) fn diff_base(repo: &Repository, wt: &Worktree, tip: Oid) -> Result<Oid, GitError> {
    match branch_tip(repo, &wt.base_branch) {
        Ok(base_tip) => merge_ancestor(repo, base_tip, tip),
        Err(_) => {
            Oid::from_str(&wt.base_commit).ctx(|| format!("bad base commit {}", wt.base_commit))
        }
    }
}

fn diff_text(
    repo: &Repository,
    wt: &Worktree,
    base_tree: &Tree<'_>,
    tip_tree: &Tree<'_>,
    patch: bool,
) -> Result<String, GitError> {
    let mut d = repo
        .diff_tree_to_tree(Some(base_tree), Some(tip_tree), None)
        .ctx(|| format!("cannot diff {}", wt.branch))?;
    d.find_similar(None)
        .ctx(|| format!("cannot find renames in {}", wt.branch))?;
    if d.deltas().len() == 0 {
        return pending_note(wt);
    }
    let mut out = if patch {
        let mut text = Vec::new();
        d.print(DiffFormat::Patch, |_, _, line| {
            if matches!(line.origin(), '+' | '-' | ' ') {
                text.push(line.origin() as u8);
            }
            text.extend_from_slice(line.content());
            true
        })
        .ctx(|| format!("cannot print the diff of {}", wt.branch))?;
        String::from_utf8_lossy(&text).into_owned()
    } else {
        let stats = d.stats().ctx(|| format!("cannot count {}", wt.branch))?;
        let buf = stats
            .to_buf(DiffStatsFormat::FULL | DiffStatsFormat::INCLUDE_SUMMARY, 80)
            .ctx(|| format!("cannot format the diff of {}", wt.branch))?;
        String::from_utf8_lossy(&buf).into_owned()
    };
    out.push_str(&pending_note(wt)?);
    Ok(out)
}

/// A line counting the checkout's uncommitted files, or nothing.
fn pending_note(wt: &Worktree) -> Result<String, GitError> {
    let pending = match locate(wt) {
        Located::Here => Some(wt.path.clone()),
        Located::Moved(p) => Some(p),
        Located::Gone => None,
    }
    .and_then(|p| git2::Repository::open(p).ok())
    .map(|c| changed_paths(&c, true))
    .transpose()?
    .map_or(0, |v| v.len());
    if pending == 0 {
        return Ok(String::new());
    }
    let s = if pending == 1 { "" } else { "s" };
    Ok(format!(
        "({pending} file{s} with uncommitted changes not shown: they are committed after the next turn)\n"
    ))
}

/// Squash-merges the terminal's branch into its base branch as one commit with `message`,
/// plus a `Baton-Squashed: <branch tip>` trailer so a later merge of the same branch only
/// brings what came after (git itself would see the same changes twice and conflict).
/// When the base branch is checked out somewhere its files are updated too; that checkout
/// must be clean. Refuses, changing nothing, when it is dirty or the merge conflicts.
/// Returns the new commit's id.
pub fn merge_squash(wt: &Worktree, message: &str) -> Result<String, GitError> {
    let repo = open(&wt.repo)?;
    let tip = branch_tip(&repo, &wt.branch)?;
    let base_tip = branch_tip(&repo, &wt.base_branch)?;
    let tree = match merged_tree(&repo, base_tip, tip)? {
        Merged::Clean(tree) => tree,
        Merged::Conflicts(files) => {
            return Err(GitError::Conflict {
                what: format!("merging {} into {}", wt.branch, wt.base_branch),
                files,
            })
        }
    };
    let parent = commit_of(&repo, &base_tip.to_string())?;
    if tree == parent.tree_id() {
        return Err(GitError::NothingToMerge {
            branch: wt.branch.clone(),
            base: wt.base_branch.clone(),
        });
    }
    let refname = format!("refs/heads/{}", wt.base_branch);
    let checkout = checked_out_at(&repo, &refname);
    let message = with_trailer(message, SQUASHED, &tip.to_string());
    let id = apply(&repo, checkout, &refname, &parent, tree, &message)?;
    Ok(id.to_string())
}

const SQUASHED: &str = "Baton-Squashed";

/// `message` with one more trailer, in its trailer paragraph when it ends with one.
fn with_trailer(message: &str, key: &str, value: &str) -> String {
    let body = message.trim_end();
    let last = body.rsplit("\n\n").next().unwrap_or_default();
    let is_trailer = |l: &str| {
        l.split_once(": ").is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
    };
    let joins = body.contains("\n\n") && last.lines().all(is_trailer);
    let sep = if body.is_empty() || joins {
        "\n"
    } else {
        "\n\n"
    };
    format!("{body}{sep}{key}: {value}\n")
        .trim_start()
        .to_string()
}

/// The ancestor for merging `theirs` into `ours`: the newest branch tip already squashed
/// into `ours` (from its `Baton-Squashed` trailers), else their merge base.
pub(super) fn merge_ancestor(repo: &Repository, ours: Oid, theirs: Oid) -> Result<Oid, GitError> {
    let base = repo
        .merge_base(ours, theirs)
        .ctx(|| format!("{ours} and {theirs} share no history"))?;
    let mut walk = repo.revwalk().ctx(|| "cannot walk history".to_string())?;
    walk.push(ours).ctx(|| "cannot walk history".to_string())?;
    walk.hide(base).ctx(|| "cannot walk history".to_string())?;
    for oid in walk.flatten() {
        let Ok(commit) = repo.find_commit(oid) else {
            continue;
        };
        let message = String::from_utf8_lossy(commit.message_bytes());
        let squashed =
            super::message::trailer_value(&message, SQUASHED).and_then(|v| Oid::from_str(v).ok());
        if let Some(id) = squashed {
            if id == theirs || repo.graph_descendant_of(theirs, id).unwrap_or(false) {
                return Ok(id);
            }
        }
    }
    Ok(base)
}

/// Adds a commit on the terminal's branch that undoes `commit` (an id or any revision git
/// understands), updating the worktree's files. Refuses, changing nothing, when the commit is
/// not the branch's own, the worktree has uncommitted changes, or the revert conflicts.
pub fn revert(wt: &Worktree, commit: &str) -> Result<String, GitError> {
    let repo = open(&wt.repo)?;
    let tip = branch_tip(&repo, &wt.branch)?;
    let not_ours = || GitError::NotOnBranch {
        commit: commit.to_string(),
        branch: wt.branch.clone(),
    };
    let target = repo
        .revparse_single(commit)
        .and_then(|o| o.peel_to_commit())
        .map_err(|_| not_ours())?;
    let base =
        Oid::from_str(&wt.base_commit).ctx(|| format!("bad base commit {}", wt.base_commit))?;
    if !is_own(&repo, target.id(), tip, base) {
        return Err(not_ours());
    }
    let head = commit_of(&repo, &tip.to_string())?;
    let mainline = u32::from(target.parent_count() > 1);
    let mut index = repo
        .revert_commit(&target, &head, mainline, None)
        .ctx(|| format!("cannot revert {commit}"))?;
    if index.has_conflicts() {
        return Err(GitError::Conflict {
            what: format!("reverting {commit}"),
            files: conflict_paths(&index),
        });
    }
    let tree = index
        .write_tree_to(&repo)
        .ctx(|| format!("cannot build the revert of {commit}"))?;
    if tree == head.tree_id() {
        return Err(GitError::NothingToRevert {
            commit: commit.to_string(),
        });
    }
    let message = format!(
        "Revert \"{}\"\n\nThis reverts commit {}.\n",
        String::from_utf8_lossy(target.summary_bytes().unwrap_or_default()),
        target.id()
    );
    let checkout = match locate(wt) {
        Located::Here => Some(wt.path.clone()),
        Located::Moved(p) => Some(p),
        Located::Gone => None,
    };
    let refname = format!("refs/heads/{}", wt.branch);
    let id = apply(&repo, checkout, &refname, &head, tree, &message)?;
    Ok(id.to_string())
}

/// Whether everything on `branch` is already in `base`: reachable from it, or (after a
/// squash merge) merging it would change nothing. A missing base branch counts as unmerged.
pub(crate) fn is_merged(repo: &Repository, branch: &str, base: &str) -> Result<bool, GitError> {
    let tip = branch_tip(repo, branch)?;
    let Ok(base_tip) = branch_tip(repo, base) else {
        return Ok(false);
    };
    if tip == base_tip || repo.graph_descendant_of(base_tip, tip).unwrap_or(false) {
        return Ok(true);
    }
    let base_tree = commit_of(repo, &base_tip.to_string())?.tree_id();
    Ok(matches!(merged_tree(repo, base_tip, tip)?, Merged::Clean(t) if t == base_tree))
}

pub(super) enum Merged {
    Clean(Oid),
    Conflicts(Vec<String>),
}

/// The three-way merge of `theirs` into `ours`, computed in memory (only tree objects are
/// written, which no ref points to).
pub(super) fn merged_tree(repo: &Repository, ours: Oid, theirs: Oid) -> Result<Merged, GitError> {
    let ancestor = merge_ancestor(repo, ours, theirs)?;
    let mut index = merged_index(repo, ancestor, ours, theirs)?;
    if index.has_conflicts() {
        return Ok(Merged::Conflicts(conflict_paths(&index)));
    }
    let tree = index
        .write_tree_to(repo)
        .ctx(|| "cannot write the merged tree".to_string())?;
    Ok(Merged::Clean(tree))
}

/// The three-way merge of commits `ours` and `theirs` from `ancestor`, in memory (nothing
/// written).
pub(super) fn merged_index(
    repo: &Repository,
    ancestor: Oid,
    ours: Oid,
    theirs: Oid,
) -> Result<git2::Index, GitError> {
    let trees = (
        tree_of(repo, ancestor)?,
        tree_of(repo, ours)?,
        tree_of(repo, theirs)?,
    );
    repo.merge_trees(&trees.0, &trees.1, &trees.2, None)
        .ctx(|| "cannot merge".to_string())
}

/// Commits `tree` on top of `parent` (the tip of `refname`) and, when the branch is checked
/// out at `checkout`, updates that checkout's files. Checks everything before writing.
fn apply(
    repo: &Repository,
    checkout: Option<PathBuf>,
    refname: &str,
    parent: &Commit<'_>,
    tree: Oid,
    message: &str,
) -> Result<Oid, GitError> {
    let parent_tree = parent
        .tree()
        .ctx(|| "cannot read the parent tree".to_string())?;
    let new_tree = repo
        .find_tree(tree)
        .ctx(|| "cannot read the new tree".to_string())?;
    let touched = touched_paths(repo, &parent_tree, &new_tree)?;
    let co = match &checkout {
        Some(path) => Some(ready_checkout(path, &parent_tree, &new_tree, &touched)?),
        None => None,
    };
    ensure_writable(repo.path())?;
    ensure_writable(&repo.commondir().join("objects"))?;
    let sig = signature(repo)?;
    let id = repo
        .commit(None, &sig, &sig, message, &new_tree, &[parent])
        .ctx(|| "cannot write the commit".to_string())?;
    if let (Some(co), Some(path)) = (&co, &checkout) {
        let mut opts = CheckoutBuilder::new();
        opts.force().disable_pathspec_match(true);
        for p in &touched {
            opts.path(p.as_str());
        }
        let target = co
            .find_tree(tree)
            .ctx(|| "cannot read the new tree".to_string())?;
        co.checkout_tree(target.as_object(), Some(&mut opts))
            .ctx(|| format!("cannot update the files in {}", path.display()))?;
    }
    repo.reference_matching(refname, id, true, parent.id(), "baton")
        .ctx(|| {
            format!("{refname} moved while baton was committing; nothing was lost, try again")
        })?;
    Ok(id)
}

/// Opens the checkout that will receive `new_tree` and refuses when that would overwrite
/// anything: uncommitted changes, or untracked files that differ from what would land there.
fn ready_checkout(
    path: &Path,
    parent_tree: &Tree<'_>,
    new_tree: &Tree<'_>,
    touched: &[String],
) -> Result<Repository, GitError> {
    let co = open(path)?;
    ensure_idle(&co)?;
    let dirty = changed_paths(&co, false)?;
    if !dirty.is_empty() {
        return Err(GitError::Dirty {
            checkout: path.to_path_buf(),
            files: dirty,
        });
    }
    let mut in_the_way = Vec::new();
    for p in touched {
        let file = path.join(p);
        let tracked = parent_tree.get_path(Path::new(p)).is_ok();
        if tracked || fs::symlink_metadata(&file).is_err() {
            continue;
        }
        let same = new_tree
            .get_path(Path::new(p))
            .ok()
            .filter(|e| e.kind() == Some(ObjectType::Blob))
            .and_then(|e| {
                Oid::hash_file(ObjectType::Blob, &file)
                    .ok()
                    .map(|h| h == e.id())
            })
            .unwrap_or(false);
        if !same {
            in_the_way.push(p.clone());
        }
    }
    if !in_the_way.is_empty() {
        return Err(GitError::Dirty {
            checkout: path.to_path_buf(),
            files: in_the_way,
        });
    }
    ensure_writable(path)?;
    Ok(co)
}

/// Every path that differs between two trees (both sides of renames).
fn touched_paths(repo: &Repository, a: &Tree<'_>, b: &Tree<'_>) -> Result<Vec<String>, GitError> {
    let d = repo
        .diff_tree_to_tree(Some(a), Some(b), None)
        .ctx(|| "cannot compare trees".to_string())?;
    let mut out = Vec::new();
    for delta in d.deltas() {
        for f in [delta.old_file(), delta.new_file()] {
            if let Some(p) = f.path().and_then(Path::to_str) {
                if !out.iter().any(|o: &String| o == p) {
                    out.push(p.to_string());
                }
            }
        }
    }
    Ok(out)
}

/// Whether `commit` was made on the branch: reachable from its tip, not from its base.
fn is_own(repo: &Repository, commit: Oid, tip: Oid, base: Oid) -> bool {
    let reach =
        |from: Oid| from == commit || repo.graph_descendant_of(from, commit).unwrap_or(false);
    reach(tip) && !reach(base)
}

pub(super) fn conflict_paths(index: &git2::Index) -> Vec<String> {
    let Ok(conflicts) = index.conflicts() else {
        return Vec::new();
    };
    conflicts
        .flatten()
        .filter_map(|c| c.our.or(c.their).or(c.ancestor))
        .map(|e| String::from_utf8_lossy(&e.path).into_owned())
        .collect()
}

fn commit_of<'r>(repo: &'r Repository, id: &str) -> Result<Commit<'r>, GitError> {
    repo.revparse_single(id)
        .and_then(|o| o.peel_to_commit())
        .ctx(|| format!("cannot read commit {id}"))
}

pub(super) fn tree_of(repo: &Repository, id: Oid) -> Result<Tree<'_>, GitError> {
    repo.find_commit(id)
        .and_then(|c| c.tree())
        .ctx(|| format!("cannot read the tree of {id}"))
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
