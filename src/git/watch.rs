//! Watching for the changes baton must follow: a plain folder becoming a repository, a
//! worktree moved or deleted. The watcher only makes the follow-up prompt; the caller also
//! runs `inspect`/`locate` at every send, so a missed or merged event never loses a move.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use super::{clean_path, GitError, Worktree};

/// Watches folders and worktrees, and sends a watched key (the folder, or the worktree's path
/// as given to [`Watch::add_worktree`]) once things under it settle: no event for `quiet`, or
/// at the latest after `4 × quiet` of continuous activity. Dropping it stops the thread.
pub struct Watch {
    shared: Arc<Mutex<Shared>>,
    control: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    watcher: RecommendedWatcher,
    /// Watched path → how, and which keys it wakes.
    roots: HashMap<PathBuf, Root>,
    /// Keys of plain folders: their `.git` gets watched once it appears.
    folders: BTreeSet<PathBuf>,
}

struct Root {
    mode: RecursiveMode,
    keys: BTreeSet<PathBuf>,
}

enum Msg {
    Event(Vec<PathBuf>),
    /// The backend lost events (queue overflow, error): every key may have changed.
    Rescan,
    Stop,
}

struct Pending {
    first: Instant,
    last: Instant,
}

impl Watch {
    /// Starts the watcher thread; keys are sent on `tx`.
    pub fn new(tx: Sender<PathBuf>, quiet: Duration) -> Result<Watch, GitError> {
        let (control, rx) = mpsc::channel();
        let events = control.clone();
        let watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            let msg = match res {
                Ok(e) if e.need_rescan() => Msg::Rescan,
                Ok(e) => Msg::Event(e.paths),
                Err(_) => Msg::Rescan,
            };
            let _ = events.send(msg);
        })
        .map_err(|source| GitError::Watch {
            path: PathBuf::new(),
            source,
        })?;
        let shared = Arc::new(Mutex::new(Shared {
            watcher,
            roots: HashMap::new(),
            folders: BTreeSet::new(),
        }));
        let inner = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("baton-git-watch".into())
            .spawn(move || run(&inner, &rx, &tx, quiet))
            .map_err(|e| GitError::Io {
                context: "cannot start the watcher thread".into(),
                source: e,
            })?;
        Ok(Watch {
            shared,
            control,
            thread: Some(thread),
        })
    }

    /// Watches a plain folder until it becomes a repository (the folder, then its `.git`).
    /// A repository created in a parent of the folder is not seen here: the check at each
    /// send finds it.
    pub fn add_folder(&self, folder: &Path) -> Result<(), GitError> {
        let key = absolute(folder);
        let mut s = lock(&self.shared);
        s.watch(&key, &key, RecursiveMode::NonRecursive)?;
        s.folders.insert(key.clone());
        s.watch_new_git_dirs();
        Ok(())
    }

    /// Watches for a worktree's move or deletion: its parent directory, and git's record of
    /// it (`.git/worktrees/<name>`, which `git worktree move`/`repair` rewrite). The key sent
    /// is `wt.path`.
    pub fn add_worktree(&self, wt: &Worktree) -> Result<(), GitError> {
        let key = absolute(&wt.path);
        let mut s = lock(&self.shared);
        if let Some(parent) = key.parent() {
            s.watch(&key, parent, RecursiveMode::NonRecursive)?;
        }
        if let Ok(repo) = git2::Repository::open(&wt.repo) {
            let admin = clean_path(&repo.commondir().join("worktrees").join(&wt.name));
            // Best effort: the parent watch already sees the worktree go away.
            let _ = s.watch(&key, &admin, RecursiveMode::NonRecursive);
        }
        Ok(())
    }

    /// The key changes under `path` are reported as (what `add_folder`/`add_worktree` were
    /// given, made absolute).
    pub fn key(path: &Path) -> PathBuf {
        absolute(path)
    }

    /// Stops watching for `key`; directories nobody else needs are unwatched.
    pub fn remove(&self, key: &Path) {
        let key = absolute(key);
        let mut s = lock(&self.shared);
        s.folders.remove(&key);
        let emptied: Vec<PathBuf> = s
            .roots
            .iter_mut()
            .filter_map(|(path, root)| {
                root.keys.remove(&key);
                root.keys.is_empty().then(|| path.clone())
            })
            .collect();
        for path in emptied {
            s.roots.remove(&path);
            let _ = s.watcher.unwatch(&path);
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.control.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Shared {
    fn watch(&mut self, key: &Path, path: &Path, mode: RecursiveMode) -> Result<(), GitError> {
        if let Some(root) = self.roots.get_mut(path) {
            root.keys.insert(key.to_path_buf());
            return Ok(());
        }
        self.watcher
            .watch(path, mode)
            .map_err(|source| GitError::Watch {
                path: path.to_path_buf(),
                source,
            })?;
        let keys = BTreeSet::from([key.to_path_buf()]);
        self.roots.insert(path.to_path_buf(), Root { mode, keys });
        Ok(())
    }

    /// A folder's `.git` appeared: watch inside it too, so the first commit wakes the key.
    fn watch_new_git_dirs(&mut self) {
        let new: Vec<PathBuf> = self
            .folders
            .iter()
            .filter(|f| f.join(".git").is_dir() && !self.roots.contains_key(&f.join(".git")))
            .cloned()
            .collect();
        for folder in new {
            let _ = self.watch(&folder, &folder.join(".git"), RecursiveMode::Recursive);
        }
    }

    fn keys_for(&self, path: &Path) -> Vec<PathBuf> {
        self.roots
            .iter()
            .filter(|(root, r)| match r.mode {
                RecursiveMode::Recursive => path.starts_with(root),
                RecursiveMode::NonRecursive => path == *root || path.parent() == Some(root),
            })
            .flat_map(|(_, r)| r.keys.iter().cloned())
            .collect()
    }

    fn all_keys(&self) -> BTreeSet<PathBuf> {
        self.roots
            .values()
            .flat_map(|r| r.keys.iter().cloned())
            .collect()
    }
}

/// The debounce loop: collects keys woken by events, sends each once it settles.
fn run(shared: &Mutex<Shared>, rx: &mpsc::Receiver<Msg>, tx: &Sender<PathBuf>, quiet: Duration) {
    let mut pending: HashMap<PathBuf, Pending> = HashMap::new();
    loop {
        let now = Instant::now();
        let wait = pending
            .values()
            .map(|p| {
                (p.last + quiet)
                    .min(p.first + quiet * 4)
                    .saturating_duration_since(now)
            })
            .min()
            .unwrap_or(Duration::from_secs(3600));
        let woken = match rx.recv_timeout(wait) {
            Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Ok(Msg::Event(paths)) => {
                let mut s = lock(shared);
                s.watch_new_git_dirs();
                paths.iter().flat_map(|p| s.keys_for(p)).collect()
            }
            Ok(Msg::Rescan) => lock(shared).all_keys(),
            Err(RecvTimeoutError::Timeout) => BTreeSet::new(),
        };
        let now = Instant::now();
        for key in woken {
            pending
                .entry(key)
                .and_modify(|p| p.last = now)
                .or_insert(Pending {
                    first: now,
                    last: now,
                });
        }
        let due: Vec<PathBuf> = pending
            .iter()
            .filter(|(_, p)| now >= p.last + quiet || now >= p.first + quiet * 4)
            .map(|(k, _)| k.clone())
            .collect();
        for key in due {
            pending.remove(&key);
            if tx.send(key).is_err() {
                return;
            }
        }
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    // A panic elsewhere must not stop the watching: the maps stay consistent between calls.
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

fn absolute(p: &Path) -> PathBuf {
    clean_path(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

#[cfg(test)]
#[path = "watch_tests.rs"]
mod tests;
