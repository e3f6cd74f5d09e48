//! What an automatic commit takes after a turn: the files that differ from the index, and what
//! the index already holds differently from HEAD (staged by hand). In a big checkout finding
//! them is the commit's whole cost, so two threads share it (see ARCHITECTURE.md, "Automatic
//! commits"): each takes the checkout's top-level names one at a time from a shared queue and
//! walks that part, and one of them first compares the index with HEAD.

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;

use git2::{Repository, StatusShow};

use super::error::GitContext;
use super::{statuses, GitError};

/// An index file below this size (about 4,000 entries) is walked by one thread: splitting
/// would cost more than it saves. Debug builds (every test) always split, and check the
/// result against one whole walk.
const SPLIT_INDEX_BYTES: u64 = 320 * 1024;

/// (paths whose files differ from the index, new files included; paths the index holds
/// differently from HEAD).
pub(super) fn turn_changes(
    repo: &Repository,
    root: &Path,
) -> Result<(Vec<String>, Vec<String>), GitError> {
    let index_bytes = std::fs::metadata(repo.path().join("index")).map_or(0, |m| m.len());
    if index_bytes < SPLIT_INDEX_BYTES && !cfg!(debug_assertions) {
        let changed = statuses(repo, StatusShow::Workdir, true, &[])?;
        return Ok((changed, statuses(repo, StatusShow::Index, false, &[])?));
    }
    let queue = Names::new(top_level_names(repo, root)?);
    // The other thread works on its own handle: a repository is not shared between threads.
    let other = Repository::open(repo.workdir().unwrap_or(repo.path()))
        .ctx(|| format!("cannot open the repository at {}", root.display()))?;
    let (mut changed, staged) = std::thread::scope(|scope| {
        let queue = &queue;
        let helper = scope.spawn(move || -> Result<_, GitError> {
            let staged = statuses(&other, StatusShow::Index, false, &[])?;
            // A name only the index has (staged, then deleted from disk) is walked too.
            queue.add(staged.iter().map(|p| top_of(p)));
            Ok((walk_queue(&other, queue)?, staged))
        });
        let mine = walk_queue(repo, queue);
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
    if cfg!(debug_assertions) {
        let mut whole = statuses(repo, StatusShow::Workdir, true, &[])?;
        whole.sort();
        debug_assert_eq!(changed, whole, "the shared walk of {}", root.display());
    }
    Ok((changed, staged))
}

/// Every name a change can be under: what is on disk (folders first, as they hold the most),
/// then what HEAD has there (a tracked file or folder deleted from disk).
fn top_level_names(repo: &Repository, root: &Path) -> Result<Vec<String>, GitError> {
    let mut folders = Vec::new();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root)
        .ctx(|| format!("cannot read {}", root.display()))?
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == ".git" {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            folders.push(name);
        } else {
            files.push(name);
        }
    }
    folders.append(&mut files);
    if let Ok(tree) = repo.head().and_then(|h| h.peel_to_tree()) {
        folders.extend(
            tree.iter()
                .map(|e| String::from_utf8_lossy(e.name_bytes()).into_owned()),
        );
    }
    Ok(folders)
}

/// The files under top-level name after name from `queue` that differ from the index.
fn walk_queue(repo: &Repository, queue: &Names) -> Result<Vec<String>, GitError> {
    let mut changed = Vec::new();
    while let Some(name) = queue.next() {
        changed.extend(statuses(repo, StatusShow::Workdir, true, &[name])?);
    }
    Ok(changed)
}

/// The first component of a path.
fn top_of(path: &str) -> String {
    path.split('/').next().unwrap_or_default().to_string()
}

/// Top-level names to walk, each handed out once.
struct Names {
    state: Mutex<(VecDeque<String>, BTreeSet<String>)>,
}

impl Names {
    fn new(names: Vec<String>) -> Names {
        let queue = Names {
            state: Mutex::new((VecDeque::new(), BTreeSet::new())),
        };
        queue.add(names.into_iter());
        queue
    }

    /// Queues the names not seen before (empty ones aside: they would mean the whole checkout).
    fn add(&self, names: impl Iterator<Item = String>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        for name in names.filter(|n| !n.is_empty()) {
            if state.1.insert(name.clone()) {
                state.0.push_back(name);
            }
        }
    }

    fn next(&self) -> Option<String> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_handed_out_once_in_order_and_empty_ones_never() {
        let cases: [(&[&str], &[&str], &[&str]); 3] = [
            (&[], &[], &[]),
            (&["src", "README.md", "src"], &[""], &["src", "README.md"]),
            (&["src"], &["gone", "src", "gone"], &["src", "gone"]),
        ];
        for (first, later, expected) in cases {
            let names = Names::new(first.iter().map(|n| n.to_string()).collect());
            names.add(later.iter().map(|n| n.to_string()));
            let got: Vec<String> = std::iter::from_fn(|| names.next()).collect();
            assert_eq!(got, expected, "{first:?} then {later:?}");
        }
    }

    #[test]
    fn the_top_of_a_path_is_its_first_component() {
        for (path, top) in [("a/b/c", "a"), ("file", "file"), ("vendor/", "vendor")] {
            assert_eq!(top_of(path), top);
        }
    }
}
