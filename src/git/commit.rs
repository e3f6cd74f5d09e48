//! Automatic commits after each turn, and reading them back (subjects, a turn's commit).

use std::path::{Path, PathBuf};

use git2::{BranchType, ErrorCode, Oid, Repository, Sort};

use super::error::GitContext;
use super::message::trailer_value;
use super::stamps::{entries_digest, Stamps};
use super::tracker::{Known, Tracker};
use super::{clean_path, ensure_idle, ensure_writable, signature, GitError, Worktree};

/// Stages every change in `checkout` (new, modified and deleted files; `.gitignore` honoured;
/// nothing under `exclude`) and commits it on the checkout's current branch with `message`.
/// Author and committer: the repository's user.name/user.email, else `baton <baton@localhost>`.
/// Returns the new commit's id, or None when nothing changed (and then writes nothing).
///
/// `checkout` may be a subdirectory of a checkout; only changes under it are committed.
/// Exclusions are absolute or relative to `checkout`.
pub fn auto_commit(
    checkout: &Path,
    message: &str,
    exclude: &[&Path],
) -> Result<Option<String>, GitError> {
    commit_with(checkout, message, exclude, None)
}

/// [`auto_commit`] asking `tracker` which paths may have changed, when it can vouch for them
/// (see [`Tracker`]): status then checks those instead of walking the whole checkout. A big
/// checkout's first tracked commit starts tracking it (and walks); either way the tracker
/// learns what the commit left, so the next commit can ask it.
pub fn auto_commit_tracked(
    checkout: &Path,
    message: &str,
    exclude: &[&Path],
    tracker: &Tracker,
) -> Result<Option<String>, GitError> {
    commit_with(checkout, message, exclude, Some(tracker))
}

fn commit_with(
    checkout: &Path,
    message: &str,
    exclude: &[&Path],
    tracker: Option<&Tracker>,
) -> Result<Option<String>, GitError> {
    let repo = Repository::discover(checkout)
        .ctx(|| format!("cannot open the repository at {}", checkout.display()))?;
    let root = super::checkout_root(&repo)?;
    let head = head_commit(&repo, &root)?;
    ensure_idle(&repo)?;
    // A small checkout is walked in a few milliseconds: no tracker is asked or started.
    let tracker = tracker.filter(|_| super::changes::big_checkout(&repo));
    if let Some(t) = tracker {
        t.track(&root);
    }
    let before = tracker.map(|_| Stamps::read(&repo));
    let candidates = tracker
        .zip(before.as_ref())
        .and_then(|(t, b)| t.take(&root, b, || entries_digest(&repo)));
    let (changed, staged) = match &candidates {
        Some(paths) => super::changes::tracked_changes(&repo, &root, paths)?,
        None => super::changes::turn_changes(&repo, &root)?,
    };
    let turn = Turn {
        checkout,
        message,
        exclude,
    };
    let (made, left) = commit_changes(&repo, &root, &turn, head, &changed, &staged)?;
    if let (Some(tracker), Some(before)) = (tracker, before) {
        if let Some(entries) = entries_digest(&repo) {
            let stamps = Stamps::after(&repo, before.rules());
            let known = Known {
                paths: left,
                stamps,
                entries,
            };
            tracker.settle(&root, known);
        }
    }
    Ok(made)
}

/// How long [`prime_tracked`] waits for a checkout's watches before it gives up.
const READY_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Walks the big checkout holding `checkout` as its first tracked commit would, without
/// committing, so that the tracker can vouch for the commit that follows (ARCHITECTURE.md,
/// "The change tracker"). It starts tracking the checkout, waits for its watches, forgets its
/// events so far, reads the stamps and the index's entries, then walks: every change from then
/// on is an event, every one before it is in the walk, and a stamp that moved meanwhile makes
/// the next take refuse. Returns whether the tracker learned the checkout; false (nothing
/// done) for a small checkout, one it knows already, or watches not ready within
/// [`READY_WAIT`]. Run beside a commit of the same checkout, the commit's knowledge wins.
pub fn prime_tracked(checkout: &Path, tracker: &Tracker) -> Result<bool, GitError> {
    let repo = Repository::discover(checkout)
        .ctx(|| format!("cannot open the repository at {}", checkout.display()))?;
    let root = super::checkout_root(&repo)?;
    if !super::changes::big_checkout(&repo) {
        return Ok(false);
    }
    tracker.track(&root);
    if tracker.knows(&root) || !tracker.ready_within(&root, READY_WAIT) || !tracker.restart(&root) {
        return Ok(false);
    }
    let stamps = Stamps::read(&repo);
    let Some(entries) = entries_digest(&repo) else {
        return Ok(false);
    };
    // The turn's CLI may be writing files meanwhile (see `changes_now`).
    let (changed, staged) = super::changes::changes_now(&repo, &root)?;
    let mut paths: Vec<String> = changed.into_iter().chain(staged).collect();
    paths.sort();
    paths.dedup();
    let known = Known {
        paths,
        stamps,
        entries,
    };
    Ok(tracker.settle_unknown(&root, known))
}

/// What an automatic commit was asked for (see [`auto_commit`]).
#[derive(Clone, Copy)]
struct Turn<'a> {
    checkout: &'a Path,
    message: &'a str,
    exclude: &'a [&'a Path],
}

/// Stages and commits what `changed` and `staged` name (see [`auto_commit`]). Also returns
/// the paths that may still differ from the index or HEAD afterwards: the skipped ones and
/// nested repositories, or all of them when nothing was committed (the index is then left
/// unwritten).
fn commit_changes(
    repo: &Repository,
    root: &Path,
    turn: &Turn<'_>,
    head: Option<git2::Commit<'_>>,
    changed: &[String],
    staged: &[String],
) -> Result<(Option<String>, Vec<String>), GitError> {
    let Turn {
        checkout,
        message,
        exclude,
    } = *turn;
    let scope = relative_to(root, checkout).unwrap_or_default();
    let excluded: Vec<PathBuf> = exclude
        .iter()
        .filter_map(|p| {
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                checkout.join(p)
            };
            relative_to(root, &abs)
        })
        .collect();
    let skipped =
        |path: &Path| !path.starts_with(&scope) || excluded.iter().any(|e| path.starts_with(e));
    let all = || {
        let mut all: Vec<String> = changed.iter().chain(staged).cloned().collect();
        all.sort();
        all.dedup();
        all
    };
    if changed.iter().chain(staged).all(|p| skipped(Path::new(p))) {
        return Ok((None, all()));
    }
    // Staging writes objects: check first so a read-only disk changes nothing.
    ensure_writable(repo.path())?;
    ensure_writable(&repo.commondir().join("objects"))?;
    let mut index = repo
        .index()
        .ctx(|| format!("cannot read the index of {}", root.display()))?;
    stage_paths(&mut index, root, changed, &skipped)?;
    let tree_id = new_tree(
        repo,
        &mut index,
        head.as_ref(),
        changed.iter().chain(staged),
    )
    .ctx(|| format!("cannot build the tree of {}", root.display()))?;
    if head.as_ref().map(|c| c.tree_id()) == Some(tree_id) {
        // Nothing to commit: the index on disk stays as it was, and so does the handle's.
        index
            .read(true)
            .ctx(|| format!("cannot read the index of {}", root.display()))?;
        return Ok((None, all()));
    }
    let tree = repo
        .find_tree(tree_id)
        .ctx(|| "cannot read the new tree".to_string())?;
    let sig = signature(repo)?;
    let parents: Vec<&git2::Commit<'_>> = head.iter().collect();
    super::locks::crash_leaving("commit-ref", || head_ref_lock(repo));
    let id = repo
        .commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
        .ctx(|| format!("cannot commit in {}", root.display()))?;
    super::locks::crash_leaving("commit-index", || Some(repo.path().join("index.lock")));
    index
        .write()
        .ctx(|| format!("cannot write the index of {}", root.display()))?;
    let left = all()
        .into_iter()
        .filter(|p| p.ends_with('/') || skipped(Path::new(p)))
        .collect();
    Ok((Some(id.to_string()), left))
}

/// The lock file of the branch HEAD names (what git writes while it moves that branch).
fn head_ref_lock(repo: &Repository) -> Option<PathBuf> {
    let head = repo.find_reference("HEAD").ok()?;
    let target = head.symbolic_target().ok().flatten()?;
    Some(repo.commondir().join(format!("{target}.lock")))
}

/// The tree of the commit: HEAD's tree with the index's entries for `paths` (every path where
/// the index may differ from HEAD), which rewrites only the trees along those paths; the
/// index's own tree walks every entry of the index. Without HEAD (the first commit), or if
/// an update does not apply (a file that became a folder), the index's own tree.
fn new_tree<'a>(
    repo: &Repository,
    index: &mut git2::Index,
    head: Option<&git2::Commit<'_>>,
    paths: impl Iterator<Item = &'a String>,
) -> Result<Oid, git2::Error> {
    let Some(head) = head else {
        return index.write_tree_to(repo);
    };
    let base = head.tree()?;
    let mut update = git2::build::TreeUpdateBuilder::new();
    for p in paths.filter(|p| !p.ends_with('/')) {
        match index.get_path(Path::new(p), 0) {
            Some(entry) => {
                update.upsert(p.as_str(), entry.id, file_mode(entry.mode));
            }
            None if base.get_path(Path::new(p)).is_ok() => {
                update.remove(p.as_str());
            }
            None => {}
        }
    }
    let tree = match update.create_updated(repo, &base) {
        Ok(tree) => tree,
        Err(_) => return index.write_tree_to(repo),
    };
    // Every test run (a debug build) checks the shortcut against the index's own tree.
    debug_assert_eq!(Ok(tree), index.write_tree_to(repo), "the updated tree");
    Ok(tree)
}

fn file_mode(mode: u32) -> git2::FileMode {
    match mode {
        0o100755 => git2::FileMode::BlobExecutable,
        0o120000 => git2::FileMode::Link,
        0o160000 => git2::FileMode::Commit,
        _ => git2::FileMode::Blob,
    }
}

/// Stages exactly the `changed` paths status found (a file there is added, a missing one
/// removed), so a big checkout is walked once, by status, rather than three times as
/// `add_all` + `update_all` did. A folder status names is a repository nested in the checkout
/// (an agent's `git clone`): it is left out, untracked, rather than staged as a gitlink with no
/// `.gitmodules` (what `git add -A` does, with a warning) or failing the commit (what
/// `add_all` did: "invalid path").
fn stage_paths(
    index: &mut git2::Index,
    root: &Path,
    changed: &[String],
    skipped: &dyn Fn(&Path) -> bool,
) -> Result<(), GitError> {
    for p in changed {
        let path = Path::new(p);
        if skipped(path) {
            continue;
        }
        match std::fs::symlink_metadata(root.join(path)) {
            Ok(meta) if meta.is_dir() => continue,
            Ok(_) => index.add_path(path),
            Err(_) => index.remove_path(path),
        }
        .ctx(|| format!("cannot stage {p} in {}", root.display()))?;
    }
    Ok(())
}

/// HEAD's commit; None on an unborn branch (the first commit); an error when detached.
fn head_commit<'r>(
    repo: &'r Repository,
    root: &Path,
) -> Result<Option<git2::Commit<'r>>, GitError> {
    if repo.head_detached().unwrap_or(false) {
        return Err(GitError::Detached {
            root: root.to_path_buf(),
        });
    }
    match repo.head() {
        Ok(h) => h
            .peel_to_commit()
            .map(Some)
            .ctx(|| format!("cannot read HEAD in {}", root.display())),
        Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(e) => Err(e).ctx(|| format!("cannot read HEAD in {}", root.display())),
    }
}

/// `path` relative to `root`, when it is inside it (through symlinks too).
fn relative_to(root: &Path, path: &Path) -> Option<PathBuf> {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| clean_path(p));
    if let Ok(rel) = clean_path(path).strip_prefix(clean_path(root)) {
        return Some(rel.to_path_buf());
    }
    // A path that does not exist yet cannot be canonicalized: resolve its parent instead.
    let resolved = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !path.exists() => canon(parent).join(name),
        _ => canon(path),
    };
    resolved
        .strip_prefix(canon(root))
        .ok()
        .map(Path::to_path_buf)
}

/// The subjects of the commits on the terminal's branch since it started, or since its last
/// tip a `baton merge` landed, oldest first.
pub fn subjects_since(wt: &Worktree) -> Result<Vec<String>, GitError> {
    let repo = super::open(&wt.repo)?;
    // Not what an earlier `baton merge` already landed: the squash message lists what is new.
    let landed = super::review::diff_base(&repo, wt, branch_tip(&repo, &wt.branch)?)?;
    branch_commits(&repo, wt, Some(landed), |c| {
        Some(String::from_utf8_lossy(c.summary_bytes().unwrap_or_default()).into_owned())
    })
}

/// The commit on the terminal's branch (since it started) whose trailer `key` is `value`,
/// newest first (e.g. `Baton-Turn`, the turn's id, for `baton revert`).
pub fn commit_for_trailer(
    wt: &Worktree,
    key: &str,
    value: &str,
) -> Result<Option<String>, GitError> {
    let repo = super::open(&wt.repo)?;
    let mut found = branch_commits(&repo, wt, None, |c| {
        let msg = String::from_utf8_lossy(c.message_bytes());
        (trailer_value(&msg, key) == Some(value)).then(|| c.id().to_string())
    })?;
    Ok(found.pop())
}

/// Maps every commit on the branch and not in `base_commit` (nor in `also_hide`), oldest
/// first.
fn branch_commits<T>(
    repo: &Repository,
    wt: &Worktree,
    also_hide: Option<Oid>,
    mut f: impl FnMut(&git2::Commit<'_>) -> Option<T>,
) -> Result<Vec<T>, GitError> {
    let tip = branch_tip(repo, &wt.branch)?;
    let base =
        Oid::from_str(&wt.base_commit).ctx(|| format!("bad base commit {}", wt.base_commit))?;
    let mut walk = repo.revwalk().ctx(|| "cannot walk history".to_string())?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)
        .ctx(|| "cannot walk history".to_string())?;
    walk.push(tip)
        .ctx(|| format!("cannot walk {}", wt.branch))?;
    // A base commit that vanished (history rewritten by hand) just means: the whole branch.
    let _ = walk.hide(base);
    if let Some(h) = also_hide {
        let _ = walk.hide(h);
    }
    let mut out = Vec::new();
    for oid in walk {
        let oid = oid.ctx(|| format!("cannot walk {}", wt.branch))?;
        let commit = repo
            .find_commit(oid)
            .ctx(|| format!("cannot read commit {oid}"))?;
        out.extend(f(&commit));
    }
    Ok(out)
}

/// The commit id at the tip of local branch `branch`.
pub(crate) fn branch_tip(repo: &Repository, branch: &str) -> Result<Oid, GitError> {
    repo.find_branch(branch, BranchType::Local)
        .ok()
        .and_then(|b| b.get().target())
        .ok_or_else(|| GitError::BranchMissing {
            branch: branch.to_string(),
        })
}

#[cfg(test)]
#[path = "commit_tests.rs"]
mod tests;
