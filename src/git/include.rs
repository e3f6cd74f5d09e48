//! `.worktreeinclude`: the ignored files (a `.env`, a local settings file) a repository's root
//! lists, in gitignore syntax, copied from its main checkout into each new worktree baton makes
//! (the same file Claude Code reads). Only files git ignores are copied, so no automatic commit
//! takes them; modes are kept; a symlink is never followed (one whose target leaves the
//! repository is not copied at all); a copy that fails halfway removes what it copied.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::{open, Worktree};

/// The file at a repository's root that lists what to copy.
pub const INCLUDE_FILE: &str = ".worktreeinclude";

/// What [`copy_included`] did: the files copied (relative to the root) and one line per thing
/// the user should know (a pattern matching nothing, a file not ignored, a copy that failed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Included {
    pub copied: Vec<PathBuf>,
    pub notes: Vec<String>,
}

/// Copies into `wt.path` the ignored files of `wt.repo`'s checkout that its
/// `.worktreeinclude` matches. Nothing to do without the file. Never fails: what went wrong is
/// a note, and a failed copy leaves nothing of itself behind.
pub fn copy_included(wt: &Worktree) -> Included {
    let root = wt.repo.as_path();
    let mut out = Included::default();
    let text = match fs::read_to_string(root.join(INCLUDE_FILE)) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return out,
        Err(e) => {
            out.notes
                .push(format!("{INCLUDE_FILE}: cannot read it: {e}"));
            return out;
        }
    };
    let (matcher, patterns) = matcher(root, &text, &mut out.notes);
    let Ok(repo) = open(root) else {
        return out;
    };
    let Ok(root) = root.canonicalize() else {
        return out;
    };
    let mut found = Found::default();
    walk(&root, &root, &matcher, &repo, &mut found);
    for p in patterns.iter().filter(|p| !found.used.contains(*p)) {
        out.notes.push(format!(
            "{INCLUDE_FILE}: pattern {p:?} matches nothing in {}",
            root.display()
        ));
    }
    if let Some(first) = found.tracked.first() {
        let more = match found.tracked.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        out.notes.push(format!(
            "{INCLUDE_FILE}: {}{more} is not ignored by git, so it was not copied (git carries it already, or add it to .gitignore)",
            first.display()
        ));
    }
    out.notes.extend(found.skipped);
    let mut made = Vec::new();
    for rel in &found.files {
        if let Err(e) = copy_one(&root, &wt.path, rel, &mut made) {
            undo(&made);
            out.notes.push(format!(
                "{INCLUDE_FILE}: cannot copy {}: {e}; nothing of it was copied",
                rel.display()
            ));
            return out;
        }
    }
    out.copied = found.files;
    out
}

/// The matcher of the file's patterns, and the patterns themselves (to say which matched
/// nothing). A line the syntax refuses is a note.
fn matcher(root: &Path, text: &str, notes: &mut Vec<String>) -> (Gitignore, BTreeSet<String>) {
    let mut builder = GitignoreBuilder::new(root);
    let mut patterns = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match builder.add_line(None, line) {
            Ok(_) if !line.starts_with('!') => {
                patterns.insert(line.to_string());
            }
            Ok(_) => {}
            Err(e) => notes.push(format!("{INCLUDE_FILE}: {e}")),
        }
    }
    let matcher = builder.build().unwrap_or_else(|e| {
        notes.push(format!("{INCLUDE_FILE}: {e}"));
        Gitignore::empty()
    });
    (matcher, patterns)
}

/// What the walk found: files to copy, patterns used, matched files git does not ignore, and
/// symlinks left out.
#[derive(Default)]
struct Found {
    files: Vec<PathBuf>,
    used: BTreeSet<String>,
    tracked: Vec<PathBuf>,
    skipped: Vec<String>,
}

/// Walks `dir` (under `root`) without following symlinks, skipping `.git`.
fn walk(root: &Path, dir: &Path, m: &Gitignore, repo: &git2::Repository, found: &mut Found) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if entry.file_name() == ".git" {
            continue;
        }
        let Ok(rel) = path.strip_prefix(root).map(Path::to_path_buf) else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &path, m, repo, found);
            continue;
        }
        let hit = m.matched_path_or_any_parents(&rel, false);
        let ignore::Match::Ignore(glob) = hit else {
            continue;
        };
        found.used.insert(glob.original().to_string());
        if !repo.is_path_ignored(&rel).unwrap_or(false) {
            found.tracked.push(rel);
        } else if kind.is_symlink() && !inside(root, &path) {
            found.skipped.push(format!(
                "{INCLUDE_FILE}: {} is a symlink out of the repository: not copied",
                rel.display()
            ));
        } else {
            found.files.push(rel);
        }
    }
}

/// Whether the symlink at `link` points inside `root` (a dangling one does not).
fn inside(root: &Path, link: &Path) -> bool {
    link.canonicalize().is_ok_and(|t| t.starts_with(root))
}

/// Copies `root/rel` to `into/rel` (a symlink as a symlink, a file with its mode), noting each
/// file and folder it makes in `made`. An existing target is left alone.
fn copy_one(root: &Path, into: &Path, rel: &Path, made: &mut Vec<PathBuf>) -> io::Result<()> {
    let from = root.join(rel);
    let to = into.join(rel);
    if to.symlink_metadata().is_ok() {
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        let mut missing: Vec<&Path> = parent.ancestors().take_while(|a| !a.exists()).collect();
        missing.reverse();
        for dir in missing {
            fs::create_dir(dir)?;
            made.push(dir.to_path_buf());
        }
    }
    let meta = from.symlink_metadata()?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(fs::read_link(&from)?, &to)?;
        made.push(to);
        return Ok(());
    }
    made.push(to.clone());
    // fs::copy copies the permission bits too.
    fs::copy(&from, &to).map(|_| ())
}

/// Removes what a failed copy made, newest first.
fn undo(made: &[PathBuf]) {
    for p in made.iter().rev() {
        let _ = match p.symlink_metadata().map(|m| m.is_dir()) {
            Ok(true) => fs::remove_dir(p),
            _ => fs::remove_file(p),
        };
    }
}

#[cfg(test)]
#[path = "include_tests.rs"]
mod tests;
