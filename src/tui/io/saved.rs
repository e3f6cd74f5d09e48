//! `ui/ui.json` in the data directory: what `app::saved` keeps across a detach, read at start
//! and written when the focus or the layout changes and when the client ends. The folder is 0700 and the file 0600 (drafts are the
//! user's words); it is written whole under a temporary name, synced, then renamed, so a crash
//! leaves the old file or the new one. An unreadable file is treated as none: drafts and
//! layout are a convenience, never a reason not to open.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::paths::{ensure_private_dir, DataDir};
use crate::tui::app::saved::{merged, Saved};
use crate::tui::app::App;

/// Where the UI keeps its state in data directory `data`.
pub fn path(data: &DataDir) -> PathBuf {
    data.root.join("ui").join("ui.json")
}

/// What `path` holds (nothing when missing or unreadable).
pub fn load(path: &Path) -> Saved {
    fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Writes back this client's drafts (those it changed; another client's stay) and its layout.
pub fn save(path: &Path, app: &mut App) -> io::Result<()> {
    let mut saved = merged(load(path), app.changed_drafts(), app.saved_layout());
    saved.offered.extend(app.offered.iter().cloned());
    let bytes = serde_json::to_vec_pretty(&saved).map_err(io::Error::other)?;
    if let Some(dir) = path.parent() {
        ensure_private_dir(dir)?;
    }
    crate::paths::replace_private(path, &bytes)?;
    app.saved();
    Ok(())
}
