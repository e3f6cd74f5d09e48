//! Opening the index file, and moving an unreadable one aside. The index is only a cache of the
//! journals, so a file SQLite cannot read (overwritten, truncated, not a database) is never a
//! reason to stop: it is renamed to `index.db.unreadable-<UTC time>` (kept, 0600, for a look
//! at what happened), with its WAL and shared-memory files, and a new index is rebuilt from the
//! journals. Anything else (a full disk, no permission) is still an error.

use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode};

use crate::paths::touch_private;

/// A connection to the index at `path` in the mode baton uses (WAL), with its schema version.
pub fn connect(path: &Path) -> rusqlite::Result<(Connection, i32)> {
    let conn = Connection::open(path)?;
    conn.set_prepared_statement_cache_capacity(super::cached::CACHE);
    // The bundled SQLite plans with STAT4, which re-prepares a cached statement at its every
    // step once a parameter is bound; a stable plan keeps it prepared (super::cached).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    let found = super::index::schema_version(&conn)?;
    Ok((conn, found))
}

/// True when `e` says the file is not a readable SQLite database.
pub fn unreadable(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
    )
}

/// Renames the index at `path` (and its `-wal`/`-shm` files) aside and creates an empty one
/// (0600) in its place, saying so on stderr (the server's log) with `why`; returns where the
/// old one went.
pub fn move_aside(path: &Path, why: &rusqlite::Error) -> std::io::Result<PathBuf> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ");
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "index.db".to_string());
    let aside = path.with_file_name(format!("{name}.unreadable-{stamp}"));
    std::fs::rename(path, &aside)?;
    for ext in ["-wal", "-shm"] {
        let side = path.with_file_name(format!("{name}{ext}"));
        if side.exists() {
            std::fs::rename(
                &side,
                aside.with_file_name(format!("{name}.unreadable-{stamp}{ext}")),
            )?;
        }
    }
    touch_private(path)?;
    crate::log_line!(
        "baton: the index {} was unreadable ({why}): moved to {} and rebuilt from the journals",
        path.display(),
        aside.display()
    );
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    use super::super::cached::Cached;
    use super::*;

    #[test]
    fn a_cached_statement_stays_prepared_whatever_it_is_bound_to() {
        let dir = tempfile::tempdir().unwrap();
        let (conn, _) = connect(&dir.path().join("index.db")).unwrap();
        conn.execute_batch("CREATE TABLE t (k TEXT, n INTEGER); CREATE INDEX t_by_k ON t (k, n);")
            .unwrap();
        for (k, n) in [("a", 1), ("a", 2), ("b", 3)] {
            conn.exec("INSERT INTO t VALUES (?1, ?2)", (k, n)).unwrap();
        }
        let sql = "SELECT n FROM t WHERE k = ?1 AND n > ?2 ORDER BY n";
        for (k, after, found) in [("a", 0, vec![1, 2]), ("b", 0, vec![3]), ("a", 1, vec![2])] {
            let mut s = conn.prepare_cached(sql).unwrap();
            let got: Vec<i64> = s
                .query_map((k, after), |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert_eq!(got, found);
            assert_eq!(s.get_status(StatementStatus::RePrepare), 0, "{k} {after}");
        }
    }
}
