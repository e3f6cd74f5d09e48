//! `baton export` and `baton import`: a terminal moved to another machine (or data directory)
//! as one zip, and made a terminal there that carries on where it was.
//!
//! The zip (`manifest.rs` is its format) holds, byte for byte, the terminal's journal, every
//! turn's raw stream and the CLIs' own session files of the sessions its journal names (a
//! Codex fork's rollout with the rollouts it builds on), plus `manifest.json` with each file's
//! size and SHA-256. Export (`export.rs`) reads while the server runs and changes nothing: the
//! journal is copied under the lock every append holds, and every file is cut at its last
//! newline, so no half-written line comes along. Import (`import.rs`) checks every member
//! against the manifest (`staging.rs` unpacks them, streamed, within the size limit) and every
//! id of the journal before it writes anything, then recreates the checkout, puts the
//! session files where this machine's CLIs look for them, and writes the journal whole with an
//! `imported` record after the original ones: the live conversation is re-pointed at the new
//! run directory (so the send path's rule 1 does not open a fresh one) with its system text
//! re-pointed too, and the placed session files say the same (Claude's `prompt_snapshot`
//! entries, Codex's developer message: see `providers::codex::rollout` for that choice). See
//! ARCHITECTURE.md ("Exports").

use std::sync::Arc;

use super::state::Server;
use crate::error::BatonError;
use crate::protocol::views::{ExportView, ImportView};

mod carry;
mod export;
mod import;
mod manifest;
mod placing;
mod staging;

pub use import::Asked;

/// How long an export waits for the last turn's CLI to have written its session file.
const SESSIONS_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// `baton export NAME [--out DIR]`.
pub async fn export(
    srv: &Arc<Server>,
    name: String,
    out: Option<String>,
) -> Result<ExportView, BatonError> {
    sessions_written(srv, &srv.terminal(&name)?).await;
    let srv = srv.clone();
    tokio::task::spawn_blocking(move || export::export(&srv, &name, out.as_deref()))
        .await
        .map_err(|e| BatonError::failed(format!("the export task crashed: {e}")))?
}

/// Waits (up to [`SESSIONS_WAIT`]) until the CLI of the terminal's last turn has written
/// the turn to its session file, if the turn ended moments ago: a CLI exiting after its
/// result until it has exited (2.1.197 writes the turn just before), a warm one until the pool
/// has it (`providers::claude_written`). A terminal running a turn or with input waiting is
/// exported as far as it got, at once.
async fn sessions_written(srv: &Server, t: &crate::store::TerminalRow) {
    if super::terminals::busy(srv, t) {
        return;
    }
    let rt = srv.runtime(&t.id);
    let written = async {
        rt.ending.exited().await;
        srv.warm.settled(&t.id).await;
    };
    let _ = tokio::time::timeout(SESSIONS_WAIT, written).await;
}

/// `baton import FILE [--name NEW] [--dir D] [--max-size SIZE]`.
pub async fn import(srv: &Arc<Server>, asked: Asked) -> Result<ImportView, BatonError> {
    let srv2 = srv.clone();
    let mut view = tokio::task::spawn_blocking(move || import::import(&srv2, asked))
        .await
        .map_err(|e| BatonError::failed(format!("the import task crashed: {e}")))??;
    if let Some(wt) = srv
        .store
        .terminal(&view.terminal_id)?
        .and_then(|t| t.worktree)
    {
        let dir = std::path::PathBuf::from(&view.dir);
        view.notes
            .extend(super::setup::prepare(srv, &view.terminal_id, &dir, &wt));
    }
    Ok(view)
}
