//! Writing an export: the journal (copied while no append runs), the turn streams it names,
//! the CLI session files of its sessions, and the manifest, into a zip written under a
//! temporary name in the target folder and linked into place under a name nobody has
//! (`<name>-<UTC time>[-N].zip`, 0600). Missing baton data aborts with nothing left behind;
//! a missing CLI file is a warning. The terminal is not changed.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::manifest::{self, CheckoutInfo, FileEntry, FileKind, Manifest, Missing};
use super::manifest::{SessionEntry, TerminalInfo};
use crate::error::BatonError;
use crate::git;
use crate::paths::ensure_private_dir;
use crate::protocol::views::ExportView;
use crate::providers;
use crate::server::state::Server;
use crate::store::journal::{parse, whole_lines};
use crate::store::{Entry, Record, TerminalRow};
use crate::words::{CheckoutMode, ProviderKind};

/// One file going into the zip.
struct Member {
    path: String,
    kind: FileKind,
    bytes: Vec<u8>,
}

pub fn export(srv: &Server, name: &str, out: Option<&str>) -> Result<ExportView, BatonError> {
    let t = srv.terminal(name)?;
    let folder = target_folder(srv, out)?;
    let journal = srv.store.journal_snapshot(&t.id).map_err(|e| {
        BatonError::failed(format!(
            "{e}: {name} was not exported (nothing was written)"
        ))
    })?;
    if journal.is_empty() {
        return Err(BatonError::failed(format!(
            "{name}'s journal is empty: nothing to export"
        )));
    }
    let entries = parse(&journal).entries;
    // One time for the manifest and the file's name.
    let now = chrono::Utc::now();
    let mut members = vec![Member {
        path: manifest::JOURNAL.to_string(),
        kind: FileKind::Journal,
        bytes: journal,
    }];
    members.extend(turn_streams(srv, &t, &entries)?);
    let mut missing = Vec::new();
    let sessions = session_files(srv, &t, &entries, &mut members, &mut missing);
    let files: Vec<FileEntry> = members
        .iter()
        .map(|m| FileEntry {
            path: m.path.clone(),
            kind: m.kind,
            size: m.bytes.len() as u64,
            sha256: manifest::sha256_hex(&m.bytes),
        })
        .collect();
    let m = Manifest {
        format: manifest::FORMAT,
        baton_version: env!("CARGO_PKG_VERSION").to_string(),
        exported_at: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        terminal: TerminalInfo {
            id: t.id.clone(),
            name: t.name.clone(),
            provider: t.provider,
            model: t.model.clone(),
            dir: t.dir.clone(),
            source: t.source.clone(),
            mode: t.mode,
            screenshots: srv.screenshots(&t.id).to_string_lossy().into_owned(),
        },
        checkout: checkout(&t),
        files,
        sessions,
        missing,
    };
    let stamp = now.format("%Y%m%dT%H%M%SZ").to_string();
    let path = write_zip(&folder, &format!("{}-{stamp}", t.name), &m, &members).map_err(|e| {
        BatonError::failed(format!(
            "cannot write the export into {}: {e} (nothing was left behind)",
            folder.display()
        ))
    })?;
    Ok(ExportView {
        name: t.name,
        path: path.to_string_lossy().into_owned(),
        files: members.len(),
        bytes: members.iter().map(|m| m.bytes.len() as u64).sum(),
        warnings: m
            .missing
            .iter()
            .map(|x| format!("{}: {}", x.what, x.why))
            .collect(),
    })
}

/// `--out DIR` (it must exist), else `<data>/exports` (made 0700).
fn target_folder(srv: &Server, out: Option<&str>) -> Result<PathBuf, BatonError> {
    match out {
        Some(dir) => {
            let p = PathBuf::from(dir);
            if p.is_dir() {
                Ok(p)
            } else {
                Err(BatonError::bad_input(format!(
                    "--out {dir} is not a folder: create it first, or leave --out out to write into {}",
                    srv.data_root().join("exports").display()
                )))
            }
        }
        None => {
            let p = srv.data_root().join("exports");
            ensure_private_dir(&p)
                .map_err(|e| BatonError::failed(format!("cannot create {}: {e}", p.display())))?;
            Ok(p)
        }
    }
}

/// `path`'s bytes up to its last newline (None: there is no such file).
fn read_whole_lines(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(whole_lines(&bytes).to_vec())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The raw stream of every turn the journal started. A turn whose CLI started (`turn_process`)
/// must have one; a turn refused before its CLI ran may not.
fn turn_streams(
    srv: &Server,
    t: &TerminalRow,
    entries: &[Entry],
) -> Result<Vec<Member>, BatonError> {
    let ran: BTreeSet<&str> = entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::TurnProcess { turn_id, .. } => Some(turn_id.as_str()),
            _ => None,
        })
        .collect();
    // A voided start has no stream (recovery removed it): no turn to carry.
    let voided: BTreeSet<&str> = entries
        .iter()
        .filter_map(|e| match &e.record {
            Record::TurnVoided { turn_id } => Some(turn_id.as_str()),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for e in entries {
        let Record::TurnStarted {
            turn_id, number, ..
        } = &e.record
        else {
            continue;
        };
        if voided.contains(turn_id.as_str()) {
            continue;
        }
        // An id no path may be built from (a journal an older import took as it was): its
        // stream is not read, and an import refuses the journal.
        if !crate::validate::safe_id(turn_id) {
            continue;
        }
        let path = srv.turn_file(&t.id, turn_id);
        let read = read_whole_lines(&path).map_err(|e| {
            BatonError::failed(format!(
                "cannot read turn {number}'s raw stream {}: {e}: {} was not exported",
                path.display(),
                t.name
            ))
        })?;
        match read {
            Some(bytes) => out.push(Member {
                path: manifest::turn_path(turn_id),
                kind: FileKind::Turn,
                bytes,
            }),
            None if ran.contains(turn_id.as_str()) => {
                return Err(BatonError::failed(format!(
                    "turn {number}'s raw stream {} is missing: {} was not exported (see `baton doctor`)",
                    path.display(),
                    t.name
                )))
            }
            None => {}
        }
    }
    Ok(out)
}

/// Every CLI session the journal names (sessions started, sessions a fork starts from), with
/// the directory its conversation ran in (where Claude keeps it).
fn named_sessions(t: &TerminalRow, entries: &[Entry]) -> Vec<(ProviderKind, String, String)> {
    let mut dirs = std::collections::HashMap::new();
    let mut out: Vec<(ProviderKind, String, String)> = Vec::new();
    let mut add = |p: ProviderKind, id: &str, dir: &str| {
        let has_files = providers::of(p).session_files().is_some();
        // An id no path may be built from is not looked for (see `turn_streams`).
        if has_files
            && crate::validate::safe_id(id)
            && !out.iter().any(|(q, i, _)| *q == p && i == id)
        {
            out.push((p, id.to_string(), dir.to_string()));
        }
    };
    for e in entries {
        match &e.record {
            Record::ConversationOpened {
                conversation_id,
                dir,
                fork,
                ..
            } => {
                dirs.insert(conversation_id.clone(), dir.clone());
                if let Some(f) = fork {
                    add(f.provider, &f.session_id, dir);
                }
            }
            Record::SessionStarted {
                conversation_id,
                provider,
                session_id,
                ..
            } => {
                let dir = dirs.get(conversation_id).unwrap_or(&t.dir).clone();
                add(*provider, session_id, &dir);
            }
            _ => {}
        }
    }
    out
}

/// The CLI files of the terminal's sessions, added to `members`; what is not found goes to
/// `missing`. A Codex fork's rollouts it builds on come along.
fn session_files(
    srv: &Server,
    t: &TerminalRow,
    entries: &[Entry],
    members: &mut Vec<Member>,
    missing: &mut Vec<Missing>,
) -> Vec<SessionEntry> {
    let mut todo = named_sessions(t, entries);
    let mut out = Vec::new();
    let mut i = 0;
    while i < todo.len() {
        let (provider, id, dir) = todo[i].clone();
        i += 1;
        let Some(files) = providers::of(provider).session_files() else {
            continue;
        };
        let read = files.find(&srv.homes, Path::new(&dir), &id).and_then(|p| {
            let rel = p.strip_prefix(files.home(&srv.homes)).ok()?;
            let rel = rel.to_string_lossy().into_owned();
            Some((rel, read_whole_lines(&p).ok().flatten()?))
        });
        let Some((rel, bytes)) = read else {
            missing.push(Missing {
                what: format!("{provider} session {id}"),
                why: format!(
                    "its session file was not found under {}: an imported terminal starts a fresh {provider} session in the same conversation",
                    files.searched(&srv.homes).display()
                ),
            });
            out.push(SessionEntry {
                provider,
                session_id: id,
                file: None,
            });
            continue;
        };
        if let Some(base) = files.history_base(&bytes) {
            if !todo.iter().any(|(p, s, _)| *p == provider && *s == base) {
                todo.push((provider, base, dir.clone()));
            }
        }
        let Some((kind, path)) = manifest::session_member(provider, &rel) else {
            continue;
        };
        if manifest::check_path(&path, kind).is_err() {
            missing.push(Missing {
                what: format!("{provider} session {id}"),
                why: format!("its file {rel} is not where the CLI keeps sessions: left out"),
            });
            continue;
        }
        out.push(SessionEntry {
            provider,
            session_id: id,
            file: Some(path.clone()),
        });
        members.push(Member { path, kind, bytes });
    }
    out
}

fn checkout(t: &TerminalRow) -> Option<CheckoutInfo> {
    let wt = t
        .worktree
        .as_ref()
        .filter(|_| t.mode == CheckoutMode::Worktree)?;
    Some(CheckoutInfo {
        repository: wt.repo.to_string_lossy().into_owned(),
        worktree: wt.path.to_string_lossy().into_owned(),
        branch: wt.branch.clone(),
        base_branch: wt.base_branch.clone(),
        base_commit: wt.base_commit.clone(),
        head_commit: git::branch_head(wt).ok(),
    })
}

/// The zip, written to a temporary file in `folder` and linked to a free final name.
/// `base` is the name without `.zip` (`NAME-<time>`).
fn write_zip(folder: &Path, base: &str, m: &Manifest, members: &[Member]) -> io::Result<PathBuf> {
    let temp = folder.join(format!(
        ".{base}.zip.partial-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let written = fill_zip(&temp, m, members).and_then(|_| link_free(&temp, folder, base));
    let _ = fs::remove_file(&temp);
    written
}

fn fill_zip(temp: &Path, m: &Manifest, members: &[Member]) -> io::Result<()> {
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(temp)?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o600)
        .large_file(true);
    let manifest_bytes = serde_json::to_vec_pretty(m).map_err(io::Error::other)?;
    let all = std::iter::once((manifest::MANIFEST, manifest_bytes.as_slice())).chain(
        members
            .iter()
            .map(|x| (x.path.as_str(), x.bytes.as_slice())),
    );
    for (path, bytes) in all {
        zip.start_file(path, options).map_err(io::Error::other)?;
        zip.write_all(bytes)?;
    }
    let file = zip.finish().map_err(io::Error::other)?;
    file.sync_all()
}

/// Links `temp` to `<base>.zip`, or `<base>-1.zip`, `-2`… when taken (a link never replaces).
fn link_free(temp: &Path, folder: &Path, base: &str) -> io::Result<PathBuf> {
    for n in 0..10_000 {
        let file = match n {
            0 => format!("{base}.zip"),
            n => format!("{base}-{n}.zip"),
        };
        let target = folder.join(file);
        match fs::hard_link(temp, &target) {
            Ok(()) => {
                if let Ok(dir) = fs::File::open(folder) {
                    let _ = dir.sync_all();
                }
                return Ok(target);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "every export name of this second is taken",
    ))
}
