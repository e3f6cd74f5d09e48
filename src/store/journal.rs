//! The append-only journal of one terminal: a JSON line per entry, flushed and synced before the
//! index changes. Reading tolerates a torn last line (a crash mid-write) and reports it.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::records::Entry;
use crate::paths::open_private_append;

/// Appends `entries`, a line each, in one write. A torn last line left by a crash is closed
/// off first so the new entries start on a line of their own. The lines are in the file (a
/// crash of the process loses none of them), not yet on the disk: it returns the file for
/// the caller to sync (`Store` syncs before the index changes).
pub fn write(path: &Path, entries: &[Entry]) -> io::Result<File> {
    let mut lines = Vec::new();
    for e in entries {
        serde_json::to_writer(&mut lines, e).map_err(io::Error::other)?;
        lines.push(b'\n');
    }
    let mut f = open_private_append(path)?;
    if ends_without_newline(path)? {
        lines.insert(0, b'\n');
    }
    f.write_all(&lines)?;
    f.flush()?;
    Ok(f)
}

/// Writes a NEW journal holding `entries`, all or nothing: to a temporary file first, synced,
/// then renamed into place (and the folder synced), so a crash leaves either the whole journal
/// or none (a leftover temporary file is never read). Fails if the journal exists.
pub fn create(path: &Path, entries: &[Entry]) -> io::Result<()> {
    create_after(path, &[], entries)
}

/// [`create`], with the journal starting on `head` byte for byte (whole lines: an import's
/// journal from another machine) before `entries`.
pub fn create_after(path: &Path, head: &[u8], entries: &[Entry]) -> io::Result<()> {
    if path.exists() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} exists", path.display()),
        ));
    }
    let mut bytes = head.to_vec();
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    for e in entries {
        serde_json::to_writer(&mut bytes, e).map_err(io::Error::other)?;
        bytes.push(b'\n');
    }
    let temp = path.with_extension("jsonl.new");
    let _ = fs::remove_file(&temp);
    let mut f = open_private_append(&temp)?;
    f.write_all(&bytes)?;
    f.sync_all()?;
    fs::rename(&temp, path)?;
    if let Some(dir) = path.parent() {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// `bytes` up to and including its last newline: whole lines only (a line being appended is
/// left out).
pub fn whole_lines(bytes: &[u8]) -> &[u8] {
    match bytes.iter().rposition(|b| *b == b'\n') {
        Some(i) => &bytes[..=i],
        None => &[],
    }
}

fn ends_without_newline(path: &Path) -> io::Result<bool> {
    let mut f = File::open(path)?;
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    f.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    f.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// What reading a journal found.
#[derive(Debug, Default, PartialEq)]
pub struct ReadJournal {
    pub entries: Vec<Entry>,
    /// Lines that could not be read (1-based line number and why), e.g. a torn last line.
    pub skipped: Vec<(usize, String)>,
    /// The number of the last line that holds anything (0: an empty journal), so a reader can
    /// tell a torn last line (a crash mid-write) from a bad line in the middle.
    pub last_line: usize,
    /// Of `skipped`, the lines that are a record cut short (a write a crash interrupted, never
    /// synced, so never acknowledged), wherever they are: a later append closes one off.
    pub torn: Vec<usize>,
}

/// Why a line is in `skipped` although its entry was kept (its invalid UTF-8 replaced).
pub const MENDED: &str = "kept with its invalid UTF-8 replaced";

impl ReadJournal {
    fn skip(&mut self, line: usize, e: &serde_json::Error) {
        if e.is_eof() {
            self.torn.push(line);
        }
        self.skipped.push((line, e.to_string()));
    }
}

pub fn read(path: &Path) -> io::Result<ReadJournal> {
    Ok(parse(&fs::read(path)?))
}

/// The entries of a journal's bytes (see [`read`]).
pub fn parse(bytes: &[u8]) -> ReadJournal {
    let mut out = ReadJournal::default();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        out.last_line = i + 1;
        match serde_json::from_slice::<Entry>(raw) {
            Ok(e) => out.entries.push(e),
            // A bad byte that only broke the UTF-8 of a string: the line is kept, with U+FFFD
            // where the byte was, and reported.
            Err(e) if std::str::from_utf8(raw).is_err() => {
                match serde_json::from_str::<Entry>(&String::from_utf8_lossy(raw)) {
                    Ok(entry) => {
                        out.entries.push(entry);
                        out.skipped.push((i + 1, MENDED.to_string()));
                    }
                    Err(_) => out.skip(i + 1, &e),
                }
            }
            Err(e) => out.skip(i + 1, &e),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::records::Record;
    use pretty_assertions::assert_eq;

    fn entry(text: &str) -> Entry {
        Entry {
            at: "t".into(),
            record: Record::InstructionAdded {
                text: text.into(),
                turn_id: None,
            },
        }
    }

    #[test]
    fn torn_last_line_is_reported_and_the_next_append_starts_clean() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("journal.jsonl");
        write(&p, &[entry("one")]).unwrap();
        // A crash mid-write leaves half a line.
        let mut f = open_private_append(&p).unwrap();
        f.write_all(br#"{"at":"t","type":"instr"#).unwrap();
        let r = read(&p).unwrap();
        assert_eq!(r.entries, vec![entry("one")]);
        assert_eq!(r.skipped.len(), 1);
        assert_eq!(r.skipped[0].0, 2);
        assert_eq!(r.last_line, 2);
        write(&p, &[entry("two")]).unwrap();
        let r = read(&p).unwrap();
        assert_eq!(r.entries, vec![entry("one"), entry("two")]);
        assert_eq!(r.skipped.len(), 1);
        // Closed off by the next append, it is still a record cut short, not garbage.
        assert_eq!(r.torn, vec![2]);
        let garbage = parse(b"{\"at\": garbage\n");
        assert_eq!((garbage.skipped.len(), garbage.torn), (1, vec![]));
    }
}
