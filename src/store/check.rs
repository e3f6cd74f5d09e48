//! Read-only checks of the index against the journals, for `baton doctor`. The index the
//! journals call for is rebuilt in memory (by the same `fill` that `reindex` runs) and compared
//! row by row with the one on disk, which is only ever read: opened read-only while a server
//! runs (its WAL and shared-memory files exist; like any reader, the connection only takes its
//! read mark in the shared memory), else through a private copy, so SQLite leaves no WAL,
//! shared-memory or lock file behind in the data directory. Nothing else there changes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::{fill, index, views, PendingRemoval, ReindexReport, Result, StoreError, TerminalRow};
use crate::paths::DataDir;

/// What the index on disk is, against what the journals say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// No `index.db` at all.
    Missing,
    /// Not a database SQLite can read (overwritten, truncated), or not a regular file.
    Unreadable {
        why: String,
    },
    /// Written by another schema version (the next open rebuilds it).
    OtherVersion {
        found: i32,
    },
    /// Readable, but it does not hold what the journals say: which counts differ, and the ids
    /// of the terminals whose rows differ.
    Behind {
        detail: String,
        terminals: Vec<String>,
    },
    Current,
}

/// The index rebuilt in memory from the journals.
pub struct Expected {
    conn: Connection,
    /// What the rebuild read (the unreadable lines it skipped).
    pub report: ReindexReport,
}

/// The tables whose row counts a mismatch is described by.
const COUNTED: [&str; 4] = ["terminals", "conversations", "turns", "instructions"];

impl Expected {
    pub fn build(dir: &DataDir) -> Result<Expected> {
        let mut conn = Connection::open_in_memory().map_err(|source| StoreError::Index {
            path: PathBuf::from(":memory:"),
            source,
        })?;
        let report = fill(dir, &mut conn)?;
        Ok(Expected { conn, report })
    }

    /// The terminals the journals list (removed ones left out), as the index would.
    pub fn terminals(&self) -> Result<Vec<TerminalRow>> {
        views::terminals(&self.conn).map_err(|source| StoreError::Index {
            path: PathBuf::from(":memory:"),
            source,
        })
    }

    /// Removals the journals started and never finished (a crash cut them short).
    pub fn pending_removals(&self) -> Result<Vec<PendingRemoval>> {
        views::pending_removals(&self.conn).map_err(|source| StoreError::Index {
            path: PathBuf::from(":memory:"),
            source,
        })
    }

    /// The index of `dir` against this one. `live`: a server runs and may write meanwhile, so
    /// a difference is read again (twice) before it counts.
    pub fn compare(&self, dir: &DataDir, live: bool) -> IndexState {
        let tries = if live { 3 } else { 1 };
        let mut state = IndexState::Current;
        for _ in 0..tries {
            state = self.compare_once(&dir.index_db(), live);
            if !matches!(state, IndexState::Behind { .. }) {
                break;
            }
        }
        state
    }

    fn compare_once(&self, path: &Path, live: bool) -> IndexState {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return IndexState::Missing,
            Err(e) => return unreadable(e),
            Ok(m) if !m.is_file() => {
                return unreadable("it is not a regular file (see the permissions check)")
            }
            Ok(_) => {}
        }
        let copy;
        let conn = if live {
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        } else {
            copy = match PrivateCopy::of(path) {
                Ok(c) => c,
                Err(e) => return unreadable(e),
            };
            Connection::open(copy.db())
        };
        let conn = match conn {
            Ok(c) => c,
            Err(e) => return unreadable(e),
        };
        match index::schema_version(&conn) {
            Ok(found) if found != index::SCHEMA_VERSION => {
                return IndexState::OtherVersion { found }
            }
            Ok(_) => {}
            Err(e) => return unreadable(e),
        }
        let (have, want) = match (index::dump(&conn), index::dump(&self.conn)) {
            (Ok(h), Ok(w)) => (h, w),
            (Err(e), _) | (_, Err(e)) => return unreadable(e),
        };
        if have == want {
            return IndexState::Current;
        }
        IndexState::Behind {
            detail: behind_detail(counts(&conn), counts(&self.conn)),
            terminals: differing_terminals(&have, &want),
        }
    }
}

fn unreadable(e: impl ToString) -> IndexState {
    IndexState::Unreadable { why: e.to_string() }
}

fn counts(conn: &Connection) -> Vec<i64> {
    COUNTED
        .iter()
        .map(|t| {
            conn.query_row(&format!("SELECT COUNT(*) FROM {t}"), [], |r| r.get(0))
                .unwrap_or(-1)
        })
        .collect()
}

/// Says which counts differ between the index (`have`) and the journals (`want`).
fn behind_detail(have: Vec<i64>, want: Vec<i64>) -> String {
    let differ: Vec<String> = COUNTED
        .iter()
        .zip(have.iter().zip(&want))
        .filter(|(_, (h, w))| h != w)
        .map(|(t, (h, w))| format!("{t}: {h} in the index, {w} in the journals"))
        .collect();
    if differ.is_empty() {
        "the same counts, but rows that differ from what the journals say".to_string()
    } else {
        differ.join("; ")
    }
}

/// The terminal ids named by the dump lines (`index::dump`) that only one side has.
fn differing_terminals(have: &str, want: &str) -> Vec<String> {
    let lines = |d: &str| d.lines().map(String::from).collect::<BTreeSet<String>>();
    let (have, want) = (lines(have), lines(want));
    let ids: BTreeSet<String> = have
        .symmetric_difference(&want)
        .filter_map(|l| terminal_of(l))
        .collect();
    ids.into_iter().collect()
}

/// The terminal a dump line belongs to: its `terminal_id` column, or `id` in `terminals`.
fn terminal_of(line: &str) -> Option<String> {
    let key = if line.starts_with("terminals|") {
        "|id=Text(\""
    } else {
        "|terminal_id=Text(\""
    };
    let rest = &line[line.find(key)? + key.len()..];
    Some(rest[..rest.find('"')?].to_string())
}

/// `index.db` (and its WAL, if any) copied into a private temporary folder, removed on drop.
struct PrivateCopy {
    dir: PathBuf,
}

impl PrivateCopy {
    fn of(path: &Path) -> std::io::Result<PrivateCopy> {
        use std::os::unix::fs::DirBuilderExt;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir = std::env::temp_dir().join(format!("baton-doctor-{}-{stamp}", std::process::id()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let copy = PrivateCopy { dir };
        std::fs::copy(path, copy.db())?;
        let wal = path.with_file_name("index.db-wal");
        if wal.is_file() {
            std::fs::copy(&wal, copy.dir.join("index.db-wal"))?;
        }
        Ok(copy)
    }

    fn db(&self) -> PathBuf {
        self.dir.join("index.db")
    }
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_difference_names_the_counts_that_differ() {
        assert_eq!(
            behind_detail(vec![2, 3, 5, 1], vec![2, 3, 6, 1]),
            "turns: 5 in the index, 6 in the journals"
        );
        assert_eq!(
            behind_detail(vec![1, 1, 1, 1], vec![1, 1, 1, 1]),
            "the same counts, but rows that differ from what the journals say"
        );
    }

    #[test]
    fn the_terminals_whose_rows_differ_are_named() {
        let have = "terminals|id=Text(\"a\")|name=Text(\"x\")\nturns|id=Text(\"t1\")|terminal_id=Text(\"b\")\n";
        let want = "terminals|id=Text(\"a\")|name=Text(\"y\")\nturns|id=Text(\"t1\")|terminal_id=Text(\"b\")\nturns|id=Text(\"t2\")|terminal_id=Text(\"c\")\n";
        assert_eq!(differing_terminals(have, want), ["a", "c"]);
        assert_eq!(differing_terminals(have, have), Vec::<String>::new());
    }
}
