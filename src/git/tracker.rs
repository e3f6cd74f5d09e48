//! Which paths of a big checkout may have changed since its last automatic commit, so the next
//! commit checks those instead of walking every file (see ARCHITECTURE.md, "Automatic
//! commits"). One inotify watcher (notify) serves every tracked checkout.
//!
//! # When the tracker vouches for a checkout
//!
//! Only when nothing can have slipped past it; otherwise [`Tracker::take`] says so and the
//! commit walks the whole checkout as without a tracker, which makes the tracker trusted again:
//! - every folder that needs a watch has one: all of them but `.git`, nested repositories and
//!   folders git ignores that hold no tracked file. A folder that appears is watched before it
//!   is listed, and the whole folder is a candidate, so what was written in it before its watch
//!   came is found anyway. A checkout is not trusted until its first walk of watches is done;
//! - no event was lost (the kernel's queue overflowed, a watch could not be added, the
//!   checkout itself moved);
//! - no `.gitignore` changed (what git ignores may have changed anywhere: the watches are
//!   walked again), and since the last commit neither did HEAD, the other ignore and
//!   configuration files (their stamps: size, times, inode; [`Stamps`]), nor the index's
//!   entries (a digest, [`entries_digest`](super::stamps::entries_digest), taken only when the index file was rewritten: a
//!   `git status` refreshing its stat data keeps the tracker). A git command run by hand, or by
//!   the agent, that changes any of them falls back to a walk, and the watches are walked
//!   again (an ignored folder may hold a tracked file now);
//! - the events are flushed: a cookie file written in the tracker's own folder comes back
//!   through the same inotify queue, after every event before it;
//! - at most [`MAX_CANDIDATES`] paths changed (a build that rewrote a tracked folder).
//!
//! The candidates are the changed paths (cut at a nested `.git`) and whatever the last commit
//! left differing (skipped paths, nested repositories): status is asked about those alone.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use git2::Repository;
use notify::event::{CreateKind, ModifyKind, RenameMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::error::GitContext;
use super::stamps::Stamps;
use super::GitError;

/// More changed paths than this and a walk is cheaper than asking about each.
/// (The unit tests use a smaller bound, to cross it quickly.)
pub(super) const MAX_CANDIDATES: usize = if cfg!(test) { 256 } else { 4096 };

/// How long a commit waits for its cookie before it walks instead.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// Tracks checkouts; dropping it stops its thread and every watch.
pub struct Tracker {
    shared: Arc<Shared>,
    control: Sender<Msg>,
    cookies: PathBuf,
    next_cookie: AtomicU64,
    vouched: AtomicU64,
    thread: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when a cookie came back, and when a checkout's watches are all in place.
    flushed: Condvar,
}

#[derive(Default)]
struct State {
    roots: HashMap<PathBuf, Root>,
    /// The highest cookie seen back.
    cookie: u64,
}

#[derive(Default)]
struct Root {
    /// Paths (relative, `/`-separated) with an event since the last take.
    dirty: BTreeSet<String>,
    /// Events may be missing since the last take.
    lost: bool,
    /// Every folder that needs a watch has one.
    ready: bool,
    /// What the last commit left, set by [`Tracker::settle`].
    known: Option<Known>,
}

/// What a commit left: the paths that may still differ, and the stamps and index entries
/// ([`entries_digest`](super::stamps::entries_digest)) it holds under.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Known {
    pub paths: Vec<String>,
    pub stamps: Stamps,
    pub entries: u64,
}

enum Msg {
    Event(notify::Event),
    /// The backend lost events: nothing is trusted until a walk.
    Lost,
    /// Watch this checkout (again).
    Track(PathBuf),
    Stop,
}

impl Tracker {
    /// Starts the tracker; `cookies` is a private folder of its own (created if missing).
    pub fn new(cookies: &Path) -> Result<Tracker, GitError> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(cookies)
            .ctx(|| format!("cannot create {}", cookies.display()))?;
        let (control, rx) = mpsc::channel();
        let events = control.clone();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            let msg = match res {
                Ok(e) if e.need_rescan() => Msg::Lost,
                Ok(e) => Msg::Event(e),
                Err(_) => Msg::Lost,
            };
            let _ = events.send(msg);
        })
        .map_err(|source| watch_error(cookies, source))?;
        let cookies =
            std::fs::canonicalize(cookies).ctx(|| format!("cannot read {}", cookies.display()))?;
        watcher
            .watch(&cookies, RecursiveMode::NonRecursive)
            .map_err(|source| watch_error(&cookies, source))?;
        let shared = Arc::new(Shared::default());
        let worker = Worker {
            shared: shared.clone(),
            watcher,
            cookies: cookies.clone(),
            repos: HashMap::new(),
            watched: HashSet::new(),
        };
        let thread = std::thread::Builder::new()
            .name("baton-tracker".into())
            .spawn(move || worker.run(rx))
            .ctx(|| "cannot start the change tracker".to_string())?;
        Ok(Tracker {
            shared,
            control,
            cookies,
            next_cookie: AtomicU64::new(0),
            vouched: AtomicU64::new(0),
            thread: Some(thread),
        })
    }

    /// Starts tracking the checkout at `root` (its top folder) unless it is tracked already.
    /// Returns at once: the watches are added in the background, and until they are, and its
    /// first commit (or [`prime_tracked`](super::prime_tracked)) walked it,
    /// [`take`](Self::take) does not vouch for it.
    pub fn track(&self, root: &Path) {
        let root = canonical(root);
        let mut state = self.lock();
        if state.roots.contains_key(&root) {
            return;
        }
        // Not ready, and nothing known: no take vouches for it before a first walk.
        state.roots.insert(root.clone(), Root::default());
        drop(state);
        let _ = self.control.send(Msg::Track(root));
    }

    /// Whether a commit (or [`prime_tracked`](super::prime_tracked)) of `root` left what the
    /// next take needs to vouch for it.
    pub fn knows(&self, root: &Path) -> bool {
        let root = canonical(root);
        self.lock()
            .roots
            .get(&root)
            .is_some_and(|r| r.known.is_some())
    }

    /// Waits (at most `within`) until every folder of `root` that needs a watch has one.
    pub(super) fn ready_within(&self, root: &Path, within: Duration) -> bool {
        let root = canonical(root);
        let state = self.lock();
        let waiting = |s: &mut State| s.roots.get(&root).is_some_and(|r| !r.ready);
        let (state, _) = self
            .shared
            .flushed
            .wait_timeout_while(state, within, waiting)
            .unwrap_or_else(|p| p.into_inner());
        state.roots.get(&root).is_some_and(|r| r.ready)
    }

    /// Forgets what `root`'s events said so far, as a take does, for a walk that starts now
    /// and sees all of it; false if its watches are not all in place yet (nothing changes).
    pub(super) fn restart(&self, root: &Path) -> bool {
        let root = canonical(root);
        let mut state = self.lock();
        let Some(entry) = state.roots.get_mut(&root).filter(|r| r.ready) else {
            return false;
        };
        entry.dirty.clear();
        entry.lost = false;
        true
    }

    /// How many checkouts it tracks.
    pub fn checkouts(&self) -> usize {
        self.lock().roots.len()
    }

    /// Whether `root` is tracked (watched or being watched).
    #[cfg(test)]
    pub(super) fn tracks(&self, root: &Path) -> bool {
        self.lock().roots.contains_key(&canonical(root))
    }

    /// Flushes the events and takes the candidates of `root` (its changed paths and what the
    /// last commit left), or None when it cannot vouch for them (see the module doc). `now`
    /// are the checkout's stamps; `entries` digests its index, asked only when the index file
    /// was rewritten (`git status` refreshing it changes no entry).
    pub(super) fn take(
        &self,
        root: &Path,
        now: &Stamps,
        entries: impl FnOnce() -> Option<u64>,
    ) -> Option<Vec<String>> {
        let root = canonical(root);
        if !self.lock().roots.contains_key(&root) {
            return None;
        }
        let flushed = self.flush();
        let (dirty, trusted, known) = {
            let mut state = self.lock();
            let entry = state.roots.get_mut(&root)?;
            let trusted = flushed && !entry.lost && entry.ready;
            entry.lost = !entry.ready;
            (
                std::mem::take(&mut entry.dirty),
                trusted,
                entry.known.take()?,
            )
        };
        let held = known.stamps.head == now.head
            && known.stamps.rules == now.rules
            && (known.stamps.index == now.index || entries() == Some(known.entries));
        if !held {
            // What git ignores, or which ignored folder holds a tracked file, may differ now.
            let _ = self.control.send(Msg::Track(root));
            return None;
        }
        if !trusted || dirty.len() + known.paths.len() > MAX_CANDIDATES {
            return None;
        }
        let mut paths: BTreeSet<String> = dirty;
        paths.extend(known.paths);
        self.vouched.fetch_add(1, Ordering::Relaxed);
        Some(paths.into_iter().collect())
    }

    /// How many takes it vouched for so far (for figures and tests: whether commits asked it).
    pub fn vouched(&self) -> u64 {
        self.vouched.load(Ordering::Relaxed)
    }

    /// Records what a commit of `root` left (after it took, walked and wrote the index).
    pub(super) fn settle(&self, root: &Path, known: Known) {
        if let Some(entry) = self.lock().roots.get_mut(&canonical(root)) {
            entry.known = Some(known);
        }
    }

    /// Records what a walk without a commit found, unless a commit that ran meanwhile left
    /// its own (which is newer); returns whether it was recorded.
    pub(super) fn settle_unknown(&self, root: &Path, known: Known) -> bool {
        let mut state = self.lock();
        let Some(entry) = state.roots.get_mut(&canonical(root)) else {
            return false;
        };
        if entry.known.is_some() {
            return false;
        }
        entry.known = Some(known);
        true
    }

    /// Writes a cookie and waits until the thread saw it: every event before it was handled.
    fn flush(&self) -> bool {
        let n = self.next_cookie.fetch_add(1, Ordering::SeqCst) + 1;
        let file = self.cookies.join(format!("c-{n}"));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&file);
        if written.is_err() {
            return false;
        }
        let state = self.lock();
        let (state, timeout) = self
            .shared
            .flushed
            .wait_timeout_while(state, FLUSH_WAIT, |s| s.cookie < n)
            .unwrap_or_else(|p| p.into_inner());
        drop(state);
        let _ = std::fs::remove_file(&file);
        !timeout.timed_out()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Tracker {
    fn drop(&mut self) {
        let _ = self.control.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The tracker's thread: handles events in the order the kernel queued them.
struct Worker {
    shared: Arc<Shared>,
    watcher: RecommendedWatcher,
    cookies: PathBuf,
    /// One handle per tracked checkout, to ask what git ignores.
    repos: HashMap<PathBuf, Repository>,
    /// Every folder watched.
    watched: HashSet<PathBuf>,
}

impl Worker {
    fn run(mut self, rx: Receiver<Msg>) {
        while let Ok(msg) = rx.recv() {
            match msg {
                Msg::Event(e) => self.event(e),
                Msg::Lost => {
                    let roots: Vec<PathBuf> = {
                        let mut state = self.lock();
                        state.roots.values_mut().for_each(|r| r.lost = true);
                        state.roots.keys().cloned().collect()
                    };
                    // A watch may be missing too (one that could not be added).
                    for root in roots {
                        self.rewatch(&root);
                    }
                }
                Msg::Track(root) => self.rewatch(&root),
                Msg::Stop => return,
            }
        }
    }

    fn event(&mut self, e: notify::Event) {
        if matches!(e.kind, EventKind::Access(_)) {
            return;
        }
        // A folder that appeared (created, or moved in) is watched before it is looked at.
        let appeared = matches!(
            e.kind,
            EventKind::Create(CreateKind::Folder | CreateKind::Any)
                | EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both))
        );
        let mut rewatch = Vec::new();
        let mut watch = Vec::new();
        let mut gone = Vec::new();
        let mut forgotten = Vec::new();
        {
            let mut state = self.lock();
            for path in &e.paths {
                if path.parent() == Some(self.cookies.as_path()) {
                    let n = path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .and_then(|n| n.strip_prefix("c-"))
                        .and_then(|n| n.parse().ok());
                    if let Some(n) = n {
                        state.cookie = state.cookie.max(n);
                        self.shared.flushed.notify_all();
                    }
                    continue;
                }
                let Some((root, entry)) = state
                    .roots
                    .iter_mut()
                    .filter(|(r, _)| path.starts_with(r))
                    .max_by_key(|(r, _)| r.as_os_str().len())
                else {
                    continue;
                };
                if matches!(
                    e.kind,
                    EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
                ) {
                    gone.push(path.clone());
                }
                match candidate(root, path) {
                    Candidate::Path(rel) => {
                        if rel.rsplit('/').next() == Some(".gitignore") {
                            entry.lost = true;
                            rewatch.push(root.clone());
                        }
                        entry.dirty.insert(rel);
                        if appeared && path.is_dir() && !path.is_symlink() {
                            watch.push((root.clone(), path.clone()));
                        }
                    }
                    Candidate::Root => match e.kind {
                        EventKind::Modify(ModifyKind::Metadata(_)) => {}
                        // Deleted (`baton rm`): no longer tracked; tracked afresh if it is
                        // committed in again.
                        EventKind::Remove(_) => {
                            entry.lost = true;
                            forgotten.push(root.clone());
                        }
                        _ => entry.lost = true,
                    },
                    Candidate::Untracked => {}
                    Candidate::Unreadable => entry.lost = true,
                }
            }
        }
        // Gone or moved away: a folder there later is watched afresh.
        for path in gone {
            self.watched.remove(&path);
        }
        for root in forgotten {
            self.lock().roots.remove(&root);
            self.repos.remove(&root);
            self.watched.retain(|p| !p.starts_with(&root));
        }
        for (root, dir) in watch {
            if self.watch_tree(&root, &dir).is_err() {
                self.lose(&root);
            }
        }
        for root in rewatch {
            self.rewatch(&root);
        }
    }

    /// Watches every folder of `root` that needs it (again: what git ignores may have
    /// changed). The checkout is ready once this first walk is done.
    fn rewatch(&mut self, root: &Path) {
        self.repos.remove(root);
        match self.watch_tree(root, root) {
            Ok(()) => {
                if let Some(entry) = self.lock().roots.get_mut(root) {
                    entry.ready = true;
                }
                // For `ready_within`.
                self.shared.flushed.notify_all();
            }
            Err(_) => self.lose(root),
        }
    }

    /// Adds a watch to `dir` and each folder under it that needs one, each before it is
    /// listed (so nothing created meanwhile is missed). A folder watched for the first time
    /// is a candidate: what was written in it before its watch came is found that way.
    fn watch_tree(&mut self, root: &Path, dir: &Path) -> Result<(), notify::Error> {
        if !self.repos.contains_key(root) {
            if let Ok(repo) = Repository::open(root) {
                self.repos.insert(root.to_path_buf(), repo);
            }
        }
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            if d != root && (d.join(".git").exists() || self.ignored(root, &d)) {
                continue;
            }
            match self.watcher.watch(&d, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    if self.watched.insert(d.clone()) {
                        self.mark(root, &d);
                    }
                }
                // Gone already: its removal is an event of its parent.
                Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound) => continue,
                Err(e) => return Err(e),
            }
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if is_dir && entry.file_name() != ".git" {
                    stack.push(entry.path());
                }
            }
        }
        Ok(())
    }

    /// Whether git ignores folder `dir` and the index holds nothing under it.
    fn ignored(&mut self, root: &Path, dir: &Path) -> bool {
        let (Some(repo), Ok(rel)) = (self.repos.get(root), dir.strip_prefix(root)) else {
            return false;
        };
        let Some(rel) = rel.to_str().map(|r| format!("{r}/")) else {
            return false;
        };
        if !repo.is_path_ignored(&rel).unwrap_or(false) {
            return false;
        }
        let Ok(mut index) = repo.index() else {
            return false;
        };
        let _ = index.read(false);
        let holds = index
            .find_prefix(rel.as_str())
            .ok()
            .and_then(|at| index.get(at))
            .is_some_and(|e| e.path.starts_with(rel.as_bytes()));
        !holds
    }

    /// Makes folder `dir` of `root` a candidate.
    fn mark(&self, root: &Path, dir: &Path) {
        let Candidate::Path(rel) = candidate(root, dir) else {
            return;
        };
        if let Some(entry) = self.lock().roots.get_mut(root) {
            entry.dirty.insert(rel);
        }
    }

    fn lose(&self, root: &Path) {
        if let Some(entry) = self.lock().roots.get_mut(root) {
            entry.lost = true;
            entry.ready = false;
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What an event's path means to the checkout at `root`.
#[derive(Debug, PartialEq)]
enum Candidate {
    /// A path to ask status about (relative, cut at a nested repository's `.git`).
    Path(String),
    /// The checkout's own folder.
    Root,
    /// Inside the checkout's `.git`: nothing status looks at.
    Untracked,
    /// A path that is not UTF-8: status is asked about the whole checkout instead.
    Unreadable,
}

fn candidate(root: &Path, path: &Path) -> Candidate {
    let Ok(rel) = path.strip_prefix(root) else {
        return Candidate::Untracked;
    };
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) if n == ".git" => break,
            Component::Normal(n) => match n.to_str() {
                Some(n) => parts.push(n),
                None => return Candidate::Unreadable,
            },
            _ => return Candidate::Unreadable,
        }
    }
    match (parts.is_empty(), rel.as_os_str().is_empty()) {
        (true, true) => Candidate::Root,
        (true, false) => Candidate::Untracked,
        (false, _) => Candidate::Path(parts.join("/")),
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| super::clean_path(p))
}

fn watch_error(path: &Path, source: notify::Error) -> GitError {
    GitError::Watch {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
#[path = "tracker_tests.rs"]
mod tests;
