//! The format of an export: what `manifest.json` says (the terminal, its checkout, every file
//! with its archive path, size and SHA-256, what could not be exported), where each kind of
//! file sits in the zip, and the checks an import makes before it writes anything. Pure: bytes
//! in, verdicts out. See `exports/mod.rs` for the picture.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::validate::safe_id;
use crate::words::{CheckoutMode, ProviderKind};

/// The manifest's name in the zip.
pub const MANIFEST: &str = "manifest.json";
/// This build writes (and reads) manifests of this format.
pub const FORMAT: u32 = 1;
/// The journal's archive path.
pub const JOURNAL: &str = "baton/journal.jsonl";
/// Turn streams sit under this folder, one `<turn id>.jsonl` each.
const TURNS: &str = "baton/turns/";
/// Claude Code's session files, as under its config folder (`projects/<cwd>/<id>.jsonl`).
const CLAUDE: &str = "claude/";
/// Codex's rollouts, as under `$CODEX_HOME` (`sessions/Y/M/D/rollout-…-<id>.jsonl`).
const CODEX: &str = "codex/";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub baton_version: String,
    pub exported_at: String,
    pub terminal: TerminalInfo,
    /// The git checkout the terminal worked in (null: a plain folder or in place).
    pub checkout: Option<CheckoutInfo>,
    pub files: Vec<FileEntry>,
    /// Every provider session the journal names, and its CLI file in the zip (null: missing).
    pub sessions: Vec<SessionEntry>,
    pub missing: Vec<Missing>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerminalInfo {
    pub id: String,
    pub name: String,
    pub provider: ProviderKind,
    pub model: Option<String>,
    /// Where its runs happened.
    pub dir: String,
    /// The directory it was opened on.
    pub source: String,
    pub mode: CheckoutMode,
    /// Its screenshots folder there (the system text names it).
    pub screenshots: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckoutInfo {
    pub repository: String,
    pub worktree: String,
    pub branch: String,
    pub base_branch: String,
    pub base_commit: String,
    /// The branch's tip when it was exported (uncommitted work is not in the archive).
    pub head_commit: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Journal,
    Turn,
    ClaudeSession,
    CodexRollout,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub path: String,
    pub kind: FileKind,
    pub size: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEntry {
    pub provider: ProviderKind,
    pub session_id: String,
    pub file: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missing {
    pub what: String,
    pub why: String,
}

/// Why an archive is refused. Every message names the file and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    #[error("{0} has no manifest.json: it is not a baton export")]
    NoManifest(String),
    #[error(
        "manifest.json cannot be read ({0}): the archive is damaged, export the terminal again"
    )]
    BadManifest(String),
    #[error("the archive was written by a newer baton (format {0}): update baton to import it")]
    Format(u32),
    #[error("the archive holds {0:?}, a path an import never writes (absolute, `..`, or not baton's): refused")]
    UnsafePath(String),
    #[error("the archive holds {0}, which manifest.json does not list: refused (was it changed by hand?)")]
    Unknown(String),
    #[error("the archive holds {0} twice: refused")]
    Duplicate(String),
    #[error("{0} is listed in manifest.json but not in the archive: the archive is damaged, export the terminal again")]
    Absent(String),
    #[error("{path} is {got} bytes, manifest.json says {want}: the archive is damaged or was changed, export the terminal again")]
    Size { path: String, want: u64, got: u64 },
    #[error("{0} does not match its SHA-256 in manifest.json: the archive is damaged or was changed, export the terminal again")]
    Digest(String),
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` in lower-case hex (a digest as the manifest writes it).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn turn_path(turn_id: &str) -> String {
    format!("{TURNS}{turn_id}.jsonl")
}

/// `rel` is the file's path under Claude's config folder (`projects/<cwd>/<id>.jsonl`).
pub fn claude_path(rel: &str) -> String {
    format!("{CLAUDE}{rel}")
}

/// `rel` is the rollout's path under `$CODEX_HOME` (`sessions/Y/M/D/rollout-….jsonl`).
pub fn codex_path(rel: &str) -> String {
    format!("{CODEX}{rel}")
}

/// A provider's session file at `rel` under its CLI's own folder, as an archive holds it: its
/// kind and path (None: the provider keeps no session files).
pub fn session_member(provider: ProviderKind, rel: &str) -> Option<(FileKind, String)> {
    match provider {
        ProviderKind::Claude => Some((FileKind::ClaudeSession, claude_path(rel))),
        ProviderKind::Codex => Some((FileKind::CodexRollout, codex_path(rel))),
        ProviderKind::Local => None,
    }
}

/// The path under the CLI's own folder that archive path `path` stands for (None: not a CLI file).
pub fn cli_rel(path: &str) -> Option<&str> {
    path.strip_prefix(CLAUDE)
        .or_else(|| path.strip_prefix(CODEX))
}

/// Whether `path` may be in an export: relative, no `.`/`..`/empty parts, no backslash, under
/// one of baton's folders, and of the kind that folder holds.
pub fn check_path(path: &str, kind: FileKind) -> Result<(), ArchiveError> {
    let bad = || ArchiveError::UnsafePath(path.to_string());
    if path.starts_with('/') || path.contains('\\') || path.contains('\0') {
        return Err(bad());
    }
    if path
        .split('/')
        .any(|p| p.is_empty() || p == "." || p == ".." || p.starts_with('.'))
    {
        return Err(bad());
    }
    let parts: Vec<&str> = path.split('/').collect();
    let ok = match kind {
        FileKind::Journal => path == JOURNAL,
        FileKind::Turn => {
            parts.len() == 3
                && path.starts_with(TURNS)
                && parts[2].strip_suffix(".jsonl").is_some_and(safe_id)
        }
        FileKind::ClaudeSession => {
            parts.len() == 4
                && parts[1] == "projects"
                && path.starts_with(CLAUDE)
                && path.ends_with(".jsonl")
        }
        FileKind::CodexRollout => {
            parts.len() == 6
                && path.starts_with(CODEX)
                && parts[1] == "sessions"
                && parts[2..5]
                    .iter()
                    .all(|d| d.chars().all(|c| c.is_ascii_digit()))
                && parts[5].starts_with("rollout-")
                && parts[5].ends_with(".jsonl")
        }
    };
    if ok {
        Ok(())
    } else {
        Err(bad())
    }
}

impl Manifest {
    /// The manifest from its bytes, checked for itself: its format, its paths and ids, one
    /// journal, no path twice, sessions naming files it lists.
    pub fn parse(bytes: &[u8]) -> Result<Manifest, ArchiveError> {
        let m: Manifest =
            serde_json::from_slice(bytes).map_err(|e| ArchiveError::BadManifest(e.to_string()))?;
        if m.format > FORMAT {
            return Err(ArchiveError::Format(m.format));
        }
        let bad = |what: String| ArchiveError::BadManifest(what);
        if !safe_id(&m.terminal.id) {
            return Err(bad(format!("terminal id {:?}", m.terminal.id)));
        }
        let mut seen = std::collections::HashSet::new();
        for f in &m.files {
            check_path(&f.path, f.kind)?;
            if !seen.insert(f.path.as_str()) {
                return Err(ArchiveError::Duplicate(f.path.clone()));
            }
        }
        if !seen.contains(JOURNAL) {
            return Err(bad("no journal listed".to_string()));
        }
        for s in &m.sessions {
            if !safe_id(&s.session_id) {
                return Err(bad(format!("session id {:?}", s.session_id)));
            }
            if let Some(f) = &s.file {
                if !seen.contains(f.as_str()) {
                    return Err(bad(format!("session file {f} is not listed")));
                }
            }
        }
        Ok(m)
    }

    pub fn entry(&self, path: &str) -> Option<&FileEntry> {
        self.files.iter().find(|f| f.path == path)
    }

    /// Why member `path`, which the manifest does not list, is refused.
    pub fn unlisted(&self, path: &str) -> ArchiveError {
        if path.starts_with('/') || path.split('/').any(|p| p == "..") {
            ArchiveError::UnsafePath(path.to_string())
        } else {
            ArchiveError::Unknown(path.to_string())
        }
    }

    /// Checks one member of the zip against the manifest: `got` bytes (at most one more than
    /// it lists are read), whose SHA-256 is `digest` (lower-case hex).
    pub fn check_member(&self, path: &str, got: u64, digest: &str) -> Result<(), ArchiveError> {
        let Some(f) = self.entry(path) else {
            return Err(self.unlisted(path));
        };
        if got != f.size {
            return Err(ArchiveError::Size {
                path: path.to_string(),
                want: f.size,
                got,
            });
        }
        if digest != f.sha256 {
            return Err(ArchiveError::Digest(path.to_string()));
        }
        Ok(())
    }

    /// Every listed file was among `seen` (the members checked).
    pub fn check_complete(&self, mut seen: impl FnMut(&str) -> bool) -> Result<(), ArchiveError> {
        match self.files.iter().find(|f| !seen(&f.path)) {
            Some(f) => Err(ArchiveError::Absent(f.path.clone())),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod tests;
