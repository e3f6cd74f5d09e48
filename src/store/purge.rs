//! Baton's own data of a pruned terminal: `baton prune` deletes its folder
//! (`terminals/<id>/`: journal, raw turn streams, screenshots) once its `TerminalRemoved` is
//! synced, so the disk space is freed (`baton rm` keeps the journal). A crash between the two
//! leaves a journal that ends removed with a purge asked for; the next rebuild of the index
//! ([`finished`]) leaves it out and deletes it. The index never needs the folder again: a
//! removed terminal has no rows. See ARCHITECTURE.md ("The journal's records").

use super::records::{Entry, Record};

/// The journal belongs to a terminal that was removed by a purging removal: its folder is to
/// be deleted, not indexed.
pub fn finished(entries: &[Entry]) -> bool {
    let removed = matches!(
        entries.last(),
        Some(Entry {
            record: Record::TerminalRemoved,
            ..
        })
    );
    removed
        && entries
            .iter()
            .rev()
            .any(|e| matches!(e.record, Record::RemovalStarted { purge: true, .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(record: Record) -> Entry {
        Entry {
            at: "2026-01-01T00:00:00.000Z".to_string(),
            record,
        }
    }

    fn started(purge: bool) -> Record {
        Record::RemovalStarted {
            delete_branch: false,
            force: false,
            purge,
        }
    }

    #[test]
    fn only_a_finished_purging_removal_is_deleted() {
        let cases = [
            (vec![started(true), Record::TerminalRemoved], true),
            // `rm` keeps the journal.
            (vec![started(false), Record::TerminalRemoved], false),
            // Not finished yet: `finish_removals` carries it out first.
            (vec![started(true)], false),
            (
                vec![
                    started(true),
                    Record::RemovalCancelled {
                        error: "locked".to_string(),
                    },
                ],
                false,
            ),
            (vec![], false),
            (vec![Record::Archived], false),
        ];
        for (records, want) in cases {
            let entries: Vec<Entry> = records.into_iter().map(entry).collect();
            assert_eq!(finished(&entries), want, "{entries:?}");
        }
    }
}
