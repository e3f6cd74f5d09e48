//! What baton does with Claude Code, as the [`Provider`] interface asks: `stream-json` runs
//! that take steers on stdin, sessions baton names (`--session-id`) under
//! `$CLAUDE_CONFIG_DIR/projects/`, forks resumed at their first run (`--fork-session`, cut with
//! `--resume-session-at`), and `--permission-mode` as the write fence.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::session;
use super::ClaudeParser;
use crate::config::{Config, ProviderConfig};
use crate::providers::process::ExitInfo;
use crate::providers::provider::{
    Carrying, ForkCopy, Provider, SessionFiles, StreamParser, WriteFence,
};
use crate::providers::{ProviderHomes, RunSpec, SessionMode, TurnOutcome};
use crate::words::{ProviderKind, TurnEvent};

pub struct Claude;

impl Provider for Claude {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Claude
    }

    fn settings<'a>(&self, config: &'a Config) -> &'a ProviderConfig {
        &config.providers.claude
    }

    fn permission_mode(&self, config: &Config) -> Option<String> {
        config.permission_mode()
    }

    fn ask_args(&self) -> &'static [&'static str] {
        &super::ask::ASK_FLAG
    }

    fn write_fence(&self, config: &Config) -> WriteFence {
        WriteFence::Unchecked(match config.permission_mode() {
            Some(mode) => format!(
                "permission mode {mode}: the CLI confines edits itself; no sandbox to probe"
            ),
            None => "no --permission-mode (as configured): the CLI's own default".into(),
        })
    }

    fn session_on_disk(&self, homes: &ProviderHomes, cwd: &Path, id: &str) -> bool {
        super::session_exists(homes, cwd, id)
    }

    fn prestarts(&self) -> bool {
        true
    }

    fn steers_cold(&self) -> bool {
        true
    }

    fn steer_note(&self, handed: bool) -> String {
        if handed {
            "handed to the running claude turn: claude reads it with its next tool result (a turn with no more tool calls takes it right after its answer, in the same session)"
        } else {
            "the running claude turn cannot take it yet: it runs next"
        }
        .to_string()
    }

    fn carrying(&self) -> Carrying {
        Carrying::AtFirstRun
    }

    /// Claude cuts at the fork's first run (`--resume-session-at`): the entry before the turn's
    /// prompt, found now by counting the prompts of the session file from its end.
    fn cut_point(
        &self,
        homes: &ProviderHomes,
        dir: &Path,
        id: &str,
        later_prompts: usize,
        prompt: &str,
    ) -> Result<String, String> {
        let path = super::find_session_file(homes, dir, id)
            .ok_or_else(|| "its session file is gone".to_string())?;
        let text =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let count = session::prompts(&String::from_utf8_lossy(&text)).len();
        let keep = count
            .checked_sub(later_prompts + 1)
            .ok_or_else(|| format!("its session file holds {count} prompts, too few"))?;
        session::cut_point(homes, dir, id, keep, prompt)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "its session file holds nothing before the turn".to_string())
    }

    /// The fork's source session made findable from the fork's checkout for the run (CLI
    /// versions that look only in the cwd's project folder), with the system text it keeps
    /// replaced by this conversation's (2.1.332 sends the kept one).
    fn prepare_fork(
        &self,
        homes: &ProviderHomes,
        spec: &RunSpec,
        kept_text: Option<&str>,
    ) -> Option<ForkCopy> {
        let SessionMode::Fork { from, .. } = &spec.session else {
            return None;
        };
        let system = kept_text.map(|old| (old, spec.system_text.as_str()));
        session::prepare_fork(homes, from, &spec.cwd, &spec.cwd, system).ok()
    }

    fn parser(&self, dir: Option<&Path>) -> Option<Box<dyn StreamParser>> {
        Some(Box::new(
            dir.map_or_else(ClaudeParser::new, ClaudeParser::in_dir),
        ))
    }

    fn oneshot_args(&self, model: Option<&str>) -> Option<Vec<OsString>> {
        let mut args: Vec<OsString> = [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--no-session-persistence",
            "--max-turns",
            "1",
        ]
        .map(OsString::from)
        .to_vec();
        if let Some(m) = model {
            args.extend(["--model".into(), m.into()]);
        }
        Some(args)
    }

    fn session_files(&self) -> Option<&dyn SessionFiles> {
        Some(self)
    }
}

impl StreamParser for ClaudeParser {
    fn feed(&mut self, line: &str) -> Vec<TurnEvent> {
        ClaudeParser::feed(self, line)
    }

    fn finish(
        self: Box<Self>,
        exit: &ExitInfo,
        homes: &ProviderHomes,
        cwd: &Path,
        _resumed: Option<&str>,
    ) -> TurnOutcome {
        ClaudeParser::finish(*self, exit, homes, cwd)
    }
}

/// Claude's session files: `projects/<encoded cwd>/<id>.jsonl`; 2.1.197 finds a session only
/// in its cwd's folder, so an import places it in the NEW run directory's.
impl SessionFiles for Claude {
    fn home<'a>(&self, homes: &'a ProviderHomes) -> &'a Path {
        &homes.claude
    }

    fn searched(&self, homes: &ProviderHomes) -> PathBuf {
        homes.claude.join("projects")
    }

    fn find(&self, homes: &ProviderHomes, dir: &Path, id: &str) -> Option<PathBuf> {
        super::find_session_file(homes, dir, id)
    }

    fn place(&self, homes: &ProviderHomes, run_dir: &Path, id: &str, _rel: &str) -> PathBuf {
        super::session_file(homes, run_dir, id)
    }

    fn rewrite_system_text(&self, bytes: &[u8], old: &str, new: &str) -> Vec<u8> {
        session::rewrite_snapshots(bytes, old, new)
    }
}
