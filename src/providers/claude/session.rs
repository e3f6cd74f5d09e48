//! Claude Code session files for **fork** and **rewind**: where to cut a session
//! (`--resume-session-at`) and how to make a session findable from another checkout.
//!
//! Measured on the real CLIs, 2.1.332 and 2.1.197 (`fixtures/captures/fork/claude/README.md`):
//!
//! - A fork is `--resume S --fork-session --session-id NEW` run in the new checkout. The CLI
//!   writes `NEW.jsonl` in the NEW cwd's project folder: S's chain entries (same `uuid`s, their
//!   `sessionId` and `cwd` rewritten), then the fork's own turn. S is not touched.
//! - A rewind adds `--resume-session-at UUID`: the fork keeps S's chain up to and including the
//!   entry `UUID` and nothing after. `UUID` must be an entry's `uuid` (a `msg_…` id or an
//!   unknown uuid: rc 1, `No message found with message.uuid of: …`). Without `--fork-session`
//!   it cuts S itself (a branch appended to S): baton never does that.
//! - 2.1.197 finds a session only in its own cwd's project folder; 2.1.332 in any folder, but
//!   it refuses (`No conversation found`) an id that sits in two folders when its cwd holds
//!   neither. Both take the copy in their own cwd's folder first, stale or not.
//!
//! Session lines are JSON objects. The **chain** is the entries with a `uuid` of type `user`,
//! `assistant`, `attachment` or `system` (not `isSidechain`), each naming the one before it in
//! `parentUuid`; the CLI resumes from the last one written (the leaf) back to the root, so this
//! module follows the same walk and ignores branches left behind. A **prompt** is a chain `user`
//! entry whose content is the text baton wrote: a string, or only text blocks (not `isMeta`, not
//! a compact summary, not an interruption note `[Request interrupted by user…]`). What is not a
//! prompt: tool results (`tool_result` blocks), a steer that joined a running turn (an
//! `attachment` of type `queued_command`, never a `user` entry), meta and summary entries. A
//! stdin line that arrived too late to join its turn runs as a turn of its own and is a prompt
//! like any other.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{find_session_file, session_file};
use crate::providers::provider::ForkCopy;
use crate::providers::ProviderHomes;

/// Why [`cut_point`] found no place to cut.
#[derive(Debug)]
pub enum CutError {
    /// No file for the session in the cwd's project folder or any other.
    Missing { session_id: String },
    /// The session file is there but could not be read.
    Read { path: PathBuf, source: io::Error },
    /// The session holds fewer prompts than the cut needs (`keep` kept and one more after).
    TooFewPrompts {
        session_id: String,
        keep: usize,
        found: usize,
    },
    /// Prompt number `keep` (0-based) is not the text the caller expected there.
    PromptMismatch {
        session_id: String,
        keep: usize,
        expected: String,
        found: String,
    },
    /// The prompt has no entry before it on the chain (a broken or hand-made file).
    NoParent { session_id: String, keep: usize },
}

impl fmt::Display for CutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CutError::Missing { session_id } => {
                write!(f, "Claude session {session_id} has no session file any more")
            }
            CutError::Read { path, source } => {
                write!(f, "cannot read Claude session file {}: {source}", path.display())
            }
            CutError::TooFewPrompts {
                session_id,
                keep,
                found,
            } => write!(
                f,
                "Claude session {session_id} holds {found} prompt(s): cannot keep {keep} and cut before prompt {}",
                keep + 1
            ),
            CutError::PromptMismatch {
                session_id,
                keep,
                expected,
                found,
            } => write!(
                f,
                "prompt {} of Claude session {session_id} is {:?}, not {:?}: the session does not match the turns",
                keep + 1,
                super::one_line(found, 60),
                super::one_line(expected, 60),
            ),
            CutError::NoParent { session_id, keep } => write!(
                f,
                "prompt {} of Claude session {session_id} has no entry before it to cut at",
                keep + 1
            ),
        }
    }
}

impl std::error::Error for CutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CutError::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// One prompt baton sent, as a session file records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The prompt entry's own `uuid`.
    pub uuid: String,
    /// The chain entry before it (its `parentUuid`), where a cut keeping everything before this
    /// prompt goes. `None` for the session's first prompt.
    pub parent: Option<String>,
    /// The prompt's text (text blocks joined by newlines).
    pub text: String,
}

/// The prompts on the session's active chain (leaf back to root, then in order). Lines that are
/// not JSON are skipped, as the CLI does with a torn last line.
pub fn prompts(session_text: &str) -> Vec<Prompt> {
    let mut by_uuid: HashMap<&str, Value> = HashMap::new();
    let mut leaf: Option<String> = None;
    let rows: Vec<Value> = session_text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    for row in &rows {
        if let Some(uuid) = chain_uuid(row) {
            leaf = Some(uuid.to_owned());
            by_uuid.insert(uuid, row.clone());
        }
    }
    let mut chain = Vec::new();
    let mut at = leaf;
    while let Some(uuid) = at {
        let Some(row) = by_uuid.remove(uuid.as_str()) else {
            break; // the root, or a parent the file does not hold (a loop ends here too)
        };
        at = row["parentUuid"].as_str().map(str::to_owned);
        chain.push(row);
    }
    chain.reverse();
    chain
        .iter()
        .filter_map(|row| {
            Some(Prompt {
                uuid: row["uuid"].as_str()?.to_owned(),
                parent: row["parentUuid"].as_str().map(str::to_owned),
                text: prompt_text(row)?,
            })
        })
        .collect()
}

/// The `uuid` of a chain entry, `None` for any other line (queue operations, cost state…).
fn chain_uuid(row: &Value) -> Option<&str> {
    let kind = row["type"].as_str()?;
    if !matches!(kind, "user" | "assistant" | "attachment" | "system")
        || row["isSidechain"].as_bool() == Some(true)
    {
        return None;
    }
    row["uuid"].as_str()
}

/// The text of a prompt entry, `None` when the entry is not one of baton's prompts.
fn prompt_text(row: &Value) -> Option<String> {
    if row["type"].as_str() != Some("user")
        || row["isMeta"].as_bool() == Some(true)
        || row["isCompactSummary"].as_bool() == Some(true)
        || row["isVisibleInTranscriptOnly"].as_bool() == Some(true)
    {
        return None;
    }
    let text = match &row["message"]["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) if !blocks.is_empty() => {
            let texts = blocks
                .iter()
                .map(|b| match b["type"].as_str() {
                    Some("text") => b["text"].as_str(),
                    _ => None,
                })
                .collect::<Option<Vec<&str>>>()?;
            texts.join("\n")
        }
        _ => return None,
    };
    if text.starts_with("[Request interrupted by user") {
        return None;
    }
    Some(text)
}

/// The cut in a session file's text that keeps the first `keep` prompts' turns (`keep` ≥ 1):
/// the `parentUuid` of prompt number `keep` (0-based), which must read `next_prompt`. That is
/// the chain's leaf as it was when that prompt came in: the last entry of turn `keep` (its last
/// assistant entry, or on 2.1.332 sometimes a `prompt_snapshot` attachment after it; both give
/// the model the same history), so an interrupted turn keeps its interruption note.
pub fn cut_in(
    session_text: &str,
    session_id: &str,
    keep: usize,
    next_prompt: &str,
) -> Result<String, CutError> {
    let prompts = prompts(session_text);
    let Some(prompt) = prompts.get(keep) else {
        return Err(CutError::TooFewPrompts {
            session_id: session_id.to_owned(),
            keep,
            found: prompts.len(),
        });
    };
    if prompt.text != next_prompt {
        return Err(CutError::PromptMismatch {
            session_id: session_id.to_owned(),
            keep,
            expected: next_prompt.to_owned(),
            found: prompt.text.clone(),
        });
    }
    prompt.parent.clone().ok_or_else(|| CutError::NoParent {
        session_id: session_id.to_owned(),
        keep,
    })
}

/// The uuid to pass as `--resume-session-at` so that a fork of `session_id` keeps the first
/// `keep` prompts' turns and nothing after: the entry before the user entry of prompt number
/// `keep` (0-based, counting only the prompts baton sent: see the module doc), which must read
/// `next_prompt`. `Ok(None)` when `keep == 0` (nothing to keep: the caller opens a fresh
/// session). `cwd` is where the session last ran (its file is looked for there first, then in
/// every project folder).
pub fn cut_point(
    homes: &ProviderHomes,
    cwd: &Path,
    session_id: &str,
    keep: usize,
    next_prompt: &str,
) -> Result<Option<String>, CutError> {
    if keep == 0 {
        return Ok(None);
    }
    let path = find_session_file(homes, cwd, session_id).ok_or_else(|| CutError::Missing {
        session_id: session_id.to_owned(),
    })?;
    let bytes = std::fs::read(&path).map_err(|source| CutError::Read {
        path: path.clone(),
        source,
    })?;
    cut_in(
        &String::from_utf8_lossy(&bytes),
        session_id,
        keep,
        next_prompt,
    )
    .map(Some)
}

/// Makes session `session_id` (last run in `from_cwd`) findable by a CLI started in `to_cwd`,
/// for versions that look only in the cwd's project folder (2.1.197): copies its file, as it is
/// now, into `to_cwd`'s project folder (through a temporary file and a rename, replacing an
/// older copy). A no-op when both cwds share a project folder. The copy must not outlive the
/// fork's run: see [`ForkCopy`]. Fails with `NotFound` when the session has no file.
///
/// With `system` = (old, new), the copy's `prompt_snapshot` entries have their system prompt
/// part `old` replaced by `new` (see [`rewrite_snapshots`]): 2.1.332 keeps the system prompt a
/// session was created with in those entries, copies them into a fork and sends them on every
/// resume, ignoring the one passed (`--append-system-prompt-file`), so without this a fork in a new checkout would be
/// told the original's (`fixtures/captures/fork/claude/README.md`). The original's file is
/// never changed; a fork from the same project folder gets no copy and no rewrite.
pub fn prepare_fork(
    homes: &ProviderHomes,
    session_id: &str,
    from_cwd: &Path,
    to_cwd: &Path,
    system: Option<(&str, &str)>,
) -> io::Result<ForkCopy> {
    let Some(source) = find_session_file(homes, from_cwd, session_id) else {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("Claude session {session_id} has no session file"),
        ));
    };
    let target = session_file(homes, to_cwd, session_id);
    if target == source {
        return Ok(ForkCopy::placed(None));
    }
    let dir = target.parent().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "session file without a folder")
    })?;
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(".{session_id}.jsonl.baton-{}", std::process::id()));
    let copied = std::fs::read(&source)
        .map(|bytes| match system {
            Some((old, new)) => rewrite_snapshots(&bytes, old, new),
            None => bytes,
        })
        .and_then(|bytes| write_private(&temp, &bytes))
        .and_then(|_| std::fs::rename(&temp, &target));
    if let Err(e) = copied {
        let _ = std::fs::remove_file(&temp);
        return Err(e);
    }
    Ok(ForkCopy::placed(Some(target)))
}

/// Writes a new file only its owner can read (a session holds the user's prompts).
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// `session` with every `prompt_snapshot` entry's system prompt part that is exactly `old`
/// replaced by `new`. Only those lines change (the JSON string is replaced in place, the rest
/// of the line byte for byte); every other line is kept as it is.
pub fn rewrite_snapshots(session: &[u8], old: &str, new: &str) -> Vec<u8> {
    crate::providers::replace_in_lines(session, old, new, |v| {
        v["type"] == "attachment"
            && v["attachment"]["type"] == "prompt_snapshot"
            && v["attachment"]["systemPrompt"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p.as_str() == Some(old)))
    })
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
