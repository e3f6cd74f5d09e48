//! One read of the index for a whole request (issue 42): [`Store::snapshot`] holds the index's
//! lock and one read transaction while a request reads many rows (`ls`: five statements a
//! list, [`listing`]). Each statement outside a transaction takes and drops SQLite's locks on
//! its own (about 1,600 `fcntl` calls for an `ls` of 100 terminals when it read eight a
//! terminal); one transaction takes them once, and every row of the answer is read from the
//! same state of the index.

use std::sync::atomic::Ordering;
use std::sync::MutexGuard;

use rusqlite::Connection;

use super::cached::Cached;
use super::listing::{self, Listed};
use super::{inputs, InputRow, Result, Store};

/// The index read in one transaction, rolled back (nothing was written) when dropped. The
/// store's other methods wait until then: do not call them while holding one.
pub struct Snapshot<'a> {
    store: &'a Store,
    conn: MutexGuard<'a, Connection>,
    /// The transaction began (if it could not, each read is a transaction of its own).
    open: bool,
}

impl Store {
    /// The index as it is now, for a request that reads many rows of it ([`Snapshot`]).
    pub fn snapshot(&self) -> Snapshot<'_> {
        let conn = self.conn();
        let open = conn.exec("BEGIN", []).is_ok();
        Snapshot {
            store: self,
            conn,
            open,
        }
    }
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.exec("ROLLBACK", []);
        }
    }
}

impl Snapshot<'_> {
    fn read<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        f(&self.conn).map_err(|e| self.store.index_err(e))
    }

    /// False while the index misses journal entries ([`Store::index_current`], tried when
    /// this snapshot was taken).
    pub fn index_current(&self) -> bool {
        !self.store.stale.load(Ordering::SeqCst)
    }

    pub fn waiting_inputs(&self, tid: &str) -> Result<Vec<InputRow>> {
        self.read(|c| inputs::waiting(c, tid))
    }

    /// Every terminal not being removed (`only`: that one alone), with what a list shows of
    /// it ([`listing::listing`]; terminals unchanged since they were last read, from memory).
    pub fn listing(&self, only: Option<&str>) -> Result<Vec<Listed>> {
        let mut kept = self.store.kept_lock();
        self.read(|c| listing::kept_listing(c, &mut kept, only))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paths::DataDir;
    use crate::words::ProviderKind;

    /// A whole `ls` is one read transaction: its rows agree with each other, and SQLite takes
    /// its file locks once, not per statement (1,600 `fcntl` calls for 100 terminals before).
    #[test]
    fn a_snapshot_reads_in_one_transaction_and_leaves_none_open() {
        let d = tempfile::tempdir().unwrap();
        let store = Store::open(DataDir::new(d.path().to_path_buf())).unwrap();
        store
            .append(
                "T1",
                super::super::tests::created("T1", ProviderKind::Claude, None),
            )
            .unwrap();
        {
            let ix = store.snapshot();
            assert!(ix.open);
            assert!(!ix.conn.is_autocommit(), "reads inside one transaction");
            assert_eq!(ix.listing(None).unwrap().len(), 1);
            assert!(ix.index_current());
        }
        assert!(store.conn().is_autocommit(), "nothing left open");
        assert_eq!(store.terminals().unwrap().len(), 1);
    }
}
