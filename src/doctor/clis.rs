//! The CLIs check: each configured CLI (`[providers.claude]`, `[providers.codex]`, `bin`) found
//! on PATH or not, its `--version`, and whether its fence can work here. Codex's sandbox is
//! probed exactly as the server probes it before trusting it (`server::fence::probe`); Claude's
//! default fence is its permission mode, which needs no sandbox, so there is nothing to probe.
//! A missing CLI that no terminal uses is a note; one that a terminal uses is a fault.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use super::report::{Check, CliView, FenceState, FenceView, Status};
use super::Found;
use crate::config::Config;
use crate::providers::process::find_bin;
use crate::providers::{self, Provider, WriteFence};
use crate::store::TerminalRow;

/// How long `--version` may take.
const VERSION_WITHIN: Duration = Duration::from_secs(20);

/// The finding for one CLI: found or not, used or not, fence broken or not.
pub fn judge(found: bool, used: bool, fence: FenceState) -> Status {
    match (found, used, fence) {
        (false, false, _) => Status::Note,
        (false, true, _) => Status::Fault,
        (true, true, FenceState::Broken) => Status::Fault,
        (true, false, FenceState::Broken) => Status::Note,
        (true, _, FenceState::Works | FenceState::Unchecked) => Status::Ok,
    }
}

pub fn check(config: &Config, terminals: &[TerminalRow]) -> (Vec<Found>, Vec<CliView>) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let path_var = std::env::var_os("PATH");
    let mut found = Vec::new();
    let mut views = Vec::new();
    for provider in providers::all().filter(|p| p.kind().is_cli()) {
        let kind = provider.kind();
        let bin = provider.bin(config);
        let used_by: Vec<String> = terminals
            .iter()
            .filter(|t| t.provider == kind)
            .map(|t| t.name.clone())
            .collect();
        let path = find_bin(&bin, path_var.as_deref());
        let (version, fence) = match (&path, &runtime) {
            (Some(p), Ok(rt)) => rt.block_on(async {
                (
                    version(p).await,
                    fence(provider, config, p, path_var.as_ref()).await,
                )
            }),
            (Some(_), Err(e)) => (None, unchecked(format!("cannot run the probe: {e}"))),
            (None, _) => (None, unchecked("not found".into())),
        };
        let status = judge(path.is_some(), !used_by.is_empty(), fence.state);
        let users = match used_by.as_slice() {
            [] => "no terminal uses it".to_string(),
            names => format!("used by {}", names.join(", ")),
        };
        let detail = match (&path, fence.state) {
            (None, _) => format!(
                "{bin} was not found on PATH ({users}): install it with `{}`, or set providers.{kind}.bin in baton's config.toml",
                kind.install_hint(),
                kind = kind.as_str()
            ),
            (Some(_), FenceState::Broken) => format!("{users}; {}", fence.detail),
            (Some(p), _) => format!(
                "{} ({}), {users}; fence: {}",
                p.display(),
                version.as_deref().unwrap_or("no version"),
                fence.detail
            ),
        };
        found.push(Found::new(Check::Clis, status, kind.as_str(), detail));
        views.push(CliView {
            provider: kind,
            bin,
            found: path.is_some(),
            path: path.map(|p| p.display().to_string()),
            version,
            used_by,
            fence,
        });
    }
    (found, views)
}

fn unchecked(detail: String) -> FenceView {
    FenceView {
        state: FenceState::Unchecked,
        detail,
    }
}

/// The first line `bin --version` prints.
async fn version(bin: &Path) -> Option<String> {
    let mut cmd = tokio::process::Command::new(bin);
    cmd.arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(VERSION_WITHIN, cmd.output())
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(String::from)
}

async fn fence(
    provider: &dyn Provider,
    config: &Config,
    bin: &Path,
    path_var: Option<&OsString>,
) -> FenceView {
    match provider.write_fence(config) {
        WriteFence::Probe { mode } => {
            let path_var = path_var.map(OsString::as_os_str);
            match crate::server::fence::probe(provider, bin, path_var).await {
                None => FenceView {
                    state: FenceState::Works,
                    detail: format!("its {mode} sandbox works here"),
                },
                Some(why) => FenceView {
                    state: FenceState::Broken,
                    detail: format!("its sandbox cannot start here ({why}): its commands and edits would fail; baton does not fall back to running unfenced"),
                },
            }
        }
        WriteFence::Unchecked(detail) => unchecked(detail),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_missing_cli_is_a_fault_only_when_a_terminal_uses_it() {
        use FenceState::*;
        let rows = [
            (false, false, Unchecked, Status::Note),
            (false, true, Unchecked, Status::Fault),
            (true, false, Works, Status::Ok),
            (true, true, Works, Status::Ok),
            (true, true, Unchecked, Status::Ok),
            (true, true, Broken, Status::Fault),
            (true, false, Broken, Status::Note),
        ];
        for (found, used, fence, want) in rows {
            assert_eq!(judge(found, used, fence), want, "{found} {used} {fence:?}");
        }
    }
}
