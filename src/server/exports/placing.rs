//! Putting an imported terminal's CLI session files where this machine's CLIs look for them:
//! Claude's into the project folder of the NEW run directory (`projects/<encoded cwd>/<id>.jsonl`:
//! 2.1.197 finds a session only there), Codex's rollouts into `$CODEX_HOME/sessions/Y/M/D/`
//! under their own names. The copies placed carry the re-pointed system text (Claude's
//! `prompt_snapshot` entries, Codex's developer message); a file already there is left alone
//! when it holds the same bytes and refused when it does not (nothing is ever overwritten).
//! One exception: the rollout of the thread a Codex fork builds on, already here with other
//! bytes and at least as many lines (its original was imported first, re-pointed at its own
//! checkout), is kept as it is: Codex cuts a fork's base at `history_base`'s ordinal (checked
//! on 0.171: a base whose bytes shifted by 603 still gave the fork exactly the history before
//! the cut), so the fork reads the same turns from it. Planned (and every conflict found)
//! before anything is written.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::manifest::{self, Manifest, SessionEntry};
use super::staging::{self, Staged};
use crate::error::BatonError;
use crate::protocol::views::ImportedSessionView;
use crate::providers::{self, ProviderHomes, SessionFiles};
use crate::words::ProviderKind;

/// One CLI file to put in place.
pub struct Placement {
    pub provider: ProviderKind,
    pub session_id: String,
    pub target: PathBuf,
    /// The file to copy there: the unpacked member, re-pointed (see [`plan`]).
    pub source: PathBuf,
    /// The same bytes are there already: nothing to write.
    pub present: bool,
    /// A fork's base rollout is there already with other bytes (see the module docs): kept.
    pub kept: bool,
}

/// Where each session file of `m` goes for runs in `run_dir` (physical), with every
/// `(old, new)` system text of `rewrites` replaced in it (a copy made in `staged`, streamed a
/// line at a time: the rewrites are line-local). Refuses a target that holds something else.
pub fn plan(
    homes: &ProviderHomes,
    run_dir: &Path,
    m: &Manifest,
    staged: &Staged,
    rewrites: &[(String, String)],
) -> Result<Vec<Placement>, BatonError> {
    let mut out = Vec::new();
    // The sessions the files here build on (Codex forks' originals).
    let bases: Vec<String> = m
        .sessions
        .iter()
        .filter_map(|s| {
            let files = providers::of(s.provider).session_files()?;
            let first = staging::first_line(staged.path(s.file.as_ref()?)?).ok()?;
            files.history_base(&first)
        })
        .collect();
    for (n, s) in m.sessions.iter().enumerate() {
        let Some(files) = providers::of(s.provider).session_files() else {
            continue;
        };
        let Some((file, original)) = s.file.as_ref().and_then(|f| Some((f, staged.path(f)?)))
        else {
            continue;
        };
        let source = staged.scratch(&format!("placed-{n}"));
        staging::copy_lines(original, &source, |line| rewritten(files, line, rewrites))
            .map_err(|e| failed(&source, e))?;
        let rel = manifest::cli_rel(file).unwrap_or(file);
        let target = files.place(homes, run_dir, &s.session_id, rel);
        let (present, kept) = match fs::metadata(&target) {
            Ok(_) => there_already(files, &target, &source, original, &bases, m, s)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => (false, false),
            Err(e) => return Err(failed(&target, e)),
        };
        out.push(Placement {
            provider: s.provider,
            session_id: s.session_id.clone(),
            target,
            source,
            present,
            kept,
        });
    }
    Ok(out)
}

/// `line` with every `(old, new)` of `rewrites` replaced.
fn rewritten(files: &dyn SessionFiles, line: &[u8], rewrites: &[(String, String)]) -> Vec<u8> {
    let mut bytes = line.to_vec();
    for (old, new) in rewrites {
        bytes = files.rewrite_system_text(&bytes, old, new);
    }
    bytes
}

fn failed(path: &Path, e: io::Error) -> BatonError {
    BatonError::failed(format!("cannot read {}: {e}", path.display()))
}

/// What to do with session `s`'s file `target`, already there, for the copy `source` of the
/// archive's `original`: (present, kept), or refused.
fn there_already(
    files: &dyn SessionFiles,
    target: &Path,
    source: &Path,
    original: &Path,
    bases: &[String],
    m: &Manifest,
    s: &SessionEntry,
) -> Result<(bool, bool), BatonError> {
    let io = |e| failed(target, e);
    if staging::starts_with(target, source, true).map_err(io)? {
        return Ok((true, false));
    }
    if bases.contains(&s.session_id)
        && staging::lines(target).map_err(io)? >= staging::lines(source).map_err(io)?
    {
        return Ok((true, true));
    }
    if files.builds_on_bases() && staging::starts_with(original, target, false).map_err(io)? {
        return Err(BatonError::bad_input(format!(
            "{} already holds an earlier copy of {}'s thread {}, put there by the import of a fork that builds on it: an original must be imported before its forks; nothing was imported",
            target.display(),
            m.terminal.name,
            s.session_id
        )));
    }
    Err(held_elsewise(target, s))
}

/// Refuses to place session `s` at `target`, which holds something else.
fn held_elsewise(target: &Path, s: &SessionEntry) -> BatonError {
    BatonError::bad_input(format!(
        "{} already exists and holds something else than the {} session {} being imported: refused, nothing was imported (move that file away if it is stale)",
        target.display(),
        s.provider,
        s.session_id
    ))
}

/// Writes every placement not yet there (0600, never replacing a file); returns the files it
/// wrote. On a failure, removes what it wrote.
pub fn place(placements: &[Placement]) -> Result<Vec<PathBuf>, BatonError> {
    let mut written = Vec::new();
    for p in placements.iter().filter(|p| !p.present) {
        if let Err(e) = write_new(&p.target, &p.source) {
            remove_all(&written);
            return Err(BatonError::failed(format!(
                "cannot write {}: {e} (nothing was imported)",
                p.target.display()
            )));
        }
        written.push(p.target.clone());
    }
    Ok(written)
}

/// What the notes say of the files kept as they were.
pub fn notes(placements: &[Placement]) -> Vec<String> {
    placements
        .iter()
        .filter(|p| p.kept)
        .map(|p| {
            format!(
                "the rollout of thread {} (the thread this fork builds on) was already here, from an earlier import: kept as it is ({})",
                p.session_id,
                p.target.display()
            )
        })
        .collect()
}

pub fn remove_all(files: &[PathBuf]) {
    for f in files {
        let _ = fs::remove_file(f);
    }
}

/// What the reply says of each session of `m`.
pub fn views(m: &Manifest, placements: &[Placement]) -> Vec<ImportedSessionView> {
    m.sessions
        .iter()
        .map(|s| ImportedSessionView {
            provider: s.provider,
            session_id: s.session_id.clone(),
            placed: placements
                .iter()
                .find(|p| p.provider == s.provider && p.session_id == s.session_id)
                .map(|p| p.target.to_string_lossy().into_owned()),
        })
        .collect()
}

/// A new file at `target` holding `source`'s bytes: copied whole under a temporary name, then
/// linked into place (a link never replaces a file that appeared meanwhile).
fn write_new(target: &Path, source: &Path) -> io::Result<()> {
    let dir = target
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a file without a folder"))?;
    // Folders the CLI has not made yet are private, as the session files are.
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let temp = dir.join(format!(".baton-import-{}", uuid::Uuid::new_v4().simple()));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temp)?;
        io::copy(&mut fs::File::open(source)?, &mut f)?;
        f.sync_all()?;
        fs::hard_link(&temp, target)
    })();
    let _ = fs::remove_file(&temp);
    result
}
