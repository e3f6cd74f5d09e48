//! Whether a clean Claude turn is in its session file yet. 2.1.332 writes the turn's last call
//! there before its `result` line; 2.1.197 writes it after, 3–75 ms later on the real CLI while
//! a warm CLI stays alive (`tools/real-cli/turn_end.py`), and before it exits when its
//! stdin closes. A warm CLI kept after a completed turn is therefore handed to the pool only
//! once its session file holds the turn ([`TurnWritten::wait`], from `run::claude_turn`): until then the pool holds the
//! terminal (`WarmPool::starting`), so whatever reads the session next waits for it (the next
//! turn, were it to start cold, and a fork, rewind or export: `WarmPool::settled`). A CLI that
//! exits carries its own guarantee: its turn's readers wait for its exit (`providers::closing`).
//! One kept after an interrupted turn is not waited for: the message it cut short may be on
//! disk shortened or not at all, so no id is sure to come.
//!
//! The wait polls the file (at 1, 2, 4 … 32 ms): the CLI gives no other sign that it wrote, and
//! an inotify watch would need a watch on a folder that may not exist yet (a session's first
//! turn creates it). It gives up after [`WRITE_WAIT`], far past anything measured, and says so
//! in the server's log: the turn itself is recorded already.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::claude::{find_session_file, last_call_in_session_file, CallUsage};
use super::ProviderHomes;

/// How long a warm CLI's session file may take to hold its turn before the CLI goes to the
/// pool anyway.
pub const WRITE_WAIT: Duration = Duration::from_secs(2);

/// The longest pause between two looks at the file.
const MAX_PAUSE: Duration = Duration::from_millis(32);

/// A turn's last call, as its session file holds it once the turn is written.
#[derive(Debug, Clone)]
pub struct TurnWritten {
    homes: ProviderHomes,
    cwd: PathBuf,
    session_id: String,
    /// The call's message id (every captured version prints it); None: its token counts alone
    /// tell it.
    id: Option<String>,
    usage: CallUsage,
}

impl TurnWritten {
    pub(super) fn new(
        homes: &ProviderHomes,
        cwd: &Path,
        session_id: String,
        id: Option<String>,
        usage: CallUsage,
    ) -> Self {
        TurnWritten {
            homes: homes.clone(),
            cwd: cwd.to_path_buf(),
            session_id,
            id,
            usage,
        }
    }

    /// Whether the session file's last call is this turn's.
    pub fn is_written(&self) -> bool {
        let Some(file) = find_session_file(&self.homes, &self.cwd, &self.session_id) else {
            return false;
        };
        last_call_in_session_file(&file).is_some_and(|(id, usage)| match &self.id {
            Some(own) => id.as_deref() == Some(own.as_str()),
            None => usage.same_request(&self.usage),
        })
    }

    /// Waits until the turn is written, up to `within`; whether it was.
    pub async fn wait(self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        let mut pause = Duration::from_millis(1);
        loop {
            let check = self.clone();
            let written = tokio::task::spawn_blocking(move || check.is_written())
                .await
                .unwrap_or(false);
            let now = tokio::time::Instant::now();
            if written || now >= deadline {
                return written;
            }
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(MAX_PAUSE);
        }
    }
}

#[cfg(test)]
#[path = "claude_written_tests.rs"]
mod tests;
