//! The integration lane (issue 44) with real git: `baton integrate NAME|PATH` merges every live
//! terminal's branch onto the base in baton's own worktree, reports clean / conflict /
//! check_failed per terminal, moves nothing, and its worktree goes with the repository's last
//! terminal.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

const TEN: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

/// A repository whose `lines.txt` has ten lines.
fn lines_repo(w: &World) -> PathBuf {
    let dir = repo(w, "app");
    std::fs::write(dir.join("lines.txt"), TEN).unwrap();
    git(w, &dir, &["add", "."]);
    git(w, &dir, &["commit", "-q", "-m", "lines"]);
    dir
}

fn worktree(w: &World, name: &str) -> PathBuf {
    PathBuf::from(w.show(name)["checkout"]["worktree"].as_str().unwrap())
}

/// A terminal `name` on `repo` whose one turn wrote `files` (committed by that turn).
fn terminal_writing(w: &World, repo: &Path, name: &str, files: &[(&str, &str)]) {
    w.ok(&["new", name, "--dir", repo.to_str().unwrap()]);
    let dir = worktree(w, name);
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    w.send(name, "work");
}

/// `baton integrate ARGS --json`: its exit code and report.
fn integrate(w: &World, target: &str) -> (Option<i32>, Value) {
    let out = w.run(&["integrate", target, "--json"]);
    let report =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), report)
}

/// (name, status, conflicts_with, files, merged) of each row, in order.
/// (name, status, conflicts_with, files, merged).
type Row = (String, String, Vec<String>, Vec<String>, bool);

fn rows(report: &Value) -> Vec<Row> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    report["terminals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["status"].as_str().unwrap().to_string(),
                strings(&t["conflicts_with"]),
                strings(&t["files"]),
                t["merged"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn row(name: &str, status: &str, with: &[&str], files: &[&str], merged: bool) -> Row {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
    (name.into(), status.into(), s(with), s(files), merged)
}

/// Every ref, and each checkout's HEAD, status and index, as text: what must not change.
fn git_state(w: &World, repo: &Path, names: &[&str]) -> String {
    let mut out = git(w, repo, &["show-ref"]);
    let mut dirs = vec![repo.to_path_buf()];
    dirs.extend(names.iter().map(|n| worktree(w, n)));
    for d in dirs {
        out.push_str(&git(w, &d, &["rev-parse", "HEAD"]));
        out.push_str(&git(w, &d, &["status", "--porcelain", "--ignored"]));
        out.push_str(&git(w, &d, &["ls-files", "--stage"]));
    }
    out
}

#[test]
fn integrate_reports_pairwise_conflicts_exactly_and_moves_nothing() {
    let w = World::new();
    let repo = lines_repo(&w);
    terminal_writing(
        &w,
        &repo,
        "a",
        &[("lines.txt", &TEN.replace("2\n", "two\n"))],
    );
    terminal_writing(
        &w,
        &repo,
        "b",
        &[("lines.txt", &TEN.replace("9\n", "nine\n"))],
    );
    terminal_writing(&w, &repo, "c", &[("new.txt", "c\n")]);
    terminal_writing(&w, &repo, "d", &[("new.txt", "d\n")]);
    terminal_writing(&w, &repo, "e", &[("same.txt", "x\n"), ("other.txt", "e\n")]);
    terminal_writing(&w, &repo, "f", &[("same.txt", "x\n")]);
    let names = ["a", "b", "c", "d", "e", "f"];
    let before = git_state(&w, &repo, &names);
    let (code, report) = integrate(&w, "a");
    assert_eq!(code, Some(1), "not all clean: {report}");
    assert_eq!(
        rows(&report),
        vec![
            row("a", "clean", &[], &[], true),
            row("b", "clean", &[], &[], true),
            row("c", "conflict", &["d"], &["new.txt"], true),
            row("d", "conflict", &["c"], &["new.txt"], false),
            row("e", "clean", &[], &[], true),
            row("f", "clean", &[], &[], true),
        ]
    );
    assert_eq!(report["base"], "main");
    assert_eq!(report["order"], "created");
    assert_eq!(git_state(&w, &repo, &names), before, "nothing moved");
    // The lane's worktree holds what merged, on a detached HEAD, under the data directory.
    let lane = PathBuf::from(report["lane"].as_str().unwrap());
    assert!(lane.starts_with(w.data().canonicalize().unwrap()) || lane.starts_with(w.data()));
    let both = TEN.replace("2\n", "two\n").replace("9\n", "nine\n");
    assert_eq!(
        std::fs::read_to_string(lane.join("lines.txt")).unwrap(),
        both
    );
    assert_eq!(
        std::fs::read_to_string(lane.join("new.txt")).unwrap(),
        "c\n"
    );
    // The same repository by its path (any folder in it), reusing the lane.
    let (code, by_path) = integrate(&w, &format!("{}/", repo.display()));
    assert_eq!((code, rows(&by_path)), (Some(1), rows(&report)));
    assert_eq!(by_path["lane"], report["lane"]);
    assert_eq!(git_state(&w, &repo, &names), before, "nothing moved");
    // Text: one line per terminal.
    let out = w.run(&["integrate", "d"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("d                conflict with c on new.txt"),
        "{said}"
    );
}

fn config(w: &World, repo: &Path, table: &str) {
    std::fs::write(
        w.data().join("config.toml"),
        format!("[repos.{:?}]\n{table}\n", repo.to_str().unwrap()),
    )
    .unwrap();
}

#[test]
fn the_check_blames_the_first_merge_that_breaks_it() {
    let w = World::new();
    let repo = lines_repo(&w);
    config(&w, &repo, "check = \"test ! -e broken.txt\"");
    terminal_writing(&w, &repo, "x", &[("x.txt", "x\n")]);
    terminal_writing(&w, &repo, "y", &[("broken.txt", "y\n")]);
    terminal_writing(&w, &repo, "z", &[("z.txt", "z\n")]);
    let (code, report) = integrate(&w, "x");
    assert_eq!(code, Some(1));
    assert_eq!(
        rows(&report),
        vec![
            row("x", "clean", &[], &[], true),
            row("y", "check_failed", &[], &[], false),
            row("z", "clean", &[], &[], true),
        ]
    );
    assert_eq!(report["check"], "test ! -e broken.txt");
    assert_eq!(report["check_passed"], true, "the lane without y passes");
    let out = report["terminals"][1]["check_output"].as_str().unwrap();
    assert!(out.contains("failed (exit code 1)"), "{out}");
    let lane = PathBuf::from(report["lane"].as_str().unwrap());
    assert!(lane.join("z.txt").exists() && !lane.join("broken.txt").exists());
}

#[test]
fn a_check_that_hangs_is_stopped_and_a_moved_base_is_said() {
    let w = World::new();
    let repo = lines_repo(&w);
    config(&w, &repo, "check = \"sleep 30\"\ncheck_timeout_secs = 1");
    terminal_writing(&w, &repo, "x", &[("x.txt", "x\n")]);
    let (code, report) = integrate(&w, "x");
    assert_eq!(code, Some(0), "the base fails too: nobody is blamed");
    assert_eq!(report["check_passed"], false);
    let notes = report["notes"].to_string();
    assert!(notes.contains("took longer than 1 s"), "{notes}");
    assert!(
        notes.contains("fails on the base branch's tip itself"),
        "{notes}"
    );
    // A check that moves the base: the report says it is of the former tip.
    let moved = format!(
        "check = \"git -C {} commit -q --allow-empty -m moved\"",
        repo.display()
    );
    config(&w, &repo, &moved);
    w.ok(&["server", "stop"]);
    let (_, report) = integrate(&w, "x");
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("the base branch main moved during the run"),
        "{notes}"
    );
}

#[test]
fn bad_input_is_one_line_and_what_could_not_be_merged_is_said() {
    let w = World::new();
    let empty = repo(&w, "empty");
    refused(
        &w,
        &["integrate", &format!("{}/", empty.display())],
        "no live terminal works in",
    );
    let plain = w.project("plain");
    refused(
        &w,
        &["integrate", &format!("{}/", plain.display())],
        "is not inside a git repository",
    );
    refused(&w, &["integrate", "nobody"], "nobody");
    let repo = lines_repo(&w);
    terminal_writing(&w, &repo, "kept", &[("k.txt", "k\n")]);
    terminal_writing(&w, &repo, "gone", &[("g.txt", "g\n")]);
    terminal_writing(&w, &repo, "lost", &[("l.txt", "l\n")]);
    // A worktree removed by hand: its branch still merges. A branch deleted: skipped.
    let wt = worktree(&w, "gone");
    std::fs::remove_dir_all(&wt).unwrap();
    let lost = worktree(&w, "lost");
    git(
        &w,
        &repo,
        &["worktree", "remove", "--force", lost.to_str().unwrap()],
    );
    git(&w, &repo, &["branch", "-D", "baton/lost"]);
    let (code, report) = integrate(&w, &format!("{}/", repo.display()));
    assert_eq!(code, Some(1));
    assert_eq!(
        rows(&report),
        vec![
            row("kept", "clean", &[], &[], true),
            row("gone", "clean", &[], &[], true),
            row("lost", "skipped", &[], &[], false),
        ]
    );
    let gone_note = report["terminals"][1]["note"].as_str().unwrap();
    assert!(gone_note.contains("removed by hand"), "{gone_note}");
    let lost_note = report["terminals"][2]["note"].as_str().unwrap();
    assert!(lost_note.contains("no longer exists"), "{lost_note}");
}

#[test]
fn the_lane_goes_with_the_repositorys_last_terminal() {
    let w = World::new();
    let repo = lines_repo(&w);
    terminal_writing(&w, &repo, "a", &[("a.txt", "a\n")]);
    terminal_writing(&w, &repo, "b", &[("b.txt", "b\n")]);
    let (_, report) = integrate(&w, "a");
    let lane = PathBuf::from(report["lane"].as_str().unwrap());
    assert!(lane.join("a.txt").exists());
    w.ok(&["rm", "a"]);
    assert!(lane.exists(), "b still works in the repository");
    w.ok(&["archive", "b"]);
    w.ok(&["prune", "--older-than", "0"]);
    assert!(!lane.exists(), "removed with the last terminal");
    let list = git(&w, &repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains("lanes"), "{list}");
    assert_eq!(git(&w, &repo, &["branch", "--list", "baton-lane/*"]), "");
}

#[test]
fn a_lane_whose_last_terminal_goes_during_a_run_goes_at_the_runs_end() {
    let w = World::new();
    let repo = lines_repo(&w);
    // The check says it started, then holds the run until the test lets it go.
    let (started, release) = (w.tmp.path().join("started"), w.tmp.path().join("release"));
    let check = format!(
        "touch {}; while [ ! -e {} ]; do sleep 0.05; done",
        started.display(),
        release.display()
    );
    config(&w, &repo, &format!("check = {check:?}"));
    terminal_writing(&w, &repo, "a", &[("a.txt", "a\n")]);
    let run = w
        .cmd(&["integrate", "a", "--json"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    w.wait_for("the run's check to start", || started.exists());
    let lane = w.data().join("lanes");
    let lane = std::fs::read_dir(&lane)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .unwrap();
    w.ok(&["rm", "a"]);
    assert!(lane.exists(), "the run under way keeps its lane");
    std::fs::write(&release, "").unwrap();
    let out = run.wait_with_output().unwrap();
    assert!(out.status.code().is_some(), "{out:?}");
    w.wait_for("the lane to go", || !lane.exists());
    let list = git(&w, &repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains("lanes"), "{list}");
    assert!(!w
        .data()
        .join("lanes")
        .join(format!(
            "{}.json",
            lane.file_name().unwrap().to_string_lossy()
        ))
        .exists());
}

#[test]
fn with_integrate_auto_each_commit_runs_the_lane_and_ls_marks_conflicts() {
    let w = World::new();
    let repo = lines_repo(&w);
    config(&w, &repo, "integrate = \"auto\"");
    terminal_writing(&w, &repo, "a", &[("new.txt", "a\n")]);
    terminal_writing(&w, &repo, "b", &[("b.txt", "b\n")]);
    let marked = |w: &World| -> Vec<(String, String)> {
        w.json(&["ls"])
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| !t["lane"].is_null())
            .map(|t| {
                let n = t["name"].as_str().unwrap().to_string();
                (n, t["lane"]["status"].as_str().unwrap().to_string())
            })
            .collect()
    };
    // b's commit ran the lane: both clean, nothing marked.
    let lanes = w.data().join("lanes");
    w.wait_for("the lane's report", || {
        std::fs::read_dir(&lanes).is_ok_and(|d| {
            d.flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
    });
    assert_eq!(marked(&w), Vec::<(String, String)>::new());
    // b's next turn adds the same file differently: both are marked, without asking.
    std::fs::write(worktree(&w, "b").join("new.txt"), "b\n").unwrap();
    w.send("b", "more");
    w.wait_for("the conflict marked", || marked(&w).len() == 2);
    assert_eq!(
        marked(&w),
        vec![
            ("a".to_string(), "conflict".to_string()),
            ("b".to_string(), "conflict".to_string())
        ]
    );
    let ls = w.ok(&["ls"]);
    assert!(
        ls.contains("b: conflict with a on new.txt (baton integrate b)"),
        "{ls}"
    );
}

#[test]
fn a_repositorys_own_check_runs_only_once_trusted() {
    let w = World::new();
    let repo = lines_repo(&w);
    std::fs::write(
        repo.join(".baton.toml"),
        "[integrate]\ncheck = \"test ! -e broken.txt\"\n",
    )
    .unwrap();
    git(&w, &repo, &["add", "."]);
    git(&w, &repo, &["commit", "-q", "-m", "check"]);
    terminal_writing(&w, &repo, "x", &[("broken.txt", "x\n")]);
    let (code, report) = integrate(&w, "x");
    assert_eq!((code, report["check"].clone()), (Some(0), Value::Null));
    let notes = report["notes"].to_string();
    assert!(notes.contains("not run until you trust it"), "{notes}");
    let said = w.ok(&["trust", repo.to_str().unwrap()]);
    assert!(said.contains("its check `test ! -e broken.txt`"), "{said}");
    let (code, report) = integrate(&w, "x");
    assert_eq!(code, Some(1));
    assert_eq!(
        rows(&report),
        vec![row("x", "check_failed", &[], &[], false)]
    );
}
