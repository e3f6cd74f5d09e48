//! Disk use per terminal: its `terminals/<id>` folder and its worktree, in bytes allocated on
//! disk, walked without following links (information only: nothing here is a fault).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::report::DiskUse;
use crate::paths::DataDir;
use crate::store::TerminalRow;
use crate::words::CheckoutMode;

pub fn measure(data: &DataDir, terminals: &[TerminalRow]) -> Vec<DiskUse> {
    terminals
        .iter()
        .map(|t| DiskUse {
            name: t.name.clone(),
            data_bytes: bytes(&data.terminal(&t.id)),
            worktree_bytes: t
                .worktree
                .as_ref()
                .filter(|w| t.mode == CheckoutMode::Worktree && w.path.is_dir())
                .map(|w| bytes(&w.path)),
        })
        .collect()
}

/// Bytes allocated under `path` (0 when it is gone).
fn bytes(path: &Path) -> u64 {
    let Ok(m) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    let own = m.blocks() * 512;
    if !m.is_dir() {
        return own;
    }
    let Ok(rd) = std::fs::read_dir(path) else {
        return own;
    };
    own + rd.flatten().map(|e| bytes(&e.path())).sum::<u64>()
}
