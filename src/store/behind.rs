//! What the journals say while the index is behind them (a write to it failed, a full disk):
//! the waiting input a user is shown (`queue`, `show`, `server status`), which the stale index
//! would count as none. The runner keeps to the index, which it catches up with first.

use rusqlite::Connection;

use super::{index, inputs, InputRow, Result, Store};

impl Store {
    /// Terminal `tid`'s waiting input as its journal says it, in the order it will run: the
    /// journal folded into an index of its own, in memory (so a full disk does not stop it).
    pub fn journalled_waiting(&self, tid: &str) -> Result<Vec<InputRow>> {
        let entries = self.entries(tid)?;
        let ix = |source| self.index_err(source);
        let mut memory = Connection::open_in_memory().map_err(ix)?;
        let tx = memory.transaction().map_err(ix)?;
        index::recreate_schema(&tx).map_err(ix)?;
        for e in &entries {
            index::apply(&tx, tid, e).map_err(ix)?;
        }
        inputs::waiting(&tx, tid).map_err(ix)
    }
}
