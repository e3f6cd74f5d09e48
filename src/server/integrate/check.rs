//! The lane's check command run once in the lane's worktree: `sh -c` in a process group of
//! its own (as a worktree's set-up, `setup::run`), its output in the lane's log, the whole
//! group stopped after its timeout.

use std::path::Path;
use std::time::Duration;

use super::super::setup::run;

/// How one run of the check went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    Passed,
    /// It failed, timed out or could not start: the end of its output and what happened.
    Failed(String),
}

/// How much of the output a report keeps.
const KEPT: usize = 4 * 1024;

/// Runs `command` in `dir` for at most `timeout`, its output into `log`.
pub async fn check(dir: &Path, command: &str, timeout: Duration, log: &Path) -> Checked {
    let mut child = match run::spawn(dir, command, &[], log) {
        Ok(c) => c,
        Err(e) => return Checked::Failed(format!("the check `{command}` could not start: {e}")),
    };
    let how = match run::waited(&mut child, timeout).await {
        Ok(Ok(status)) if status.success() => return Checked::Passed,
        Ok(Ok(status)) => match status.code() {
            Some(c) => format!("the check `{command}` failed (exit code {c})"),
            None => format!("the check `{command}` was killed by a signal"),
        },
        Ok(Err(e)) => format!("the check `{command}`: {e}"),
        Err(_) => {
            run::stop(&mut child).await;
            format!(
                "the check `{command}` took longer than {} s and was stopped (raise check_timeout_secs)",
                timeout.as_secs()
            )
        }
    };
    let output = run::tail(log).unwrap_or_default();
    let cut = output.len().saturating_sub(KEPT);
    let start = (cut..=output.len())
        .find(|i| output.is_char_boundary(*i))
        .unwrap_or(output.len());
    Checked::Failed(format!("{}{how}\n", &output[start..]))
}
