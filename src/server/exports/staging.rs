//! An archive unpacked for an import: the total its manifest declares is held to the import's
//! size limit before anything is inflated, then every member is streamed from the zip into a
//! private folder of the data directory through its size and SHA-256 check (never whole in
//! memory: a 1 MB zip may declare a 1 GiB member with the right digest). The turn streams are
//! linked into place from there and the CLI files copied line by line; only the journal (and
//! the stream of a turn still running at export) is read whole, to be parsed. The folder goes
//! when the import ends, whatever happened.

use std::collections::HashMap;
use std::fs;
use std::io::{self, BufRead, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::manifest::{self, ArchiveError, Manifest};
use crate::error::BatonError;

/// What an import unpacks at most without `--max-size`: far more than a terminal's journal,
/// streams and session files, far less than a disk.
pub const DEFAULT_MAX_BYTES: u64 = 512 * MIB;
const MIB: u64 = 1024 * 1024;
/// The largest manifest read (a zip claiming more is refused before it is inflated).
const MAX_MANIFEST_BYTES: u64 = 16 * MIB;
/// The longest first line read of a session file (where a Codex fork names its base).
const MAX_FIRST_LINE: u64 = 16 * MIB;

/// The members of an archive, unpacked and checked, by archive path.
pub struct Staged {
    dir: PathBuf,
    files: HashMap<String, PathBuf>,
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

impl Staged {
    pub fn contains(&self, member: &str) -> bool {
        self.files.contains_key(member)
    }

    /// The unpacked file of `member`.
    pub fn path(&self, member: &str) -> Option<&Path> {
        self.files.get(member).map(PathBuf::as_path)
    }

    /// `member`'s bytes, whole (the journal, a running turn's stream: read to be parsed).
    pub fn read(&self, member: &str) -> Result<Option<Vec<u8>>, BatonError> {
        let Some(path) = self.path(member) else {
            return Ok(None);
        };
        fs::read(path)
            .map(Some)
            .map_err(|e| BatonError::failed(format!("cannot read {}: {e}", path.display())))
    }

    /// The turn streams: (file name under `turns/`, unpacked file).
    pub fn turns(&self) -> impl Iterator<Item = (&str, &Path)> {
        self.files.iter().filter_map(|(member, path)| {
            Some((member.strip_prefix("baton/turns/")?, path.as_path()))
        })
    }

    /// A new file's path in the folder (`name`: one of its own), for a copy made from a member.
    pub fn scratch(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

fn refused(file: &str, e: ArchiveError) -> BatonError {
    BatonError::bad_input(format!("cannot import {file}: {e}; nothing was imported"))
}

/// The manifest of zip `file`, and every member unpacked under `data_root` and checked
/// against it; refused when the members add up to more than `max` bytes.
pub fn unpack(file: &str, data_root: &Path, max: u64) -> Result<(Manifest, Staged), BatonError> {
    clear_stale(data_root);
    let f = fs::File::open(file).map_err(|e| {
        BatonError::bad_input(format!(
            "cannot open {file}: {e} (give the path of a zip `baton export` wrote)"
        ))
    })?;
    let mut zip = zip::ZipArchive::new(f).map_err(|e| {
        BatonError::bad_input(format!(
            "{file} is not a zip archive ({e}): give the path of a zip `baton export` wrote"
        ))
    })?;
    let m = read_manifest(&mut zip, file)?;
    let total = m
        .files
        .iter()
        .fold(0u64, |sum, f| sum.saturating_add(f.size));
    if total > max {
        return Err(BatonError::bad_input(too_large(file, total, max)));
    }
    let dir = data_root.join(format!(
        "{STAGING}{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    crate::paths::ensure_private_dir(&dir)
        .map_err(|e| BatonError::failed(format!("cannot create {}: {e}", dir.display())))?;
    let mut staged = Staged {
        dir,
        files: HashMap::new(),
    };
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| {
            BatonError::bad_input(format!(
                "cannot read {file}: {e}: the archive is damaged, export the terminal again"
            ))
        })?;
        let path = entry
            .name()
            .map_err(|e| refused(file, ArchiveError::BadManifest(e.to_string())))?
            .into_owned();
        if path == manifest::MANIFEST {
            continue;
        }
        let Some(listed) = m.entry(&path) else {
            return Err(refused(file, m.unlisted(&path)));
        };
        if staged.contains(&path) {
            return Err(refused(file, ArchiveError::Duplicate(path)));
        }
        let target = staged.scratch(&format!("member-{}", staged.files.len()));
        let (size, digest) = copy_hashed(&mut entry, &target, listed.size)
            .map_err(|e| BatonError::failed(format!("cannot unpack {path} of {file}: {e}")))?;
        m.check_member(&path, size, &digest)
            .map_err(|e| refused(file, e))?;
        staged.files.insert(path, target);
    }
    m.check_complete(|p| staged.contains(p))
        .map_err(|e| refused(file, e))?;
    Ok((m, staged))
}

/// The unpacked archives' folders in the data directory: `.import-<server pid>-<uuid>`.
const STAGING: &str = ".import-";

/// Removes the folders of imports a server that died (another pid) left behind; this
/// server's own imports, running now, keep theirs.
fn clear_stale(data_root: &Path) {
    let Ok(entries) = fs::read_dir(data_root) else {
        return;
    };
    let own = format!("{STAGING}{}-", std::process::id());
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(STAGING) && !name.starts_with(&own) {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// The refusal of an archive that unpacks to `total` bytes, over the limit `max`: what to pass.
fn too_large(file: &str, total: u64, max: u64) -> String {
    let mib = total.div_ceil(MIB);
    let flag = if mib >= 1024 {
        format!("{}G", mib.div_ceil(1024))
    } else {
        format!("{mib}M")
    };
    format!(
        "cannot import {file}: it unpacks to {mib} MiB, more than the import limit of {} MiB: pass --max-size {flag} to import it (nothing was imported)",
        max / MIB
    )
}

fn read_manifest<R: Read + io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    file: &str,
) -> Result<Manifest, BatonError> {
    let mut entry = zip
        .by_name(manifest::MANIFEST)
        .map_err(|_| refused(file, ArchiveError::NoManifest(file.to_string())))?;
    let mut bytes = Vec::new();
    (&mut entry)
        .take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| refused(file, ArchiveError::BadManifest(e.to_string())))?;
    Manifest::parse(&bytes).map_err(|e| refused(file, e))
}

/// Streams `from` into the new file `target` (0600), at most `size + 1` bytes (one more than
/// the manifest lists is enough to refuse it): the bytes written and their SHA-256.
fn copy_hashed(from: &mut impl Read, target: &Path, size: u64) -> io::Result<(u64, String)> {
    let mut out = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(target)?;
    let mut from = from.take(size.saturating_add(1));
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hash.update(&buf[..n]);
        out.write_all(&buf[..n])?;
        total += n as u64;
    }
    out.sync_data()?;
    Ok((total, manifest::hex(&hash.finalize())))
}

/// A new file `to` with `from`'s bytes: a hard link (both in the data directory), else a copy
/// (0600); never replacing a file.
pub fn link_or_copy(from: &Path, to: &Path) -> io::Result<()> {
    match fs::hard_link(from, to) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
            let mut out = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(to)?;
            io::copy(&mut fs::File::open(from)?, &mut out)?;
            out.sync_data()
        }
        linked => linked,
    }
}

/// The first line of file `path` (at most [`MAX_FIRST_LINE`] bytes).
pub fn first_line(path: &Path) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    io::BufReader::new(fs::File::open(path)?.take(MAX_FIRST_LINE)).read_until(b'\n', &mut line)?;
    Ok(line)
}

/// Copies `from` to the new file `to` a line at a time, each line through `edit` (line-local
/// rewrites give the same bytes as on the whole file).
pub fn copy_lines(from: &Path, to: &Path, edit: impl Fn(&[u8]) -> Vec<u8>) -> io::Result<()> {
    let mut input = io::BufReader::new(fs::File::open(from)?);
    let mut out = io::BufWriter::new(
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(to)?,
    );
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        out.write_all(&edit(&line))?;
    }
    out.into_inner().map_err(io::Error::other)?.sync_data()
}

/// Whether file `a`'s bytes start with all of file `b`'s (`a == b` when `whole`).
pub fn starts_with(a: &Path, b: &Path, whole: bool) -> io::Result<bool> {
    let (la, lb) = (fs::metadata(a)?.len(), fs::metadata(b)?.len());
    if lb > la || (whole && la != lb) {
        return Ok(false);
    }
    let (mut ra, mut rb) = (
        io::BufReader::new(fs::File::open(a)?.take(lb)),
        io::BufReader::new(fs::File::open(b)?),
    );
    loop {
        let (ca, cb) = (ra.fill_buf()?, rb.fill_buf()?);
        let n = ca.len().min(cb.len());
        if n == 0 {
            return Ok(ca.is_empty() && cb.is_empty());
        }
        if ca[..n] != cb[..n] {
            return Ok(false);
        }
        ra.consume(n);
        rb.consume(n);
    }
}

/// How many lines file `path` has (newlines counted).
pub fn lines(path: &Path) -> io::Result<usize> {
    let mut r = io::BufReader::new(fs::File::open(path)?);
    let mut n = 0;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(n);
        }
        n += buf.iter().filter(|b| **b == b'\n').count();
        let len = buf.len();
        r.consume(len);
    }
}
