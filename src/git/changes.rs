//! What an automatic commit takes after a turn: the files that differ from the index, and what
//! the index already holds differently from HEAD (staged by hand). In a big checkout finding
//! them is the commit's whole cost, so two threads share it (see ARCHITECTURE.md, "Automatic
//! commits"): each takes the checkout's top-level names one at a time from a shared queue and
//! walks that part, and one of them first compares the index with HEAD.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;
use std::sync::{Condvar, Mutex};

use git2::{Repository, StatusShow};

use super::error::GitContext;
use super::{statuses, GitError};

/// An index file below this size (about 4,000 entries) is walked by one thread: splitting
/// would cost more than it saves. Debug builds (every test) always split, and check the
/// result against one whole walk.
const SPLIT_INDEX_BYTES: u64 = 320 * 1024;

/// How many parts the walk is cut into: each costs one more pass over the index, and more of
/// them balance the two threads better.
const PARTS: usize = 4;

/// Whether the checkout's index is big enough for its walk to be worth splitting, and for a
/// change tracker to be worth asking. Debug builds (every test) take every checkout for big.
pub(super) fn big_checkout(repo: &Repository) -> bool {
    let index_bytes = std::fs::metadata(repo.path().join("index")).map_or(0, |m| m.len());
    index_bytes >= SPLIT_INDEX_BYTES || cfg!(debug_assertions)
}

/// (paths whose files differ from the index, new files included; paths the index holds
/// differently from HEAD). Debug builds (every test) check a split walk against one whole
/// walk: the checkout must hold still while it runs, as it does at a turn's commit.
pub(super) fn turn_changes(
    repo: &Repository,
    root: &Path,
) -> Result<(Vec<String>, Vec<String>), GitError> {
    let (changed, staged) = changes_now(repo, root)?;
    if cfg!(debug_assertions) {
        let mut whole = statuses(repo, StatusShow::Workdir, true, &[])?;
        whole.sort();
        debug_assert_eq!(changed, whole, "the shared walk of {}", root.display());
    }
    Ok((changed, staged))
}

/// [`turn_changes`] without the debug check, for a walk while the checkout may change under
/// it (a change tracker's prime runs beside the turn whose CLI writes files: a whole walk
/// after it may rightly see more; the tracker's events cover what it missed).
pub(super) fn changes_now(
    repo: &Repository,
    root: &Path,
) -> Result<(Vec<String>, Vec<String>), GitError> {
    if !big_checkout(repo) {
        let changed = statuses(repo, StatusShow::Workdir, true, &[])?;
        return Ok((changed, statuses(repo, StatusShow::Index, false, &[])?));
    }
    // The other thread works on its own handle: a repository is not shared between threads.
    let other = Repository::open(repo.workdir().unwrap_or(repo.path()))
        .ctx(|| format!("cannot open the repository at {}", root.display()))?;
    let queue = Parts::default();
    let (mut changed, staged) = std::thread::scope(|scope| {
        let queue = &queue;
        // It compares the index with HEAD while this thread cuts the checkout into parts;
        // then both walk parts until none is left (each reads the index on its first).
        let helper = scope.spawn(move || -> Result<_, GitError> {
            let staged = statuses(&other, StatusShow::Index, false, &[])?;
            // A name only the index has (staged, then deleted from disk) is walked too.
            queue.add_names(staged.iter().map(|p| top_of(p)));
            Ok((walk_parts(&other, queue)?, staged))
        });
        let cut = parts(repo, root);
        let mine = cut.and_then(|cut| {
            queue.fill(cut);
            walk_parts(repo, queue)
        });
        // However this thread fared, the helper must not wait for parts forever.
        queue.fill(Vec::new());
        let theirs = helper.join().unwrap_or_else(|_| {
            Err(GitError::Io {
                context: format!("reading the status of {} failed", root.display()),
                source: std::io::Error::other("the status thread panicked"),
            })
        });
        let (mut changed, (theirs, staged)) = (mine?, theirs?);
        changed.extend(theirs);
        Ok::<_, GitError>((changed, staged))
    })?;
    changed.sort();
    Ok((changed, staged))
}

/// [`turn_changes`] asked about `paths` alone: a tracker's candidates (see
/// `tracker.rs`). A path inside a nested repository stands for the repository's folder, as
/// the whole walk names it. Debug builds (every test) check the result against the whole walk.
pub(super) fn tracked_changes(
    repo: &Repository,
    root: &Path,
    paths: &[String],
) -> Result<(Vec<String>, Vec<String>), GitError> {
    let paths: BTreeSet<String> = paths.iter().map(|p| outer_path(root, p)).collect();
    let paths: Vec<String> = paths.into_iter().collect();
    let (mut changed, mut staged) = match paths.is_empty() {
        true => (Vec::new(), Vec::new()),
        false => (
            statuses(repo, StatusShow::Workdir, true, &paths)?,
            statuses(repo, StatusShow::Index, false, &paths)?,
        ),
    };
    changed.sort();
    staged.sort();
    if cfg!(debug_assertions) {
        let (mut whole, mut whole_staged) = turn_changes(repo, root)?;
        whole.sort();
        whole_staged.sort();
        debug_assert_eq!(
            (&changed, &staged),
            (&whole, &whole_staged),
            "the tracked changes of {} (candidates {paths:?})",
            root.display()
        );
    }
    Ok((changed, staged))
}

/// `path` (relative to `root`), or the folder of the nested repository that holds it, without
/// a trailing `/`.
fn outer_path(root: &Path, path: &str) -> String {
    let path = path.trim_end_matches('/');
    for (i, _) in path.match_indices('/') {
        if root.join(&path[..i]).join(".git").exists() {
            return path[..i].to_string();
        }
    }
    path.to_string()
}

/// The checkout's top-level names (on disk, and HEAD's: a tracked file or folder deleted from
/// disk) in [`PARTS`] parts of about as much work each. A folder's work is guessed from the
/// size of its tree object in HEAD (its direct entries), read without parsing it: reading the
/// index's entries to count them would cost a good part of a walk.
fn parts(repo: &Repository, root: &Path) -> Result<Vec<Vec<String>>, GitError> {
    let mut weight: BTreeMap<String, usize> = BTreeMap::new();
    if let (Ok(tree), Ok(odb)) = (repo.head().and_then(|h| h.peel_to_tree()), repo.odb()) {
        for e in tree.iter() {
            let name = String::from_utf8_lossy(e.name_bytes()).into_owned();
            let size = match e.kind() {
                Some(git2::ObjectType::Tree) => odb.read_header(e.id()).map_or(0, |(n, _)| n),
                _ => 0,
            };
            // About 40 bytes a tree entry.
            weight.insert(name, (size / 40).max(1));
        }
    }
    for entry in std::fs::read_dir(root)
        .ctx(|| format!("cannot read {}", root.display()))?
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != ".git" {
            weight.entry(name).or_insert(1);
        }
    }
    Ok(split_by_weight(weight.into_iter().collect(), PARTS))
}

/// Greedy parts: heaviest first, each to the lightest part; empty parts left out.
fn split_by_weight(mut names: Vec<(String, usize)>, n: usize) -> Vec<Vec<String>> {
    names.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut parts: Vec<(Vec<String>, usize)> = vec![(Vec::new(), 0); n.max(1)];
    for (name, w) in names {
        if let Some(lightest) = parts.iter_mut().min_by_key(|p| p.1) {
            lightest.0.push(name);
            lightest.1 += w;
        }
    }
    parts
        .into_iter()
        .map(|p| p.0)
        .filter(|p| !p.is_empty())
        .collect()
}

/// The files under each part taken from `queue` that differ from the index.
fn walk_parts(repo: &Repository, queue: &Parts) -> Result<Vec<String>, GitError> {
    let mut changed = Vec::new();
    while let Some(part) = queue.next() {
        changed.extend(statuses(repo, StatusShow::Workdir, true, &part)?);
    }
    Ok(changed)
}

/// The first component of a path.
fn top_of(path: &str) -> String {
    path.split('/').next().unwrap_or_default().to_string()
}

/// Parts of the checkout to walk, each handed out once; a taker waits until they are cut.
#[derive(Default)]
struct Parts {
    state: Mutex<PartsState>,
    cut: Condvar,
}

#[derive(Default)]
struct PartsState {
    queue: VecDeque<Vec<String>>,
    /// Every name in a part so far.
    names: BTreeSet<String>,
    filled: bool,
}

impl Parts {
    /// Adds the parts (once: a later call only wakes the takers).
    fn fill(&self, parts: Vec<Vec<String>>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if !state.filled {
            for part in parts {
                let part: Vec<String> = part
                    .into_iter()
                    .filter(|n| !n.is_empty() && state.names.insert(n.clone()))
                    .collect();
                if !part.is_empty() {
                    state.queue.push_back(part);
                }
            }
            state.filled = true;
        }
        self.cut.notify_all();
    }

    /// Adds one part of the names in no part yet (empty ones aside: they would mean the
    /// whole checkout). It waits for the parts to be cut, so a name is in one part only.
    fn add_names(&self, names: impl Iterator<Item = String>) {
        let mut state = self.wait();
        let part: Vec<String> = names
            .filter(|n| !n.is_empty() && state.names.insert(n.clone()))
            .collect();
        if !part.is_empty() {
            state.queue.push_back(part);
        }
    }

    fn next(&self) -> Option<Vec<String>> {
        self.wait().queue.pop_front()
    }

    fn wait(&self) -> std::sync::MutexGuard<'_, PartsState> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        self.cut
            .wait_while(state, |s| !s.filled)
            .unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn parts_hold_about_as_many_entries_each() {
        type Case<'a> = (&'a [(&'a str, usize)], usize, &'a [&'a [&'a str]]);
        let cases: [Case; 4] = [
            (&[], 4, &[]),
            (&[("a", 1)], 4, &[&["a"]]),
            (&[("a", 5), ("b", 3), ("c", 2)], 2, &[&["a"], &["b", "c"]]),
            (
                &[("w", 1), ("x", 1), ("y", 1), ("z", 1)],
                2,
                &[&["w", "y"], &["x", "z"]],
            ),
        ];
        for (names, n, expected) in cases {
            let names = names.iter().map(|(k, w)| (k.to_string(), *w)).collect();
            let expected: Vec<Vec<String>> = expected.iter().map(|p| owned(p)).collect();
            assert_eq!(split_by_weight(names, n), expected);
        }
    }

    #[test]
    fn each_name_is_walked_once_and_empty_ones_never() {
        let parts = Parts::default();
        parts.fill(vec![
            owned(&["src", "README.md"]),
            owned(&["src", "docs"]),
            owned(&[""]),
        ]);
        parts.add_names(owned(&["gone", "docs", ""]).into_iter());
        parts.fill(vec![owned(&["late"])]);
        let got: Vec<Vec<String>> = std::iter::from_fn(|| parts.next()).collect();
        assert_eq!(
            got,
            vec![
                owned(&["src", "README.md"]),
                owned(&["docs"]),
                owned(&["gone"])
            ]
        );
    }

    #[test]
    fn the_top_of_a_path_is_its_first_component() {
        for (path, top) in [("a/b/c", "a"), ("file", "file"), ("vendor/", "vendor")] {
            assert_eq!(top_of(path), top);
        }
    }
}
