//! Opening the index file, and moving an unreadable one aside. The index is only a cache of the
//! journals, so a file SQLite cannot read (overwritten, truncated, not a database) is never a
//! reason to stop: it is renamed to `index.db.unreadable-<UTC time>` (kept, 0600, for a look
//! at what happened), with its WAL and shared-memory files, and a new index is rebuilt from the
//! journals. Anything else (a full disk, no permission) is still an error.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode};

use crate::paths::touch_private;

/// A connection to the index at `path` in the mode baton uses (WAL), with its schema version.
pub fn connect(path: &Path) -> rusqlite::Result<(Connection, i32)> {
    let conn = Connection::open(path)?;
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
