//! Checking that Codex's sandbox really works before trusting it. Where it cannot start (no
//! user namespaces), Codex still finishes turns with rc 0 while every command and edit failed
//! (cli-captures README, "The fence"); baton never falls back to an unfenced mode on its own, so
//! it probes once per binary (`codex sandbox -- true`) and tells the user plainly on every turn
//! that runs in a broken sandbox. `baton doctor` runs the same [`probe`] (in its own process: it
//! never starts a server).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::providers::RunSpec;

/// How long the probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// Probe results per Codex binary: `None` when the sandbox works, else why not.
#[derive(Debug, Default)]
pub struct FenceChecks {
    results: Mutex<HashMap<PathBuf, Option<String>>>,
}

impl FenceChecks {
    /// A warning for the user when `spec` runs Codex in a sandbox that cannot start here.
    pub async fn warning(
        &self,
        spec: &RunSpec,
        path_var: Option<&std::ffi::OsStr>,
    ) -> Option<String> {
        if !crate::providers::of(spec.provider).fenced(spec) {
            return None;
        }
        let known = self.results.lock().ok()?.get(&spec.bin).cloned();
        let broken = match known {
            Some(result) => result,
            None => {
                let result = probe(&spec.bin, path_var).await;
                if let Ok(mut r) = self.results.lock() {
                    r.insert(spec.bin.clone(), result.clone());
                }
                result
            }
        };
        broken.map(|why| {
            format!(
                "Codex's sandbox cannot start on this machine ({why}): its commands and edits will fail inside it. baton does not fall back to running unfenced; set providers.codex.sandbox = \"danger-full-access\" in config.toml only if you accept that"
            )
        })
    }
}

/// Runs `codex sandbox -- true`: `None` when it works.
pub async fn probe(bin: &Path, path_var: Option<&std::ffi::OsStr>) -> Option<String> {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.args(["sandbox", "--", "true"])
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
        Err(_) => return Some("the probe `codex sandbox -- true` hung".to_string()),
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
    Some(format!("`codex sandbox -- true` failed: {line}"))
}
