//! What the server holds while it runs: the store, the config, the environment CLIs run in, and
//! per terminal the turn queue and the running child.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::config::Config;
use crate::protocol::WatchEvent;

/// Events a watching client may fall behind by before it is resynced.
const WATCH_BUFFER: usize = 4096;
use crate::error::BatonError;
use crate::providers::{process, ProviderHomes};
use crate::store::{Store, TerminalRow};
use crate::words::ProviderKind;

/// The turn running on a terminal.
#[derive(Debug, Clone)]
pub struct Running {
    pub turn_id: String,
    /// Process group of the CLI, once started.
    pub pid: Option<i32>,
    pub interrupted: Arc<AtomicBool>,
    /// Asks the running Claude CLI to interrupt its turn (a `control_request` on its stdin; it
    /// stays up, and falls back to SIGINT if it does not answer): set while its run takes one.
    pub control: Option<tokio::sync::mpsc::UnboundedSender<()>>,
}

/// Where steers for the running turn go, and which inputs went there (in order).
#[derive(Debug)]
pub struct Steering {
    pub lines: tokio::sync::mpsc::UnboundedSender<String>,
    pub sent: Vec<u32>,
}

impl Steering {
    pub fn has(&self, input: u32) -> bool {
        self.sent.contains(&input)
    }
}

/// Live state of one terminal.
///
/// Lock order (ARCHITECTURE.md, "Concurrency"): a lock may be taken while holding only the
/// ones above it.
/// 1. `turn_lock` (async): held by the runner for a whole turn, and by what needs the terminal
///    quiet (`prune`, `terminals::settled`). Taken while holding no other lock.
/// 2. `extract_lock` (async): one extraction at a time; held while it stores its lines under
///    `instructions_lock`.
/// 3. `inputs_lock`: held while the queue changes and while the runner takes the next input
///    (under `turn_lock`); takes the store's journal and index locks and the leaves below.
/// 4. `instructions_lock`: held while the instruction list is read and changed; takes only
///    the store's locks.
/// 5. Leaves, each held for a few statements, never across an `.await`, never two at once:
///    `running`, `steer`, `feeds`, `primed`, and the slots `prestarted` and `ending` (whose
///    own mutexes are private to them).
///
/// The rest is atomics and `Notify`s, which take no lock. The CLI itself is owned by one of
/// `prestarted`, the running turn, `ending` or the server's warm pool at a time
/// (ARCHITECTURE.md, "Warm CLIs").
#[derive(Debug, Default)]
pub struct TermRuntime {
    /// Held for the whole of a turn: one turn at a time per terminal.
    pub turn_lock: Arc<tokio::sync::Mutex<()>>,
    pub running: Mutex<Option<Running>>,
    /// Held while the queue changes (accepting, editing, moving input) and while the runner
    /// takes the next input, so both see one order.
    pub inputs_lock: Mutex<()>,
    /// The input the runner took, from the moment it took it until its turn ended: it can no
    /// longer be changed. 0: none (input numbers start at 1). Set under `inputs_lock`.
    taken: AtomicU32,
    /// Woken when input arrives or moves, so the terminal's runner looks at the queue again.
    pub wake: tokio::sync::Notify,
    /// The terminal's runner task was started.
    pub runner: AtomicBool,
    /// The replies of each input's turn, by input number, for the clients following it.
    pub feeds: Mutex<HashMap<u32, Arc<super::feed::Feed>>>,
    /// An interrupt came while the taken input's turn was starting: it starts interrupted.
    pub interrupt_pending: AtomicBool,
    /// The queue is held after a user's interrupt (`turn::hold`): the runner takes nothing.
    pub held: AtomicBool,
    /// The running Claude turn's stdin for steers, while it takes them.
    pub steer: Mutex<Option<Steering>>,
    /// The highest input and turn numbers used: never reused, even if the index missed one.
    pub last_input: AtomicU32,
    pub last_turn: AtomicU32,
    /// Background extractions started and not yet stored.
    pub extracting: AtomicUsize,
    /// Signalled each time an extraction finished.
    pub extracted: tokio::sync::Notify,
    /// Extractions of one terminal run one at a time, in prompt order.
    pub extract_lock: tokio::sync::Mutex<()>,
    /// Held while the instruction list is read and changed.
    pub instructions_lock: Mutex<()>,
    /// The CLI started for the next turn as its send arrived (`turn::prestart`).
    pub prestarted: crate::providers::warm::WarmSlot,
    /// The CLI of the last turn, which ended at its result, until it has exited
    /// (`providers::closing`): the next turn, and a CLI started ahead of it, wait for that.
    pub ending: crate::providers::closing::ClosingSlot,
    /// The worktree a turn last ran in since the server started (`checkout::Prime`).
    pub primed: Mutex<Option<std::path::PathBuf>>,
    /// True while the terminal's set-up command runs (`setup`): its runner waits.
    pub setup_running: tokio::sync::watch::Sender<bool>,
    /// Told by `rm` to stop the set-up command (its whole group) before its worktree goes.
    pub setup_stop: tokio::sync::Notify,
}

impl TermRuntime {
    /// True while a turn of this terminal runs.
    pub fn is_running(&self) -> bool {
        self.running.lock().map(|r| r.is_some()).unwrap_or(false)
    }

    /// Whether the queue is held after a user's interrupt (`turn::hold`).
    pub fn queue_held(&self) -> bool {
        self.held.load(Ordering::SeqCst)
    }

    /// The input the runner took, if any.
    pub fn taken(&self) -> Option<u32> {
        Some(self.taken.load(Ordering::SeqCst)).filter(|n| *n != 0)
    }

    /// Marks `input` as taken by the runner (None: its turn ended). The runner takes input
    /// under `inputs_lock`, so a change of the queue sees it taken or not, never between.
    pub fn set_taken(&self, input: Option<u32>) {
        self.taken.store(input.unwrap_or(0), Ordering::SeqCst);
    }

    /// Interrupts the terminal's turn (`baton interrupt`, a jump, a stop): Claude's interrupt
    /// request on its stdin, else SIGINT to its CLI's process group, or, while the turn is
    /// still starting, a mark it starts with. The flag is
    /// set and the pid read under the lock the turn holds to record its pid and read the flag:
    /// whichever comes second sends the signal, exactly once.
    pub fn interrupt(&self) -> std::io::Result<Interrupting> {
        let marked = self.running.lock().ok().and_then(|r| {
            r.as_ref().map(|run| {
                run.interrupted.store(true, Ordering::SeqCst);
                (run.turn_id.clone(), run.pid, run.control.clone())
            })
        });
        match marked {
            Some((turn_id, pid, control)) => {
                let asked = control.is_some_and(|c| c.send(()).is_ok());
                if let (false, Some(pid)) = (asked, pid) {
                    process::interrupt(pid)?;
                }
                Ok(Interrupting::Turn(turn_id))
            }
            None => match self.taken() {
                Some(input) => {
                    self.interrupt_pending.store(true, Ordering::SeqCst);
                    Ok(Interrupting::Starting(input))
                }
                None => Ok(Interrupting::Nothing),
            },
        }
    }
}

/// What [`TermRuntime::interrupt`] reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interrupting {
    /// The running turn (its id).
    Turn(String),
    /// The turn of this input, still starting: it starts interrupted.
    Starting(u32),
    /// No turn runs or starts.
    Nothing,
}

pub struct Server {
    pub store: Store,
    pub config: Config,
    pub homes: ProviderHomes,
    /// PATH the CLIs are looked up on (the server's own).
    pub path_var: Option<OsString>,
    pub started: Instant,
    pub shutting_down: AtomicBool,
    /// Every change, for watching clients (the UI). A client that falls behind is resynced with
    /// a fresh snapshot, so a lagging UI never blocks a turn.
    pub watch: tokio::sync::broadcast::Sender<WatchEvent>,
    /// Whether Codex's sandbox works here (probed once per binary).
    pub fence_checks: super::fence::FenceChecks,
    /// Watches plain folders and worktrees so moves show up before the next send.
    pub files: Mutex<Option<crate::git::Watch>>,
    /// Which paths of big checkouts changed since their last automatic commit.
    pub changes: std::sync::OnceLock<Arc<crate::git::Tracker>>,
    runtimes: Mutex<HashMap<String, Arc<TermRuntime>>>,
    /// Each terminal's shell (the shell face), started on first use.
    pub shells: super::shell::Shells,
    /// Claude CLIs kept running between turns (`providers::warm`).
    pub warm: crate::providers::warm::WarmPool,
    /// The cap on CLIs starting at once, and the turns waiting for a place (`[limits]`).
    pub starts: super::starting::Starts,
    /// The web client, once `baton web` started it (`crate::web`).
    pub web: crate::web::Slot,
    /// The permission requests waiting for the user (`server::approvals`).
    pub approvals: Inbox,
    /// Connections still owing their client a final reply (every request but `watch` and
    /// `shell`, streaming sends included): a stop waits for them before the runtime goes.
    answering: tokio::sync::watch::Sender<usize>,
}

/// The permission requests waiting for an answer, by id (`server::approvals`).
#[derive(Default)]
pub struct Inbox {
    waiting: Mutex<HashMap<String, Waiting>>,
    /// Each terminal's requests as its journal tells them, read once: every approval record is
    /// journalled by `server::approvals`, which forgets the terminal's entry then.
    folded: Mutex<HashMap<String, Folded>>,
}

/// A waiting request: its terminal, its turn, and how to answer its CLI.
pub struct Waiting {
    pub tid: String,
    pub turn_id: String,
    pub asked: crate::providers::ask::Asked,
}

impl Inbox {
    pub fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn folded_map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Folded>> {
        self.folded.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Terminal `tid`'s requests if read since its last approval record, else the generation
    /// to hand [`Inbox::keep`] with what is read now.
    pub fn folded(&self, tid: &str) -> Result<Vec<crate::approvals::Folded>, u64> {
        let map = self.folded_map();
        match map.get(tid) {
            Some(Folded {
                folded: Some(f), ..
            }) => Ok(f.clone()),
            Some(f) => Err(f.generation),
            None => Err(0),
        }
    }

    /// Keeps what was read at `generation`, unless a record was journalled since (then it may
    /// miss it: read again next time).
    pub fn keep(&self, tid: &str, generation: u64, folded: Vec<crate::approvals::Folded>) {
        let mut map = self.folded_map();
        let entry = map.entry(tid.to_string()).or_default();
        if entry.generation == generation {
            entry.folded = Some(folded);
        }
    }

    /// `tid`'s journal got an approval record: read it again next time.
    pub fn forget(&self, tid: &str) {
        let mut map = self.folded_map();
        let entry = map.entry(tid.to_string()).or_default();
        entry.generation += 1;
        entry.folded = None;
    }
}

/// A terminal's requests as last read, and how many records were journalled since it began.
#[derive(Default)]
struct Folded {
    generation: u64,
    folded: Option<Vec<crate::approvals::Folded>>,
}

/// One connection owing its client a final reply, counted while it lives
/// ([`Server::answering`]).
pub struct Answering(tokio::sync::watch::Sender<usize>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Server {
    pub fn new(store: Store, config: Config) -> Server {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        let env_dir = |k: &str, fallback: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join(fallback))
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let starts =
            super::starting::Starts::new(super::starting::cap(config.limits.starting, cores));
        Server {
            store,
            config,
            homes: ProviderHomes {
                claude: env_dir("CLAUDE_CONFIG_DIR", ".claude"),
                codex: env_dir("CODEX_HOME", ".codex"),
            },
            path_var: std::env::var_os("PATH"),
            started: Instant::now(),
            shutting_down: AtomicBool::new(false),
            watch: tokio::sync::broadcast::channel(WATCH_BUFFER).0,
            files: Mutex::new(None),
            web: crate::web::Slot::default(),
            changes: std::sync::OnceLock::new(),
            fence_checks: Default::default(),
            runtimes: Mutex::new(HashMap::new()),
            shells: super::shell::Shells::default(),
            warm: Default::default(),
            starts,
            approvals: Default::default(),
            answering: tokio::sync::watch::channel(0).0,
        }
    }

    /// Counts a connection as owing its client a final reply until the guard drops.
    pub fn answering(&self) -> Answering {
        self.answering.send_modify(|n| *n += 1);
        Answering(self.answering.clone())
    }

    /// Waits until no connection owes its client a final reply.
    pub async fn all_answered(&self) {
        let mut rx = self.answering.subscribe();
        let _ = rx.wait_for(|n| *n == 0).await;
    }

    pub fn runtime(&self, tid: &str) -> Arc<TermRuntime> {
        let mut map = self.runtimes.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(tid.to_string()).or_default().clone()
    }

    pub fn all_runtimes(&self) -> Vec<(String, Arc<TermRuntime>)> {
        let map = self.runtimes.lock().unwrap_or_else(|p| p.into_inner());
        map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// The terminal called `name`, or the error that says how to find one.
    pub fn terminal(&self, name: &str) -> Result<TerminalRow, BatonError> {
        let Some(tid) = self.store.terminal_id(name)? else {
            let known = self.store.terminals()?;
            let names = known
                .iter()
                .filter(|t| !t.removing)
                .map(|t| t.name.as_str());
            return Err(match crate::suggest::closest(name, names) {
                Some(close) => BatonError::bad_input(format!(
                    "no terminal named {name:?}: did you mean {close:?}? (see `baton ls`)"
                )),
                None => BatonError::unknown_terminal(name),
            });
        };
        let t = self
            .store
            .terminal(&tid)?
            .ok_or_else(|| BatonError::unknown_terminal(name))?;
        if t.removing {
            return Err(BatonError::bad_input(format!(
                "{name} is being removed (a removal cut short is finished by the next server start or `baton reindex`)"
            )));
        }
        Ok(t)
    }

    /// The CLI binary for `kind`, or the error naming how to install or configure it.
    pub fn resolve_bin(&self, kind: ProviderKind) -> Result<PathBuf, BatonError> {
        let bin = crate::providers::of(kind).bin(&self.config);
        process::find_bin(&bin, self.path_var.as_deref()).ok_or_else(|| {
            BatonError::bad_input(format!(
                "{kind} was not found ({bin} is not on the server's PATH): install it with `{}`, or set providers.{kind}.bin in baton's config.toml",
                kind.install_hint()
            ))
        })
    }

    /// Starts watching a terminal's folder or worktree (best effort: every send checks anyway).
    pub fn watch_files(&self, t: &TerminalRow) {
        let files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        let Some(w) = files.as_ref() else {
            return;
        };
        let added = match (&t.mode, &t.worktree) {
            (crate::words::CheckoutMode::Folder, _) => w.add_folder(Path::new(&t.source)),
            (crate::words::CheckoutMode::Worktree, Some(wt)) => w.add_worktree(wt),
            _ => Ok(()),
        };
        if let Err(e) = added {
            crate::log_line!("baton server: not watching {}: {e}", t.dir);
        }
    }

    /// The terminals the file watcher's `key` is about.
    pub fn watched_by(&self, key: &Path) -> Vec<TerminalRow> {
        let mut all = self.store.terminals().unwrap_or_default();
        all.retain(|t| watched_path(t).is_some_and(|p| crate::git::Watch::key(p) == key));
        all
    }

    pub fn screenshots(&self, tid: &str) -> PathBuf {
        self.store.data_dir().screenshots(tid)
    }

    /// Where a run's system-text file is kept while the run goes on (`providers::system_file`).
    pub fn run_dir(&self, tid: &str) -> PathBuf {
        self.store.data_dir().terminal(tid).join("runs")
    }

    pub fn turn_file(&self, tid: &str, turn: &str) -> PathBuf {
        self.store.data_dir().turn_file(tid, turn)
    }

    pub fn data_root(&self) -> &Path {
        &self.store.data_dir().root
    }
}

/// Where the file watcher looks for terminal `t`'s checkout (None: it is not watched): a
/// plain folder for the repository it may become, a worktree for moves and removal.
pub fn watched_path(t: &TerminalRow) -> Option<&Path> {
    match (&t.mode, &t.worktree) {
        (crate::words::CheckoutMode::Folder, _) => Some(Path::new(&t.source)),
        (crate::words::CheckoutMode::Worktree, Some(wt)) => Some(&wt.path),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Inbox;

    #[test]
    fn a_read_that_a_journalled_record_overtook_is_not_kept() {
        let inbox = Inbox::default();
        // Read, kept: served from memory.
        let g = inbox.folded("t").unwrap_err();
        inbox.keep("t", g, vec![]);
        assert_eq!(inbox.folded("t"), Ok(vec![]));
        // A record journalled: read again.
        inbox.forget("t");
        let g = inbox.folded("t").unwrap_err();
        // A record journalled while that read ran: what it read may miss it, and is dropped.
        inbox.forget("t");
        inbox.keep("t", g, vec![]);
        assert!(inbox.folded("t").is_err());
    }
}
