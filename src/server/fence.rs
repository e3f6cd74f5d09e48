//! Checking that a CLI's sandbox really works before trusting it (a run its provider says is
//! `fenced`: Codex's `workspace-write`). Where it cannot start (no user namespaces), Codex still
//! finishes turns with rc 0 while every command and edit failed (cli-captures README, "The
//! fence"); baton never falls back to an unfenced mode on its own, so it probes once per binary
//! (`Provider::fence_probe`: `codex sandbox -- true`) and tells the user plainly on every turn
//! that runs in a broken sandbox. `baton doctor` runs the same [`probe`] (in its own process: it
//! never starts a server).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::providers::{self, Provider, RunSpec};

/// How long the probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// Probe results per binary: `None` when the sandbox works, else why not.
#[derive(Debug, Default)]
pub struct FenceChecks {
    results: Mutex<HashMap<PathBuf, Option<String>>>,
}

impl FenceChecks {
    /// A warning for the user when `spec` runs in a sandbox that cannot start here.
    pub async fn warning(
        &self,
        spec: &RunSpec,
        path_var: Option<&std::ffi::OsStr>,
    ) -> Option<String> {
        let provider = providers::of(spec.provider);
        if !provider.fenced(spec) {
            return None;
        }
        let known = self.results.lock().ok()?.get(&spec.bin).cloned();
        let broken = match known {
            Some(result) => result,
            None => {
                let result = probe(provider, &spec.bin, path_var).await;
                if let Ok(mut r) = self.results.lock() {
                    r.insert(spec.bin.clone(), result.clone());
                }
                result
            }
        };
        broken.map(|why| provider.fence_broken(&why))
    }
}

/// Runs `provider`'s probe (`codex sandbox -- true`): `None` when it works.
pub async fn probe(
    provider: &dyn Provider,
    bin: &Path,
    path_var: Option<&std::ffi::OsStr>,
) -> Option<String> {
    let shown = format!("{} {}", provider.kind(), provider.fence_probe().join(" "));
    let mut cmd = tokio::process::Command::new(bin);
    cmd.args(provider.fence_probe())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    if let Some(p) = path_var {
        cmd.env("PATH", p);
    }
    let out = match tokio::time::timeout(PROBE_TIMEOUT, cmd.output()).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Some(format!("the probe did not run: {e}")),
        Err(_) => return Some(format!("the probe `{shown}` hung")),
    };
    if out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with("WARNING"))
        .unwrap_or("no message");
    Some(format!("`{shown}` failed: {line}"))
}
