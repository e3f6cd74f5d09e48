//! The journals check: every `terminals/<id>/journal.jsonl` read as the index rebuild reads it,
//! each line it cannot use reported with its file and line number. A torn LAST line is what a
//! crash mid-write leaves (a note: the next write starts on a line of its own), and so is such
//! a torn line that later entries followed (a JSON value cut short: never acknowledged); any
//! other unreadable line is a fault. No fix ever edits a journal (it is the truth the index is
//! rebuilt from): the finding says what the user can do by hand.

use std::path::PathBuf;

use super::report::{plural, Check, Status};
use super::Found;
use crate::paths::DataDir;
use crate::store::journal::{self, ReadJournal};
use crate::store::{recovered_name, Record};

/// One terminal folder and what reading its journal gave.
pub struct Scanned {
    pub terminal_id: String,
    pub path: PathBuf,
    pub read: Result<ReadJournal, String>,
}

/// Reads every journal of `data` (folders without one are reported by [`check`]).
pub fn scan(data: &DataDir) -> Vec<Scanned> {
    let Ok(rd) = std::fs::read_dir(data.terminals()) else {
        return Vec::new();
    };
    let mut out: Vec<Scanned> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| {
            let terminal_id = e.file_name().to_string_lossy().into_owned();
            let path = data.journal(&terminal_id);
            let read = match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_file() => journal::read(&path).map_err(|e| e.to_string()),
                Ok(_) => Err("it is not a regular file".to_string()),
                Err(e) => Err(e.to_string()),
            };
            Scanned {
                terminal_id,
                path,
                read,
            }
        })
        .collect();
    out.sort_by(|a, b| a.terminal_id.cmp(&b.terminal_id));
    out
}

/// How a line the journal reader skipped or mended counts.
pub fn judge(line: usize, last_line: usize, torn: bool, why: &str) -> (Status, String) {
    if why == journal::MENDED {
        return (
            Status::Note,
            format!("{why} (the entry is used; nothing to do)"),
        );
    }
    if line == last_line {
        return (
            Status::Note,
            format!("a torn last line, as a crash mid-write leaves ({why}): baton skips it and the next entry starts on a line of its own; nothing to do"),
        );
    }
    if torn {
        // A torn line the next append closed off (`journal::write` starts on a line of its
        // own): its write was cut short, so it was never synced, never acknowledged.
        return (
            Status::Note,
            format!("a torn line a crash mid-write left, closed off by the next entry ({why}): its entry was never acknowledged; baton skips it; nothing to do"),
        );
    }
    (
        Status::Fault,
        format!("unreadable ({why}): baton skips this line and keeps every other entry; it never edits a journal, so nothing here can fix it. Look at the line; if it is only damage, copy the journal aside and delete that line by hand while no server runs, then `baton reindex`"),
    )
}

pub fn check(scans: &[Scanned]) -> Vec<Found> {
    let mut out = Vec::new();
    for s in scans {
        let read = match &s.read {
            Ok(r) => r,
            Err(why) if !s.path.exists() => {
                out.push(found(
                    Status::Note,
                    s.path.display().to_string(),
                    format!(
                        "no journal ({why}): this folder is not a terminal and baton ignores it"
                    ),
                ));
                continue;
            }
            Err(why) => {
                out.push(found(
                    Status::Fault,
                    s.path.display().to_string(),
                    format!("cannot be read ({why}): its terminal is missing from the index until it can"),
                ));
                continue;
            }
        };
        let first_lost = !read.entries.is_empty()
            && !matches!(
                read.entries.first().map(|e| &e.record),
                Some(Record::TerminalCreated { .. })
            );
        for (line, why) in &read.skipped {
            let (status, mut detail) = judge(*line, read.last_line, read.torn.contains(line), why);
            if first_lost && Some(line) == read.skipped.first().map(|(l, _)| l) {
                detail.push_str(&format!(
                    "; its first record is lost, so the terminal is listed as {} (rename it with `baton rename`)",
                    recovered_name(&s.terminal_id)
                ));
            }
            out.push(found(
                status,
                format!("{}:{line}", s.path.display()),
                detail,
            ));
        }
    }
    if out.is_empty() {
        out.push(found(
            Status::Ok,
            "terminals".into(),
            format!("{} read, every line whole", plural(scans.len(), "journal")),
        ));
    }
    out
}

fn found(status: Status, subject: String, detail: String) -> Found {
    Found::new(Check::Journals, status, subject, detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn only_a_bad_line_that_is_not_a_torn_write_is_a_fault() {
        let rows = [
            (7, 7, false, "expected value", Status::Note),
            // A torn line a later append closed off.
            (
                3,
                7,
                true,
                "EOF while parsing a string at line 1 column 60",
                Status::Note,
            ),
            (
                3,
                7,
                false,
                "trailing characters at line 1 column 3",
                Status::Fault,
            ),
            (1, 7, false, "expected value", Status::Fault),
            (3, 7, false, journal::MENDED, Status::Note),
        ];
        for (line, last, torn, why, want) in rows {
            assert_eq!(judge(line, last, torn, why).0, want, "{line}/{last} {why}");
        }
    }
}
