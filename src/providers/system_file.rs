//! The system text of a run, handed to the CLI where only the owner can read it, never in argv
//! (every local user can read argv in `/proc/PID/cmdline`, and the text holds sentences of the
//! user's own prompts and the brief). Claude reads a 0600 file, `--append-system-prompt-file
//! <run_dir>/<run_name>.txt`, in the terminal's private `runs/` folder; Codex a 0600 profile,
//! `-p <run_name>` = `$CODEX_HOME/<run_name>.config.toml` holding `developer_instructions`, read
//! only when a thread is created (a resume replays the rollout's copy), so only those runs get
//! one. The file is written right before the run and removed when the run ends ([`Written`]);
//! one a crash left is swept by [`sweep`] at the terminal's next run and at server start.
//! Facts: the CLI captures' "System text without argv", `fixtures/captures/system-file/`.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::codex::toml_basic_string;
use super::{ProviderHomes, RunSpec, SessionMode};
use crate::words::ProviderKind;

/// How every file this module writes is named: `baton-<terminal id>-<turn id>`, which no
/// profile of the user's is expected to be called.
pub fn run_name(terminal_id: &str, turn_id: &str) -> String {
    format!("{}{turn_id}", terminal_prefix(terminal_id))
}

fn terminal_prefix(terminal_id: &str) -> String {
    format!("baton-{terminal_id}-")
}

/// Codex's profile file for the profile `name`.
pub fn codex_profile_path(codex_home: &Path, name: &str) -> PathBuf {
    codex_home.join(format!("{name}.config.toml"))
}

/// Where a run's system text goes.
enum Place {
    /// Claude's `--append-system-prompt-file`.
    File(PathBuf),
    /// Codex's `-p NAME`.
    Profile(String),
}

/// None when the run passes no system text: an empty one, or a Codex resume (the rollout has it).
fn place(spec: &RunSpec) -> Option<Place> {
    if spec.system_text.is_empty() {
        return None;
    }
    match (spec.provider, &spec.session) {
        (ProviderKind::Claude, _) => Some(Place::File(
            spec.run_dir.join(format!("{}.txt", spec.run_name)),
        )),
        (ProviderKind::Codex, SessionMode::New { .. } | SessionMode::Fork { .. }) => {
            Some(Place::Profile(spec.run_name.clone()))
        }
        (ProviderKind::Codex, SessionMode::Resume { .. }) | (ProviderKind::Local, _) => None,
    }
}

/// The arguments naming the run's system-text file (none when it passes none).
pub fn args(spec: &RunSpec) -> Vec<OsString> {
    match place(spec) {
        Some(Place::File(path)) => vec!["--append-system-prompt-file".into(), path.into()],
        Some(Place::Profile(name)) => vec!["-p".into(), name.into()],
        None => Vec::new(),
    }
}

/// The file the run of `spec` reads its system text from, and what it holds.
pub fn planned(spec: &RunSpec, homes: &ProviderHomes) -> Option<(PathBuf, Vec<u8>)> {
    match place(spec)? {
        // Byte for byte: the CLI passes the file on verbatim, trailing newline included.
        Place::File(path) => Some((path, spec.system_text.as_bytes().to_vec())),
        Place::Profile(name) => Some((
            codex_profile_path(&homes.codex, &name),
            format!(
                "developer_instructions = {}\n",
                toml_basic_string(&spec.system_text)
            )
            .into_bytes(),
        )),
    }
}

/// A profile of the user's own in Codex's extra arguments (`-p NAME`, `--profile NAME`,
/// `--profile=NAME`, `-pNAME`): Codex refuses a second `-p`, so baton cannot add its own.
pub fn user_profile(extra_args: &[String]) -> Option<&str> {
    let mut args = extra_args.iter();
    while let Some(arg) = args.next() {
        if arg == "-p" || arg == "--profile" {
            return Some(args.next().map(String::as_str).unwrap_or(""));
        }
        if let Some(name) = arg.strip_prefix("--profile=") {
            return Some(name);
        }
        if let Some(name) = arg.strip_prefix("-p").filter(|_| !arg.starts_with("--")) {
            return Some(name);
        }
    }
    None
}

/// A system-text file written for one run; removed when dropped (the run ended, however).
#[derive(Debug)]
pub struct Written {
    path: PathBuf,
}

impl Written {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        // Nothing to do about a failure here: the next run's sweep tries again.
        let _ = fs::remove_file(&self.path);
    }
}

/// Writes the file of [`planned`] (0600, never through a link), its folder made 0700 when
/// missing, and checks it is there: Codex silently ignores a profile that does not exist.
pub fn write(spec: &RunSpec, homes: &ProviderHomes) -> io::Result<Option<Written>> {
    let Some((path, bytes)) = planned(spec, homes) else {
        return Ok(None);
    };
    if let Some(dir) = path.parent() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    // A leftover of the same name (a crash) is replaced, not appended to.
    match fs::remove_file(&path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let written = Written { path };
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(&written.path)?;
    // Not synced: the file lives only for the run and the CLI reads it through the page cache;
    // a crash's leftover is swept (`sweep`), so a sync would only add to the turn's start.
    file.write_all(&bytes)?;
    drop(file);
    if !fs::symlink_metadata(&written.path)?.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a file after writing it",
            written.path.display()
        )));
    }
    Ok(Some(written))
}

/// Removes what a crash left of terminal `terminal_id`'s runs: every file in its `run_dir`
/// but `keep` (the file of a CLI started for the run about to go on), and its profiles in
/// `codex_home`. Call it only while none of its other runs is going on. Returns how many
/// files went.
pub fn sweep(run_dir: &Path, codex_home: &Path, terminal_id: &str, keep: Option<&Path>) -> usize {
    let prefix = terminal_prefix(terminal_id);
    let mut removed = 0;
    let mut remove = |dir: &Path, pick: &dyn Fn(&str) -> bool| {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if pick(&name.to_string_lossy()) && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
    };
    let kept = keep
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned());
    remove(run_dir, &|name| kept.as_deref() != Some(name));
    remove(codex_home, &|name| {
        name.starts_with(&prefix) && name.ends_with(".config.toml")
    });
    removed
}

#[cfg(test)]
#[path = "system_file_tests.rs"]
mod tests;
