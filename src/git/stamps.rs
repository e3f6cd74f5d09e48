//! What an automatic commit's result holds under, for the change tracker (`tracker.rs`): HEAD,
//! the index's entries, and the stamps of the files that say what git ignores.

use std::hash::{Hash, Hasher};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use git2::{Oid, Repository};

/// The index's and the ignore and configuration files' stamps, and HEAD.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Stamps {
    pub(super) index: Option<Stamp>,
    pub(super) head: Option<Oid>,
    pub(super) rules: Vec<Option<Stamp>>,
}

/// Size, change and modification times, inode: a file rewritten gets a new one.
pub(super) type Stamp = (u64, i64, i64, i64, i64, u64);

impl Stamps {
    /// The stamps of `repo` now.
    pub(super) fn read(repo: &Repository) -> Stamps {
        let mut rules = vec![
            repo.commondir().join("info").join("exclude"),
            repo.commondir().join("config"),
            repo.path().join("config.worktree"),
        ];
        rules.extend(git2::Config::find_global().ok());
        if let Ok(xdg) = git2::Config::find_xdg() {
            rules.extend(xdg.parent().map(|d| d.join("ignore")));
            rules.push(xdg);
        }
        rules.extend(
            repo.config()
                .ok()
                .and_then(|c| c.get_path("core.excludesFile").ok()),
        );
        Stamps {
            rules: rules.iter().map(|p| stamp(p)).collect(),
            ..Stamps::after(repo, &[])
        }
    }

    /// The stamps of `repo` after a commit wrote its index and HEAD, with the rules' stamps
    /// of `before` (read before the walk: a rule changed while it ran is then noticed at the
    /// next take, and the configuration is not parsed a second time).
    pub(super) fn after(repo: &Repository, before: &[Option<Stamp>]) -> Stamps {
        Stamps {
            index: stamp(&repo.path().join("index")),
            head: repo.head().ok().and_then(|h| h.target()),
            rules: before.to_vec(),
        }
    }

    /// The rules' stamps.
    pub(super) fn rules(&self) -> &[Option<Stamp>] {
        &self.rules
    }
}

fn stamp(p: &Path) -> Option<Stamp> {
    std::fs::metadata(p).ok().map(|m| {
        let (ctime, mtime) = ((m.ctime(), m.ctime_nsec()), (m.mtime(), m.mtime_nsec()));
        (m.len(), ctime.0, ctime.1, mtime.0, mtime.1, m.ino())
    })
}

/// A digest of what the index of `repo` holds (each entry's path, object, mode, stage and
/// intent-to-add and skip-worktree flags), not of the files' stat data a refresh rewrites.
pub(super) fn entries_digest(repo: &Repository) -> Option<u64> {
    let mut index = repo.index().ok()?;
    index.read(false).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for e in index.iter() {
        e.path.hash(&mut h);
        e.id.as_bytes().hash(&mut h);
        (e.mode, e.flags & 0x3000, e.flags_extended & 0x6000).hash(&mut h);
    }
    Some(h.finish())
}
