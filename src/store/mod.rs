//! Storage: a journal per terminal (the truth) and a SQLite index (for speed), kept in that
//! order: every change is appended and synced to the journal before the index is updated. The
//! index is only a cache: one of another schema version is rebuilt from the journals at open.

mod behind;
mod cached;
pub mod check;
pub mod index;
mod inputs;
pub mod journal;
mod life;
mod listing;
mod open;
mod purge;
pub mod records;
mod repair;
mod snapshot;
mod views;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;

pub use inputs::InputRow;
pub use listing::{Listed, ListedConversation};
pub use records::{
    now_stamp, Entry, ForkLink, IdKind, ImportedFrom, Record, Repointed, SessionFork,
};
pub use repair::recovered_name;
pub use snapshot::Snapshot;
pub use views::{
    ConversationView, InstructionView, PendingRemoval, SessionView, TerminalRow, TurnView,
    TurnsSummary,
};

use crate::error::BatonError;
use crate::paths::{ensure_private_dir, touch_private, DataDir};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot write the journal {path}: {source} (is the disk full or read-only?)")]
    Journal {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the journal {path}: {source}")]
    JournalRead {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the index {path} failed: {source} (run `baton reindex` to rebuild it from the journals)"
    )]
    Index {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot open baton's data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub type Result<T> = std::result::Result<T, StoreError>;

// Here rather than in `error`, so the error module stays a leaf that depends on no layer.
impl From<StoreError> for BatonError {
    fn from(e: StoreError) -> Self {
        BatonError::failed(e.to_string())
    }
}

/// What `reindex` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReindexReport {
    pub terminals: usize,
    pub entries: usize,
    /// Lines that could not be read, as `journal:line: why` (a torn last line after a crash).
    pub skipped: Vec<String>,
    /// Pruned terminals whose folder a crash had left: deleted now (by id).
    pub purged: Vec<String>,
}

/// `records` as entries of one moment.
fn stamped(records: Vec<Record>) -> Vec<Entry> {
    let at = now_stamp();
    records
        .into_iter()
        .map(|record| Entry {
            at: at.clone(),
            record,
        })
        .collect()
}

/// How often a stale index is rebuilt at most (see [`Store::append`]).
const REBUILD_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// One terminal's id and its journal's entries, oldest first.
type Journal = (String, Vec<Entry>);

/// A journal just written to ([`Store::write_journal`]), not yet synced.
struct Written {
    path: PathBuf,
    file: std::fs::File,
}

impl Written {
    fn sync(self) -> Result<()> {
        self.file.sync_data().map_err(|source| StoreError::Journal {
            path: self.path,
            source,
        })
    }
}

pub struct Store {
    dir: DataDir,
    conn: Mutex<Connection>,
    /// An index write failed after its journal append: the index misses entries until it is
    /// rebuilt, which the next use of the store tries first.
    stale: AtomicBool,
    /// When a rebuild of a stale index was last tried: a full disk makes every try read every
    /// journal, so they are spaced by [`REBUILD_EVERY`].
    rebuilt_at: Mutex<Option<std::time::Instant>>,
    /// Entries journalled by [`Store::append_unindexed`] whose index write waits: the next use
    /// of the index applies them first ([`Store::conn`]), so no reader sees the index without
    /// them. Pushed and taken under the `conn` lock, so the index applies them in order.
    unindexed: Mutex<Vec<Journal>>,
    /// Journals [`Store::append_unsynced`] wrote and has not synced yet: the next use of the
    /// index syncs them before it applies their entries, so the index never holds an entry
    /// its journal may not keep.
    unsynced: Mutex<Vec<Written>>,
    /// Listings of terminals unchanged since they were read ([`listing::Kept`]); used and
    /// changed under the `conn` lock.
    kept: Mutex<listing::Kept>,
    /// Fault injection for the tests (`BATON_FAULT_INDEX=PATH`): while `PATH` exists, index
    /// writes fail as on a full disk. Never set in normal use.
    fault: Option<PathBuf>,
}

impl Store {
    pub fn open(dir: DataDir) -> Result<Store> {
        dir.ensure().map_err(|source| StoreError::DataDir {
            path: dir.root.clone(),
            source,
        })?;
        let path = dir.index_db();
        // Created 0600 before SQLite opens it; SQLite gives its WAL files the same mode.
        touch_private(&path).map_err(|source| StoreError::DataDir {
            path: path.clone(),
            source,
        })?;
        let ix = |source| StoreError::Index {
            path: path.clone(),
            source,
        };
        let (conn, found) = match open::connect(&path) {
            Err(e) if open::unreadable(&e) => {
                open::move_aside(&path, &e).map_err(|source| StoreError::DataDir {
                    path: path.clone(),
                    source,
                })?;
                open::connect(&path).map_err(ix)?
            }
            other => other.map_err(ix)?,
        };
        let store = Store {
            dir,
            conn: Mutex::new(conn),
            stale: AtomicBool::new(false),
            rebuilt_at: Mutex::new(None),
            unindexed: Mutex::new(Vec::new()),
            unsynced: Mutex::new(Vec::new()),
            kept: Mutex::new(listing::Kept::default()),
            fault: std::env::var_os("BATON_FAULT_INDEX").map(PathBuf::from),
        };
        match index::on_open(found) {
            index::OnOpen::Keep => {}
            // Lines it skips are reported by the `reindex` the server runs after opening.
            index::OnOpen::Rebuild => {
                store.reindex()?;
            }
        }
        Ok(store)
    }

    pub fn data_dir(&self) -> &DataDir {
        &self.dir
    }

    /// The index, rebuilt first if a write to it failed earlier (best effort: if it cannot be
    /// rebuilt yet, it is used as it is and the next use tries again).
    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (transactions roll
        // back), so a poisoned lock is still safe to use.
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if self.stale.load(Ordering::SeqCst) && !self.faulty() && self.time_to_rebuild() {
            match self.rebuild(&mut conn) {
                Ok(_) => self.stale.store(false, Ordering::SeqCst),
                Err(e) => crate::log_line!("baton: the index is behind its journals: {e}"),
            }
        }
        self.sync_written();
        let waiting = std::mem::take(&mut *self.unindexed_lock());
        for (tid, entries) in waiting {
            self.index_entries(&mut conn, &tid, &entries);
        }
        conn
    }

    /// False while the index misses journal entries (a write to it failed and it could not be
    /// rebuilt yet). Tries the rebuild first.
    pub fn index_current(&self) -> bool {
        drop(self.conn());
        !self.stale.load(Ordering::SeqCst)
    }

    fn time_to_rebuild(&self) -> bool {
        let mut at = self.rebuilt_at.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::time::Instant::now();
        if at.is_some_and(|t| now.duration_since(t) < REBUILD_EVERY) {
            return false;
        }
        *at = Some(now);
        true
    }

    fn faulty(&self) -> bool {
        self.fault.as_ref().is_some_and(|p| p.exists())
    }

    fn index_err(&self, source: rusqlite::Error) -> StoreError {
        StoreError::Index {
            path: self.dir.index_db(),
            source,
        }
    }

    /// Journals `record` for terminal `tid` (synced), then applies it to the index. Once the
    /// journal has it, the record is kept and this succeeds: an index write that fails then
    /// leaves the index stale, rebuilt from the journals at the next use (the journal is the
    /// truth; the index only speeds up reading it).
    pub fn append(&self, tid: &str, record: Record) -> Result<Entry> {
        let entry = Entry {
            at: now_stamp(),
            record,
        };
        let mut conn = self.journal(tid, std::slice::from_ref(&entry))?;
        self.index_entries(&mut conn, tid, std::slice::from_ref(&entry));
        Ok(entry)
    }

    /// Journals `records` for terminal `tid` as [`Store::append`] does (in one write, synced
    /// once) but leaves their index write to the next use of the index or [`Store::settle`]:
    /// for a caller that tells a client first (a turn's end reaches its `send` before the
    /// index write). A crash before the index write loses nothing: the server's start
    /// rebuilds the index from the journals.
    pub fn append_unindexed(&self, tid: &str, records: Vec<Record>) -> Result<()> {
        let entries = stamped(records);
        let _conn = self.journal(tid, &entries)?;
        self.unindexed_lock().push((tid.to_string(), entries));
        Ok(())
    }

    /// [`Store::append_unindexed`], its sync left to the next use of the index too (which
    /// syncs before it applies): for a turn's end, whose client gets its reply first. The
    /// lines are written before this returns, so a crash of the server loses none of them;
    /// only a crash of the machine before the sync can, and then the server's start closes
    /// the turn from what its journal and raw stream kept (`server::recover`).
    pub fn append_unsynced(&self, tid: &str, records: Vec<Record>) -> Result<()> {
        let entries = stamped(records);
        let (_conn, written) = self.write_journal(tid, &entries)?;
        self.unsynced_lock().push(written);
        self.unindexed_lock().push((tid.to_string(), entries));
        Ok(())
    }

    /// Writes `record` to terminal `tid`'s journal at once, neither synced nor indexed, and
    /// leaves no sync owed (its index write waits as [`Store::append_unindexed`]'s): for
    /// `turn_prompted`, which must be in the file right before a prompt goes out, with
    /// nothing slow between the two (no index write, no sync). A crash of the server keeps
    /// it; a crash of the machine may lose it, and recovery after a reboot does not rely on
    /// its absence (`server::recover`).
    pub fn append_mark(&self, tid: &str, record: Record) -> Result<()> {
        let entries = stamped(vec![record]);
        // The lock alone (not `conn`, which would apply waiting index writes first): one
        // writer at a time, and the entry queued for the index in journal order.
        let _lock = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let path = self.dir.journal(tid);
        journal::write(&path, &entries).map_err(|source| StoreError::Journal { path, source })?;
        self.unindexed_lock().push((tid.to_string(), entries));
        Ok(())
    }

    /// Syncs and writes to the index what [`Store::append_unindexed`] and
    /// [`Store::append_unsynced`] left.
    pub fn settle(&self) {
        drop(self.conn());
    }

    /// Syncs the journals [`Store::append_unsynced`] wrote (called under the index's lock). A
    /// sync that fails is logged: the entries are in the file, which every reader (and a
    /// rebuild) reads, so the index takes them as it would have.
    fn sync_written(&self) {
        for written in std::mem::take(&mut *self.unsynced_lock()) {
            if let Err(e) = written.sync() {
                crate::log_line!("baton: {e}");
            }
        }
    }

    fn unsynced_lock(&self) -> MutexGuard<'_, Vec<Written>> {
        self.unsynced.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Journals `entries` of terminal `tid` (one write, synced), returning the index's lock,
    /// which the caller holds until they are indexed (or queued for it).
    fn journal(&self, tid: &str, entries: &[Entry]) -> Result<MutexGuard<'_, Connection>> {
        let (conn, file) = self.write_journal(tid, entries)?;
        file.sync()?;
        Ok(conn)
    }

    /// Writes `entries` of terminal `tid` to its journal (one write, not synced), returning
    /// the index's lock and the journal's file, for the caller to sync.
    fn write_journal(
        &self,
        tid: &str,
        entries: &[Entry],
    ) -> Result<(MutexGuard<'_, Connection>, Written)> {
        self.ensure_terminal_dirs(tid)?;
        // One writer at a time for journal and index together, so both see changes in the
        // same order and a rebuilt index matches the live one.
        let conn = self.conn();
        let path = self.dir.journal(tid);
        match journal::write(&path, entries) {
            Ok(file) => Ok((conn, Written { path, file })),
            Err(source) => Err(StoreError::Journal { path, source }),
        }
    }

    fn kept_lock(&self) -> MutexGuard<'_, listing::Kept> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn unindexed_lock(&self) -> MutexGuard<'_, Vec<Journal>> {
        self.unindexed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Creates terminal `tid` with `records`, all or nothing (`journal::create`), then applies
    /// them to the index in one transaction. A crash leaves the whole terminal or none of it.
    pub fn create(&self, tid: &str, records: Vec<Record>) -> Result<Vec<Entry>> {
        self.create_after(tid, &[], records)
    }

    /// Creates terminal `tid` from another data directory's journal `head` (whole lines, kept
    /// byte for byte) followed by `records`, all or nothing, then indexes the whole journal.
    pub fn create_imported(&self, tid: &str, head: &[u8], records: Vec<Record>) -> Result<()> {
        self.create_after(tid, head, records).map(drop)
    }

    /// [`Store::create`] after `head`; returns the entries of `records`.
    fn create_after(&self, tid: &str, head: &[u8], records: Vec<Record>) -> Result<Vec<Entry>> {
        let entries = stamped(records);
        self.ensure_terminal_dirs(tid)?;
        let mut conn = self.conn();
        let jpath = self.dir.journal(tid);
        journal::create_after(&jpath, head, &entries).map_err(|source| StoreError::Journal {
            path: jpath.clone(),
            source,
        })?;
        let mut all = journal::parse(head).entries;
        all.extend(entries.iter().cloned());
        self.index_entries(&mut conn, tid, &all);
        Ok(entries)
    }

    /// Terminal `tid`'s journal as it is on disk, whole lines only, read while no append runs
    /// ([`Store::append`] holds the same lock), so the copy holds no half-written record.
    pub fn journal_snapshot(&self, tid: &str) -> Result<Vec<u8>> {
        let _writers = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let path = self.dir.journal(tid);
        let bytes =
            std::fs::read(&path).map_err(|source| StoreError::JournalRead { path, source })?;
        Ok(journal::whole_lines(&bytes).to_vec())
    }

    fn ensure_terminal_dirs(&self, tid: &str) -> Result<()> {
        let tdir = self.dir.terminal(tid);
        for d in [tdir.clone(), tdir.join("turns"), tdir.join("screenshots")] {
            ensure_private_dir(&d).map_err(|source| StoreError::Journal {
                path: d.clone(),
                source,
            })?;
        }
        Ok(())
    }

    /// Applies journalled `entries` of terminal `tid` in one transaction. A failure leaves the
    /// index stale (rebuilt from the journals at its next use), never the journal.
    fn index_entries(&self, conn: &mut Connection, tid: &str, entries: &[Entry]) {
        let indexed = if self.faulty() {
            Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
                Some("BATON_FAULT_INDEX".to_string()),
            ))
        } else {
            conn.transaction().and_then(|tx| {
                for e in entries {
                    index::apply(&tx, tid, e)?;
                }
                tx.commit()
            })
        };
        self.kept_lock().forget(tid);
        if let Err(e) = indexed {
            self.stale.store(true, Ordering::SeqCst);
            crate::log_line!(
                "baton: {} (the journal has the change; the index is rebuilt at its next use)",
                self.index_err(e)
            );
        }
    }

    /// Rebuilds the whole index from the journals: drops its tables, creates this build's
    /// schema and applies every journal, all in one transaction that also stamps the schema
    /// version (a crash before the commit leaves the old index, rebuilt again next open).
    pub fn reindex(&self) -> Result<ReindexReport> {
        // Held while reading too: an entry appended after the read would be lost by the rebuild.
        let mut conn = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let report = match self.rebuild(&mut conn) {
            // The file went bad under a running server: a new one, rebuilt.
            Err(StoreError::Index { source, .. }) if open::unreadable(&source) => {
                let path = self.dir.index_db();
                open::move_aside(&path, &source).map_err(|source| StoreError::DataDir {
                    path: path.clone(),
                    source,
                })?;
                *conn = open::connect(&path).map_err(|e| self.index_err(e))?.0;
                self.rebuild(&mut conn)?
            }
            other => other?,
        };
        self.stale.store(false, Ordering::SeqCst);
        Ok(report)
    }

    fn rebuild(&self, conn: &mut Connection) -> Result<ReindexReport> {
        // Their journals have them (synced first): the rebuild reads them there.
        self.sync_written();
        self.unindexed_lock().clear();
        self.kept_lock().clear();
        let report = fill(&self.dir, conn)?;
        for tid in &report.purged {
            self.delete_folder(tid);
        }
        Ok(report)
    }

    /// The whole index as text in a stable order (tests compare it across `reindex`).
    pub fn dump(&self) -> Result<String> {
        index::dump(&self.conn()).map_err(|e| self.index_err(e))
    }

    pub fn terminal_id(&self, name: &str) -> Result<Option<String>> {
        index::terminal_id(&self.conn(), name).map_err(|e| self.index_err(e))
    }

    /// The endpoint terminal `tid` last chose for `local`, even after a switch to another
    /// provider (`None`: it never named one, or there is no such terminal).
    pub fn last_local_endpoint(&self, tid: &str) -> Result<Option<String>> {
        index::last_local_endpoint(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    pub fn terminals(&self) -> Result<Vec<TerminalRow>> {
        views::terminals(&self.conn()).map_err(|e| self.index_err(e))
    }

    pub fn terminal(&self, tid: &str) -> Result<Option<TerminalRow>> {
        views::terminal(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    pub fn live_conversation(&self, tid: &str) -> Result<Option<ConversationView>> {
        views::live_conversation(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    pub fn conversations(&self, tid: &str) -> Result<Vec<ConversationView>> {
        views::conversations(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    pub fn sessions(&self, conversation_id: &str) -> Result<Vec<SessionView>> {
        views::sessions(&self.conn(), conversation_id).map_err(|e| self.index_err(e))
    }

    /// A session's pinned model and the standing instructions its system text adds to its
    /// conversation's (defaults when the index does not have it).
    pub fn session(&self, conversation_id: &str, session_id: &str) -> Result<views::SessionKept> {
        views::session(&self.conn(), conversation_id, session_id)
            .map(Option::unwrap_or_default)
            .map_err(|e| self.index_err(e))
    }

    pub fn turns(&self, tid: &str) -> Result<Vec<TurnView>> {
        views::turns(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    /// Count, latest turn and the live conversation's last context, without the history.
    /// Turn `number` of terminal `tid` (one row, not the whole history).
    pub fn turn(&self, tid: &str, number: u32) -> Result<Option<TurnView>> {
        views::turn(&self.conn(), tid, number).map_err(|e| self.index_err(e))
    }

    pub fn turns_summary(&self, tid: &str, conversation_id: Option<&str>) -> Result<TurnsSummary> {
        views::turns_summary(&self.conn(), tid, conversation_id).map_err(|e| self.index_err(e))
    }

    /// The latest context and provider session of a conversation (the send path's facts).
    pub fn conversation_state(&self, conversation_id: &str) -> Result<views::ConversationState> {
        views::conversation_state(&self.conn(), conversation_id).map_err(|e| self.index_err(e))
    }

    /// The terminal that holds the turn, conversation or terminal with id `id` here (an
    /// import refuses a journal whose ids are taken: the index would move those rows).
    pub fn id_holder(&self, kind: IdKind, id: &str) -> Result<Option<String>> {
        views::id_holder(&self.conn(), kind, id).map_err(|e| self.index_err(e))
    }

    /// Turns that started but never finished (the server died under them).
    pub fn unfinished_turns(&self) -> Result<Vec<(String, String)>> {
        views::unfinished_turns(&self.conn()).map_err(|e| self.index_err(e))
    }

    pub fn instructions(&self, tid: &str) -> Result<Vec<InstructionView>> {
        views::instructions(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    /// Terminal `tid`'s waiting input, in the order it will run.
    pub fn waiting_inputs(&self, tid: &str) -> Result<Vec<InputRow>> {
        inputs::waiting(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    /// Input `n` of terminal `tid`, whatever became of it.
    pub fn input(&self, tid: &str, n: u32) -> Result<Option<InputRow>> {
        inputs::input(&self.conn(), tid, n).map_err(|e| self.index_err(e))
    }

    /// The highest input number terminal `tid` used (0: none yet).
    pub fn last_input_number(&self, tid: &str) -> Result<u32> {
        inputs::last_number(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    /// Terminal `tid`'s journal entries, oldest first (a torn line is left out).
    pub fn entries(&self, tid: &str) -> Result<Vec<Entry>> {
        let path = self.dir.journal(tid);
        journal::read(&path)
            .map(|r| r.entries)
            .map_err(|source| StoreError::JournalRead { path, source })
    }

    /// The time of terminal `tid`'s latest journal entry (its last activity).
    pub fn active_at(&self, tid: &str) -> Result<Option<String>> {
        views::active_at(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    /// Deletes removed terminal `tid`'s folder (`terminals/<id>/`), under the index's lock so
    /// no rebuild reads it half gone. Best effort: what is left is deleted by the next rebuild
    /// (see `purge.rs`), and said in the server's log.
    pub fn purge(&self, tid: &str) {
        let _conn = self.conn();
        self.delete_folder(tid);
    }

    fn delete_folder(&self, tid: &str) {
        let dir = self.dir.terminal(tid);
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => crate::log_line!(
                "baton: cannot delete {}: {e} (tried again at the next server start or `baton reindex`)",
                dir.display()
            ),
        }
    }

    /// Removals that started and never finished (a crash cut them short).
    pub fn pending_removals(&self) -> Result<Vec<PendingRemoval>> {
        views::pending_removals(&self.conn()).map_err(|e| self.index_err(e))
    }

    /// The terminals forked (or rewound) from terminal `tid`, oldest first.
    pub fn forks(&self, tid: &str) -> Result<Vec<records::ForkLink>> {
        views::forks(&self.conn(), tid).map_err(|e| self.index_err(e))
    }

    /// The highest turn number terminal `tid` used (0: none yet).
    pub fn last_turn_number(&self, tid: &str) -> Result<u32> {
        views::last_turn_number(&self.conn(), tid).map_err(|e| self.index_err(e))
    }
}

/// Refills the index `conn` from the journals of `dir`: drops its tables, creates this build's
/// schema and applies every journal, all in one transaction that also stamps the schema version.
fn fill(dir: &DataDir, conn: &mut Connection) -> Result<ReindexReport> {
    let ix = |source| StoreError::Index {
        path: dir.index_db(),
        source,
    };
    let (journals, mut report) = read_journals(dir)?;
    let tx = conn.transaction().map_err(ix)?;
    index::recreate_schema(&tx).map_err(ix)?;
    for (tid, entries) in &journals {
        report.terminals += 1;
        for e in entries {
            index::apply(&tx, tid, e).map_err(ix)?;
            report.entries += 1;
        }
    }
    tx.commit().map_err(ix)?;
    Ok(report)
}

/// Every terminal's journal entries in `dir`, by terminal id, and the lines that could not be
/// read.
fn read_journals(dir: &DataDir) -> Result<(Vec<Journal>, ReindexReport)> {
    let mut report = ReindexReport::default();
    let mut journals = Vec::new();
    let tdir = dir.terminals();
    let read_dir = match std::fs::read_dir(&tdir) {
        Ok(r) => r,
        // No terminal was ever created here: no journals (`baton doctor` reads such a folder).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((journals, report)),
        Err(source) => {
            return Err(StoreError::DataDir {
                path: tdir.clone(),
                source,
            })
        }
    };
    for ent in read_dir.flatten() {
        let path = ent.path().join("journal.jsonl");
        let tid = ent.file_name().to_string_lossy().into_owned();
        if path.is_file() {
            let read = journal::read(&path).map_err(|source| StoreError::JournalRead {
                path: path.clone(),
                source,
            })?;
            for (line, why) in &read.skipped {
                report
                    .skipped
                    .push(format!("{}:{line}: {why}", path.display()));
            }
            let mut entries = read.entries;
            // A pruned terminal whose folder a crash left: not indexed (`rebuild` deletes it).
            if purge::finished(&entries) {
                report.purged.push(tid);
                continue;
            }
            if let Some(created) = repair::stand_in_created(&tid, &entries) {
                report.skipped.push(format!(
                    "{}: its first record is unreadable: the terminal is listed as {} (rename it with `baton rename`)",
                    path.display(),
                    repair::recovered_name(&tid)
                ));
                let at = entries.first().map(|e| e.at.clone()).unwrap_or_default();
                entries.insert(
                    0,
                    Entry {
                        at,
                        record: created,
                    },
                );
            }
            journals.push((tid, entries));
        }
    }
    journals.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((journals, report))
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
