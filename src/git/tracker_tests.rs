//! Change tracker tests: real repositories and real inotify. Every tracked commit in a debug
//! build also walks the whole checkout and checks both agree (`changes::tracked_changes`), so
//! each case here checks the tracker against status as well as what got committed.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::super::testutil::*;
use super::super::{auto_commit, auto_commit_tracked, create_worktree, prime_tracked};
use super::*;

struct Case {
    tmp: tempfile::TempDir,
    tracker: Tracker,
    dir: std::path::PathBuf,
    turns: u32,
}

impl Case {
    /// A worktree with a few files, tracked, and its first commit done (a walk).
    fn new() -> Case {
        let mut case = Case::files();
        case.tracker.track(&case.dir);
        assert!(case.commit().is_some(), "the first commit");
        assert_eq!(case.tracker.vouched(), 0, "the first commit walks");
        case
    }

    /// The same files committed without the tracker, which does not track the worktree: as
    /// after a server start.
    fn untracked() -> Case {
        let case = Case::files();
        assert!(auto_commit(&case.dir, "before\n", &[]).unwrap().is_some());
        assert!(!case.tracker.tracks(&case.dir));
        case
    }

    fn files() -> Case {
        let f = Fixture::new();
        let wt = create_worktree(&f.repo, "api", &f.slot("api")).unwrap();
        write(&wt.path.join(".gitignore"), "target/\n*.log\n");
        write(&wt.path.join("src/lib.rs"), "pub fn a() {}\n");
        write(&wt.path.join("src/deep/mod.rs"), "mod x;\n");
        write(&wt.path.join("docs/guide.md"), "guide\n");
        Case {
            tracker: Tracker::new(&f.tmp.path().join("cookies")).unwrap(),
            dir: wt.path.clone(),
            turns: 0,
            tmp: f.tmp,
        }
    }

    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.dir.join(rel)
    }

    fn commit(&mut self) -> Option<String> {
        self.turns += 1;
        let msg = format!("turn {}\n", self.turns);
        auto_commit_tracked(&self.dir, &msg, &[], &self.tracker).unwrap()
    }

    /// Commits and returns `git show --name-status` of what it committed ("" for nothing),
    /// and whether the tracker vouched for it.
    fn turn(&mut self) -> (String, bool) {
        let before = self.tracker.vouched();
        let files = match self.commit() {
            Some(id) => git(
                &self.dir,
                &["show", "--no-renames", "--name-status", "--format=", &id],
            ),
            None => String::new(),
        };
        (files, self.tracker.vouched() > before)
    }
}

#[test]
fn each_kind_of_change_is_committed_from_the_tracked_paths_alone() {
    type Change = fn(&Case);
    let cases: [(&str, Change, &str); 9] = [
        (
            "modified",
            |c| write(&c.path("src/lib.rs"), "pub fn b() {}\n"),
            "M\tsrc/lib.rs\n",
        ),
        (
            "new folders, deep",
            |c| {
                fs::create_dir_all(c.path("new/a/b/c")).unwrap();
                write(&c.path("new/a/b/c/x.txt"), "x\n");
                write(&c.path("new/top.txt"), "t\n");
            },
            "A\tnew/a/b/c/x.txt\nA\tnew/top.txt\n",
        ),
        (
            "deleted",
            |c| fs::remove_file(c.path("docs/guide.md")).unwrap(),
            "D\tdocs/guide.md\n",
        ),
        (
            "a renamed folder",
            |c| fs::rename(c.path("src/deep"), c.path("src/moved")).unwrap(),
            "D\tsrc/deep/mod.rs\nA\tsrc/moved/mod.rs\n",
        ),
        (
            "a file in a renamed folder",
            |c| {
                fs::rename(c.path("src/moved"), c.path("src/again")).unwrap();
                write(&c.path("src/again/more.rs"), "more\n");
            },
            "A\tsrc/again/more.rs\nD\tsrc/moved/mod.rs\nA\tsrc/again/mod.rs\n",
        ),
        (
            "a deleted folder",
            |c| fs::remove_dir_all(c.path("src/again")).unwrap(),
            "D\tsrc/again/mod.rs\nD\tsrc/again/more.rs\n",
        ),
        (
            "made executable",
            |c| {
                let p = c.path("src/lib.rs");
                fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
            },
            "M\tsrc/lib.rs\n",
        ),
        (
            "a symlink",
            |c| std::os::unix::fs::symlink("lib.rs", c.path("src/link.rs")).unwrap(),
            "A\tsrc/link.rs\n",
        ),
        (
            "ignored output",
            |c| write(&c.path("target/debug/out.bin"), "bin\n"),
            "",
        ),
    ];
    let mut c = Case::new();
    for (what, change, committed) in cases {
        change(&c);
        let (files, vouched) = c.turn();
        let mut files: Vec<&str> = files.lines().collect();
        let mut want: Vec<&str> = committed.lines().collect();
        files.sort();
        want.sort();
        assert_eq!(files, want, "{what}");
        assert!(vouched, "{what}: the tracker vouched");
        assert_eq!(status(&c.dir), "", "{what}");
    }
    // Whatever the tracker missed would show up here, in a walk.
    assert_eq!(
        auto_commit(&c.dir, "a walk\n", &[]).unwrap(),
        None,
        "a walk finds nothing left"
    );
}

#[test]
fn a_tracked_file_in_an_ignored_folder_is_watched() {
    let mut c = Case::new();
    write(&c.path("target/keep.txt"), "kept\n");
    git(&c.dir, &["add", "-f", "target/keep.txt"]);
    // The index changed by hand: this commit walks, and the next is tracked again.
    assert_eq!(c.turn(), ("A\ttarget/keep.txt\n".to_string(), false));
    // Its watches were walked again meanwhile, so that commit could not vouch for all of it.
    write(&c.path("target/keep.txt"), "changed\n");
    write(&c.path("target/other.bin"), "ignored\n");
    assert_eq!(c.turn().0, "M\ttarget/keep.txt\n");
    write(&c.path("target/keep.txt"), "again\n");
    assert_eq!(c.turn(), ("M\ttarget/keep.txt\n".to_string(), true));
}

#[test]
fn git_status_refreshing_the_index_keeps_it_but_a_changed_entry_does_not() {
    let mut c = Case::new();
    // Same content, new times: `git status` rewrites the index with the new stat data.
    let p = c.path("docs/guide.md");
    let stamp = |c: &Case| Stamps::read(&git2::Repository::open(&c.dir).unwrap());
    let before = stamp(&c);
    filetime_touch(&p);
    git(&c.dir, &["status", "--porcelain"]);
    assert_ne!(stamp(&c), before, "git status rewrote the index");
    write(&c.path("src/lib.rs"), "changed\n");
    assert_eq!(c.turn(), ("M\tsrc/lib.rs\n".to_string(), true));

    // An entry changed with no file event: only a walk finds it.
    // The commit stages it back (as `git add -A`), so nothing is committed, and the user's
    // staging is left as it was; the next commit is tracked again and writes the index.
    git(&c.dir, &["rm", "-q", "--cached", "docs/guide.md"]);
    assert_eq!(c.turn(), (String::new(), false));
    assert_eq!(status(&c.dir), "D  docs/guide.md\n?? docs/\n");
    write(&c.path("src/lib.rs"), "again\n");
    assert_eq!(c.turn(), ("M\tsrc/lib.rs\n".to_string(), true));
    assert_eq!(status(&c.dir), "");
}

/// Rewrites `path` with the same content a second later than its current modification time.
fn filetime_touch(path: &Path) {
    let text = fs::read(path).unwrap();
    let mtime = fs::metadata(path).unwrap().modified().unwrap();
    fs::write(path, text).unwrap();
    let later = mtime + std::time::Duration::from_secs(2);
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(later)
        .unwrap();
}

#[test]
fn a_changed_gitignore_and_git_run_by_hand_make_the_commit_walk() {
    let mut c = Case::new();
    write(&c.path("target/out.txt"), "output\n");
    assert_eq!(c.turn(), (String::new(), true));
    write(&c.path(".gitignore"), "*.log\n");
    assert_eq!(
        c.turn(),
        ("M\t.gitignore\nA\ttarget/out.txt\n".to_string(), false),
        "unignored: a walk"
    );
    // The folder it unignored is watched now.
    write(&c.path("target/out.txt"), "again\n");
    assert_eq!(c.turn(), ("M\ttarget/out.txt\n".to_string(), true));

    write(&c.path("by-hand.txt"), "x\n");
    git(&c.dir, &["add", "by-hand.txt"]);
    git(&c.dir, &["commit", "-q", "-m", "by hand"]);
    write(&c.path("after.txt"), "y\n");
    assert_eq!(
        c.turn(),
        ("A\tafter.txt\n".to_string(), false),
        "HEAD moved"
    );
    write(&c.path("after.txt"), "z\n");
    assert_eq!(c.turn(), ("M\tafter.txt\n".to_string(), true));
}

#[test]
fn a_nested_repository_and_skipped_paths_stay_out_and_are_asked_again() {
    let mut c = Case::new();
    fs::create_dir_all(c.path("vendor/lib")).unwrap();
    git(&c.path("vendor/lib"), &["init", "-q"]);
    write(&c.path("vendor/lib/code.c"), "int x;\n");
    write(&c.path("shots/one.png"), "png\n");
    let shots = c.path("shots");
    c.turns += 1;
    let made = auto_commit_tracked(&c.dir, "turn\n", &[shots.as_path()], &c.tracker).unwrap();
    assert_eq!(
        made, None,
        "nothing to commit but the nested repository and the exclusion"
    );
    assert_eq!(c.tracker.vouched(), 1);
    write(&c.path("vendor/lib/more.c"), "int y;\n");
    write(&c.path("src/lib.rs"), "changed\n");
    let made = auto_commit_tracked(&c.dir, "turn\n", &[shots.as_path()], &c.tracker)
        .unwrap()
        .unwrap();
    assert_eq!(
        git(&c.dir, &["show", "--name-status", "--format=", &made]),
        "M\tsrc/lib.rs\n"
    );
    assert_eq!(c.tracker.vouched(), 2);
    assert_eq!(status(&c.dir), "?? shots/\n?? vendor/\n");
}

#[test]
fn a_primed_checkout_is_vouched_for_at_its_first_commit() {
    let mut c = Case::untracked();
    // Before the prime, found by its walk: a change, a new file, one staged by hand.
    write(&c.path("src/lib.rs"), "pub fn b() {}\n");
    write(&c.path("notes.txt"), "n\n");
    write(&c.path("docs/guide.md"), "staged\n");
    git(&c.dir, &["add", "docs/guide.md"]);
    assert!(prime_tracked(&c.dir, &c.tracker).unwrap());
    assert!(c.tracker.knows(&c.dir));
    // After it, events: a change and a new folder.
    write(&c.path("src/deep/mod.rs"), "mod y;\n");
    write(&c.path("new/dir/file.rs"), "x\n");
    let want =
        "M\tdocs/guide.md\nA\tnew/dir/file.rs\nA\tnotes.txt\nM\tsrc/deep/mod.rs\nM\tsrc/lib.rs\n";
    assert_eq!(c.turn(), (want.to_string(), true));
    assert!(!prime_tracked(&c.dir, &c.tracker).unwrap(), "known already");
    write(&c.path("notes.txt"), "m\n");
    assert_eq!(c.turn(), ("M\tnotes.txt\n".to_string(), true));
}

#[test]
fn a_primed_checkout_whose_head_moved_by_hand_is_walked_at_its_commit() {
    let mut c = Case::untracked();
    assert!(prime_tracked(&c.dir, &c.tracker).unwrap());
    write(&c.path("src/lib.rs"), "by hand\n");
    git(&c.dir, &["commit", "-qam", "by hand"]);
    write(&c.path("docs/guide.md"), "a turn\n");
    assert_eq!(c.turn(), ("M\tdocs/guide.md\n".to_string(), false));
}

#[test]
fn too_many_changes_make_the_commit_walk() {
    let mut c = Case::new();
    for i in 0..=MAX_CANDIDATES {
        fs::write(c.path(&format!("docs/f{i}.txt")), "x").unwrap();
    }
    let (files, vouched) = c.turn();
    assert_eq!(files.lines().count(), MAX_CANDIDATES + 1);
    assert!(!vouched);
    write(&c.path("docs/f0.txt"), "y\n");
    assert_eq!(c.turn(), ("M\tdocs/f0.txt\n".to_string(), true));
}

#[test]
fn an_untracked_checkout_is_never_vouched_for() {
    let c = Case::new();
    let other = c.tmp.path().join("repo");
    assert!(!c.tracker.tracks(&other));
    let now = Stamps::read(&git2::Repository::open(&other).unwrap());
    assert_eq!(c.tracker.take(&other, &now, || None), None);
    assert!(c.tracker.tracks(&c.dir));
}

#[test]
fn event_paths_become_candidates_cut_at_a_nested_git() {
    let root = Path::new("/w/api");
    let cases = [
        ("/w/api/src/a.rs", Candidate::Path("src/a.rs".into())),
        (
            "/w/api/vendor/lib/.git/index",
            Candidate::Path("vendor/lib".into()),
        ),
        ("/w/api/.git", Candidate::Untracked),
        ("/w/api", Candidate::Root),
        ("/w/other/x", Candidate::Untracked),
    ];
    for (path, want) in cases {
        assert_eq!(candidate(root, Path::new(path)), want, "{path}");
    }
    use std::os::unix::ffi::OsStrExt;
    let odd = Path::new(std::ffi::OsStr::from_bytes(b"/w/api/\xff.txt"));
    assert_eq!(candidate(root, odd), Candidate::Unreadable);
}

#[test]
fn lost_events_make_the_next_commit_walk() {
    let mut c = Case::new();
    write(&c.path("src/lib.rs"), "one\n");
    // What notify sends when the kernel's queue overflowed or a watch failed.
    c.tracker.control.send(Msg::Lost).unwrap();
    assert_eq!(c.turn(), ("M\tsrc/lib.rs\n".to_string(), false));
    write(&c.path("src/lib.rs"), "two\n");
    assert_eq!(c.turn(), ("M\tsrc/lib.rs\n".to_string(), true));
}

#[test]
fn a_deleted_checkout_is_no_longer_tracked() {
    let c = Case::new();
    assert_eq!(c.tracker.checkouts(), 1);
    // Its watches in place first: a folder deleted under the walk that adds them is a lost
    // watch (the checkout stays, untrusted), not a deletion.
    assert!(c
        .tracker
        .ready_within(&c.dir, std::time::Duration::from_secs(10)));
    fs::remove_dir_all(&c.dir).unwrap();
    // Its deletion is an event like any other: flushed by the next take.
    let other = c.tmp.path().join("repo");
    let now = Stamps::read(&git2::Repository::open(&other).unwrap());
    c.tracker.track(&other);
    let _ = c.tracker.take(&other, &now, || None);
    assert_eq!(c.tracker.checkouts(), 1, "only the other one");
    assert!(!c.tracker.tracks(&c.dir));
}

#[test]
fn a_changed_exclude_file_makes_the_commit_walk() {
    let mut c = Case::new();
    let common = git(
        &c.dir,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    );
    write(&Path::new(common.trim()).join("info/exclude"), "docs/\n");
    write(&c.path("docs/new.txt"), "ignored now\n");
    write(&c.path("src/lib.rs"), "changed\n");
    assert_eq!(c.turn(), ("M\tsrc/lib.rs\n".to_string(), false));
    write(&c.path("src/lib.rs"), "again\n");
    assert_eq!(c.turn(), ("M\tsrc/lib.rs\n".to_string(), true));
}
