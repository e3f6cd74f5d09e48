//! `baton doctor`: each kind of damage is found (exit 1) and left exactly as it was by plain
//! `doctor`, and repaired by `doctor --fix`; what baton did not make is refused, never
//! followed or changed; a healthy data directory passes (exit 0, notes allowed).

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

/// `baton doctor --json [extra]`: its exit code and report.
fn doctor(w: &World, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["doctor", "--json"];
    args.extend_from_slice(extra);
    let out = w.run(&args);
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code().unwrap_or(-1), v)
}

/// The findings of `check` with `status`.
fn findings(v: &Value, check: &str, status: &str) -> Vec<Value> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == check && f["status"] == status)
        .cloned()
        .collect()
}

fn subjects(v: &Value, check: &str, status: &str) -> Vec<String> {
    findings(v, check, status)
        .iter()
        .map(|f| f["subject"].as_str().unwrap().to_string())
        .collect()
}

/// Every entry under `roots` (links not followed): its mode and, for a file, its length and a
/// hash of its bytes; for a link, where it points.
fn tree(roots: &[PathBuf]) -> BTreeMap<PathBuf, (u32, String)> {
    fn visit(p: &Path, out: &mut BTreeMap<PathBuf, (u32, String)>) {
        use std::hash::{Hash, Hasher};
        let Ok(m) = std::fs::symlink_metadata(p) else {
            return;
        };
        let content = if m.file_type().is_symlink() {
            std::fs::read_link(p).unwrap().display().to_string()
        } else if m.is_file() {
            let bytes = std::fs::read(p).unwrap();
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            format!("{} bytes, {:016x}", bytes.len(), h.finish())
        } else {
            String::new()
        };
        out.insert(p.to_path_buf(), (m.mode(), content));
        if m.is_dir() {
            for e in std::fs::read_dir(p).unwrap().flatten() {
                visit(&e.path(), out);
            }
        }
    }
    let mut out = BTreeMap::new();
    for r in roots {
        visit(r, &mut out);
    }
    out
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

/// Stops the server and waits until its process is gone (it may write the index as it exits).
fn stop(w: &World) {
    let pid = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
    w.ok(&["server", "stop"]);
    w.wait_for("the server to exit", || !process_runs(pid));
}

/// A repository terminal `api` (claude, one changing turn) and a folder terminal `notes`
/// (codex, one turn); the server stopped. Returns the repository.
fn busy_world(w: &World) -> PathBuf {
    let repo = repo(w, "repo");
    w.ok(&["new", "api", "--dir", repo.to_str().unwrap()]);
    w.send("api", "add it [[write:health.rs]]");
    w.new_terminal("notes", "codex");
    w.send("notes", "write the notes");
    stop(w);
    repo
}

fn terminal_dir(w: &World, name: &str) -> PathBuf {
    let id = w.show(name)["id"].as_str().unwrap().to_string();
    w.data().join("terminals").join(id)
}

/// Checks that plain `doctor` reports a fault in `check` and changes nothing, then that
/// `doctor --fix` fixes it and a last `doctor` finds all well. Returns the two reports.
fn found_then_fixed(w: &World, check: &str, roots: &[PathBuf]) -> (Value, Value) {
    let before = tree(roots);
    let (code, found) = doctor(w, &[]);
    assert_eq!(code, 1, "{found:#}");
    assert!(!findings(&found, check, "fault").is_empty(), "{found:#}");
    assert_eq!(found["ok"], false);
    assert_eq!(tree(roots), before, "plain doctor changed something");
    let (code, fixed) = doctor(w, &["--fix"]);
    assert_eq!(code, 0, "{fixed:#}");
    assert!(!findings(&fixed, check, "fixed").is_empty(), "{fixed:#}");
    assert_eq!(fixed["faults"], 0, "{fixed:#}");
    let (code, again) = doctor(w, &[]);
    assert_eq!(
        (code, again["faults"].clone()),
        (0, Value::from(0)),
        "{again:#}"
    );
    (found, fixed)
}

#[test]
fn a_healthy_data_dir_passes_and_doctor_changes_nothing_in_it() {
    let w = World::new();
    let repo = busy_world(&w);
    let roots = [w.data(), repo.clone()];
    let before = tree(&roots);
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        (v["ok"].clone(), v["faults"].clone()),
        (true.into(), 0.into())
    );
    for check in [
        "permissions",
        "server",
        "index",
        "journals",
        "worktrees",
        "clis",
    ] {
        assert!(!findings(&v, check, "ok").is_empty(), "{check}: {v:#}");
    }
    assert_eq!(tree(&roots), before);
    let names: Vec<&str> = v["disk"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["api", "notes"]);
    assert!(v["disk"][0]["data_bytes"].as_u64().unwrap() > 0);
    assert!(v["disk"][0]["worktree_bytes"].as_u64().unwrap() > 0);
    assert_eq!(v["disk"][1]["worktree_bytes"], Value::Null);
    // Doctor never starts a server (that would recover, finish removals, make a socket).
    assert!(!w.data().join("server.sock").exists());
    let out = w.run(&["server", "status"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // Text: one line per finding, grouped, then the summary.
    let out = w.run(&["doctor"]);
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.starts_with("permissions\n  ok "), "{said}");
    assert!(
        said.ends_with("doctor: all is well: 0 faults, 0 notes\n"),
        "{said}"
    );
    // With a server running, the same: it answers, and the index it keeps is current.
    w.ok(&["ls"]);
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert!(findings(&v, "server", "ok")[0]["detail"]
        .as_str()
        .unwrap()
        .contains("answers"));
}

#[test]
fn a_data_dir_reached_through_a_link_is_checked_where_it_is() {
    let mut w = World::new();
    busy_world(&w);
    let link = w.tmp.path().join("data-link");
    std::os::unix::fs::symlink(w.data(), &link).unwrap();
    w.env
        .push(("BATON_HOME".into(), link.display().to_string()));
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        v["data_dir"],
        w.data().canonicalize().unwrap().display().to_string()
    );
    assert_eq!(
        subjects(&v, "permissions", "note"),
        [link.display().to_string()]
    );
}

#[test]
fn a_corrupt_index_is_found_then_moved_aside_and_rebuilt() {
    let w = World::new();
    busy_world(&w);
    let before = w.json(&["log", "api"]);
    stop(&w);
    let garbage: Vec<u8> = (0..5000u32).map(|i| (i * 7 + 13) as u8).collect();
    std::fs::write(w.data().join("index.db"), &garbage).unwrap();
    let (found, _) = found_then_fixed(&w, "index", &[w.data()]);
    let detail = findings(&found, "index", "fault")[0]["detail"].clone();
    assert!(detail.as_str().unwrap().contains("unreadable"), "{detail}");
    // The unreadable file is kept aside, private.
    let aside: Vec<PathBuf> = std::fs::read_dir(w.data())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("index.db.unreadable-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), garbage);
    assert_eq!(mode(&aside[0]), 0o600);
    assert_eq!(w.json(&["log", "api"]), before);
}

#[test]
fn a_missing_index_is_found_then_rebuilt() {
    let w = World::new();
    busy_world(&w);
    let before = w.json(&["ls"]);
    stop(&w);
    std::fs::remove_file(w.data().join("index.db")).unwrap();
    let (found, _) = found_then_fixed(&w, "index", &[w.data()]);
    assert!(findings(&found, "index", "fault")[0]["detail"]
        .as_str()
        .unwrap()
        .contains("missing"));
    assert_eq!(mode(&w.data().join("index.db")), 0o600);
    assert_eq!(w.json(&["ls"]), before);
}

#[test]
fn an_index_behind_its_journals_is_found_then_rebuilt_by_the_running_server() {
    let mut w = World::new();
    let fault = w.tmp.path().join("index-full");
    w.env
        .push(("BATON_FAULT_INDEX".into(), fault.display().to_string()));
    busy_world(&w);
    w.ok(&["server", "start"]);
    // The journal gets the instruction, the index does not (as on a full disk).
    std::fs::write(&fault, "").unwrap();
    w.ok(&["instructions", "api", "add", "Keep it short."]);
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 1, "{v:#}");
    let detail = findings(&v, "index", "fault")[0]["detail"].clone();
    assert!(
        detail.as_str().unwrap().contains(
            "instructions: 0 in the index, 1 in the journals; terminals that differ: api"
        ),
        "{detail}"
    );
    let (code, v) = doctor(&w, &["--fix"]);
    assert_eq!(code, 0, "{v:#}");
    let fixed = findings(&v, "index", "fixed")[0]["detail"].clone();
    assert!(
        fixed.as_str().unwrap().contains("by the running server"),
        "{fixed}"
    );
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    std::fs::remove_file(&fault).unwrap();
    assert_eq!(
        w.json(&["instructions", "api"]).as_array().unwrap().len(),
        1
    );
}

#[test]
fn loosened_permissions_are_found_then_tightened() {
    let w = World::new();
    busy_world(&w);
    let tdir = terminal_dir(&w, "api");
    stop(&w);
    let journal = tdir.join("journal.jsonl");
    let set = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    set(&w.data(), 0o755).unwrap();
    set(&journal, 0o644).unwrap();
    set(&tdir, 0o777).unwrap();
    let (found, fixed) = found_then_fixed(&w, "permissions", &[w.data()]);
    let mut want = vec![
        w.data().display().to_string(),
        tdir.display().to_string(),
        journal.display().to_string(),
    ];
    want.sort();
    let mut got = subjects(&found, "permissions", "fault");
    got.sort();
    assert_eq!(got, want);
    let mut got = subjects(&fixed, "permissions", "fixed");
    got.sort();
    assert_eq!(got, want);
    assert_eq!(
        (mode(&w.data()), mode(&tdir), mode(&journal)),
        (0o700, 0o700, 0o600)
    );
}

#[test]
fn a_planted_symlink_is_refused_never_followed_nor_changed() {
    let w = World::new();
    busy_world(&w);
    let outside = w.tmp.path().join("outside.txt");
    std::fs::write(&outside, "not baton's\n").unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o644)).unwrap();
    let dir_outside = w.tmp.path().join("outside-dir");
    std::fs::create_dir(&dir_outside).unwrap();
    std::fs::set_permissions(&dir_outside, std::fs::Permissions::from_mode(0o755)).unwrap();
    let link = w.data().join("planted");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let tlink = w.data().join("terminals").join("planted-dir");
    std::os::unix::fs::symlink(&dir_outside, &tlink).unwrap();
    let roots = [w.data(), outside.clone(), dir_outside.clone()];
    let before = tree(&roots);
    for extra in [&[][..], &["--fix"][..]] {
        let (code, v) = doctor(&w, extra);
        assert_eq!(code, 1, "{extra:?}: {v:#}");
        let refused = findings(&v, "permissions", "fault");
        let mut got: Vec<&str> = refused
            .iter()
            .map(|f| f["subject"].as_str().unwrap())
            .collect();
        got.sort();
        let (l, t) = (link.display().to_string(), tlink.display().to_string());
        let mut want = vec![l.as_str(), t.as_str()];
        want.sort();
        assert_eq!(got, want, "{v:#}");
        assert!(refused[0]["detail"].as_str().unwrap().contains("refused"));
        assert_eq!(tree(&roots), before, "{extra:?} changed something");
    }
    assert_eq!((mode(&outside), mode(&dir_outside)), (0o644, 0o755));
}

#[test]
fn a_fifo_and_another_users_file_are_refused_and_left_as_they_are() {
    let w = World::new();
    busy_world(&w);
    let fifo = w.data().join("terminals").join("planted.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
    let mut want = vec![fifo.display().to_string()];
    // Only root can give a file away; elsewhere the fifo stands alone.
    let foreign = w.data().join("foreign.log");
    std::fs::write(&foreign, "someone else's\n").unwrap();
    std::fs::set_permissions(&foreign, std::fs::Permissions::from_mode(0o644)).unwrap();
    match std::os::unix::fs::chown(&foreign, Some(54321), Some(54321)) {
        Ok(()) => want.push(foreign.display().to_string()),
        Err(_) => std::fs::remove_file(&foreign).unwrap(),
    }
    want.sort();
    let before = tree(&[w.data()]);
    for extra in [&[][..], &["--fix"][..]] {
        let (code, v) = doctor(&w, extra);
        assert_eq!(code, 1, "{extra:?}: {v:#}");
        let mut got = subjects(&v, "permissions", "fault");
        got.sort();
        assert_eq!(got, want, "{v:#}");
        for f in findings(&v, "permissions", "fault") {
            assert!(f["detail"].as_str().unwrap().contains("refused"), "{f}");
        }
        assert_eq!(tree(&[w.data()]), before, "{extra:?} changed something");
    }
}

#[test]
fn a_config_that_does_not_parse_is_a_fault() {
    let w = World::new();
    busy_world(&w);
    std::fs::write(w.data().join("config.toml"), "[providers.claude]\nbin = \n").unwrap();
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(subjects(&v, "config", "fault"), ["config.toml"]);
    // The other checks still ran, on the defaults.
    assert!(!findings(&v, "clis", "ok").is_empty(), "{v:#}");
}

#[test]
fn a_stale_socket_is_found_then_removed() {
    let w = World::new();
    busy_world(&w);
    let sock = w.data().join("server.sock");
    drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
    let (found, _) = found_then_fixed(&w, "server", &[w.data()]);
    assert!(findings(&found, "server", "fault")[0]["detail"]
        .as_str()
        .unwrap()
        .contains("no server holds server.lock"));
    assert!(!sock.exists());
    // The next command starts a server as usual.
    w.ok(&["ls"]);
}

#[test]
fn a_server_that_holds_the_lock_but_does_not_answer_is_a_fault_left_alone() {
    use nix::fcntl::{Flock, FlockArg};
    let w = World::new();
    busy_world(&w);
    let lock = std::fs::File::open(w.data().join("server.lock")).unwrap();
    let _held = Flock::lock(lock, FlockArg::LockExclusiveNonblock).unwrap();
    // Bound and listening, never accepting: connections queue, no one answers.
    let sock = w.data().join("server.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    // The index needs a rebuild too: a hung server is not asked for it, nor is it done under it.
    std::fs::remove_file(w.data().join("index.db")).unwrap();
    for extra in [&[][..], &["--fix"][..]] {
        let (code, v) = doctor(&w, extra);
        assert_eq!(code, 1, "{v:#}");
        let hung = findings(&v, "server", "fault");
        assert!(
            hung[0]["detail"]
                .as_str()
                .unwrap()
                .contains("does not answer"),
            "{v:#}"
        );
        assert!(sock.exists());
        assert_eq!(findings(&v, "index", "fault").len(), 1, "{v:#}");
        assert!(!w.data().join("index.db").exists());
    }
}

#[test]
fn a_vanished_worktree_is_recreated_from_its_branch() {
    let w = World::new();
    let repo = busy_world(&w);
    let dir = PathBuf::from(w.show("api")["dir"].as_str().unwrap());
    stop(&w);
    std::fs::remove_dir_all(&dir).unwrap();
    let (found, fixed) = found_then_fixed(&w, "worktrees", &[w.data(), repo.clone()]);
    assert_eq!(subjects(&found, "worktrees", "fault"), ["api"]);
    assert_eq!(subjects(&fixed, "worktrees", "fixed"), ["api"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("health.rs")).unwrap(),
        "written by shim\n"
    );
    assert!(git(&w, &repo, &["worktree", "list"]).contains(dir.to_str().unwrap()));
    assert_eq!(
        git(&w, &dir, &["branch", "--show-current"]).trim(),
        "baton/api"
    );
    w.send("api", "carry on");
}

#[test]
fn a_vanished_worktree_whose_branch_is_gone_too_is_reported_unfixable() {
    let w = World::new();
    let repo = busy_world(&w);
    let dir = PathBuf::from(w.show("api")["dir"].as_str().unwrap());
    stop(&w);
    std::fs::remove_dir_all(&dir).unwrap();
    git(&w, &repo, &["worktree", "prune"]);
    git(&w, &repo, &["branch", "-D", "baton/api"]);
    for extra in [&[][..], &["--fix"][..]] {
        let (code, v) = doctor(&w, extra);
        assert_eq!(code, 1, "{v:#}");
        let fault = &findings(&v, "worktrees", "fault")[0];
        let detail = fault["detail"].as_str().unwrap();
        assert!(detail.contains("cannot be recreated"), "{detail}");
        assert!(detail.contains("baton/api no longer exists"), "{detail}");
        assert!(!dir.exists());
    }
}

#[test]
fn a_removal_a_crash_cut_short_is_a_note_and_doctor_does_not_finish_it() {
    let mut w = World::new();
    let repo = busy_world(&w);
    let dir = PathBuf::from(w.show("api")["dir"].as_str().unwrap());
    stop(&w);
    // The server the next command starts dies once the removal is journalled.
    w.env.push(("BATON_CRASH_AT".into(), "rm-started".into()));
    assert!(!w.run(&["rm", "api"]).status.success());
    w.env.clear();
    // `rm` may return before the server it crashed has finished dying (its pid is in the lock).
    let lock = std::fs::read_to_string(w.data().join("server.lock")).unwrap();
    let pid: i32 = lock.trim().parse().unwrap();
    w.wait_for("the crashed server to be gone", || !process_runs(pid));
    // Its other threads may still be on their way out, holding the lock with them.
    w.wait_for("the crashed server's lock to be free", || {
        use nix::fcntl::{Flock, FlockArg};
        let lock = std::fs::File::open(w.data().join("server.lock")).unwrap();
        Flock::lock(lock, FlockArg::LockSharedNonblock).is_ok()
    });
    let roots = [w.data(), repo];
    let before = tree(&roots);
    // The crashed server left its socket too: plain doctor finds it, --fix removes it.
    for (extra, code) in [(&[][..], 1), (&["--fix"][..], 0)] {
        let (got, v) = doctor(&w, extra);
        assert_eq!(got, code, "{v:#}");
        assert_eq!(subjects(&v, "removals", "note"), ["api"], "{v:#}");
        if code == 1 {
            assert_eq!(subjects(&v, "server", "fault").len(), 1, "{v:#}");
            assert_eq!(tree(&roots), before);
        }
    }
    // The removal itself is left to the server.
    assert!(dir.exists());
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(subjects(&v, "removals", "note"), ["api"], "{v:#}");
}

#[test]
fn journal_lines_are_reported_with_file_and_line_and_never_edited() {
    let w = World::new();
    busy_world(&w);
    let journal = terminal_dir(&w, "api").join("journal.jsonl");
    stop(&w);
    // A torn last line, as a crash mid-write leaves: a note, all is well.
    let whole = std::fs::read(&journal).unwrap();
    let lines = whole
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let mut torn = whole.clone();
    torn.extend_from_slice(br#"{"at":"2026-12-01T10:00:00.000Z","type":"instruction_ad"#);
    std::fs::write(&journal, &torn).unwrap();
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        subjects(&v, "journals", "note"),
        [format!("{}:{}", journal.display(), lines + 1)]
    );
    // Torn, then closed off by the next entry (as the next append after a crash does): a note.
    let cut = whole[..whole.len() - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .unwrap()
        + 1;
    let mut closed = whole[..cut].to_vec();
    closed.extend_from_slice(br#"{"at":"2026-12-01T10:00:00.000Z","type":"instruction_ad"#);
    closed.push(b'\n');
    closed.extend_from_slice(&whole[cut..]);
    std::fs::write(&journal, &closed).unwrap();
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        subjects(&v, "journals", "note"),
        [format!("{}:{}", journal.display(), lines)]
    );
    // A damaged line in the middle: a fault, with file and line; --fix leaves it as it is.
    let mut damaged = Vec::new();
    for (i, l) in whole.split(|b| *b == b'\n').enumerate() {
        if i == 2 {
            damaged.extend_from_slice(b"{\"at\": garbage\n");
        }
        if !l.is_empty() {
            damaged.extend_from_slice(l);
            damaged.push(b'\n');
        }
    }
    std::fs::write(&journal, &damaged).unwrap();
    for extra in [&[][..], &["--fix"][..]] {
        let (code, v) = doctor(&w, extra);
        assert_eq!(code, 1, "{extra:?}: {v:#}");
        let fault = findings(&v, "journals", "fault");
        assert_eq!(
            fault[0]["subject"],
            format!("{}:3", journal.display()),
            "{v:#}"
        );
        assert!(fault[0]["detail"].as_str().unwrap().contains("by hand"));
        assert_eq!(std::fs::read(&journal).unwrap(), damaged);
    }
}

#[test]
fn a_lost_first_journal_line_names_the_terminal_it_is_listed_as() {
    let w = World::new();
    busy_world(&w);
    let journal = terminal_dir(&w, "notes").join("journal.jsonl");
    stop(&w);
    let text = std::fs::read_to_string(&journal).unwrap();
    let rest = text.split_once('\n').unwrap().1;
    std::fs::write(&journal, format!("{{\"at\": garbage\n{rest}")).unwrap();
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 1, "{v:#}");
    let fault = &findings(&v, "journals", "fault")[0];
    assert_eq!(fault["subject"], format!("{}:1", journal.display()));
    let detail = fault["detail"].as_str().unwrap();
    assert!(detail.contains("listed as recovered-"), "{detail}");
    // The terminal is still there, under that name.
    let names = names_of(&w.json(&["ls"]));
    assert!(
        names
            .iter()
            .any(|n| detail.contains(n.as_str()) && n.starts_with("recovered-")),
        "{names:?}"
    );
}

#[test]
fn a_missing_cli_is_a_note_unless_a_terminal_uses_it() {
    let w = World::without_clis();
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(subjects(&v, "clis", "note"), ["claude", "codex"]);
    assert_eq!(v["clis"][0]["found"], false);
    let dir = w.project("p");
    w.ok(&["new", "t", "--dir", dir.to_str().unwrap()]);
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(subjects(&v, "clis", "fault"), ["claude"]);
    assert_eq!(subjects(&v, "clis", "note"), ["codex"]);
    let fault = &findings(&v, "clis", "fault")[0];
    assert!(fault["detail"]
        .as_str()
        .unwrap()
        .contains("npm install -g @anthropic-ai/claude-code"));
    assert_eq!(v["clis"][0]["used_by"], serde_json::json!(["t"]));
}

#[test]
fn branches_left_by_removed_terminals_are_deleted_only_when_no_commit_is_lost() {
    let w = World::new();
    let repo = repo(&w, "repo");
    w.ok(&["new", "idle", "--dir", repo.to_str().unwrap()]);
    w.ok(&["new", "busy", "--dir", repo.to_str().unwrap()]);
    w.send("busy", "work [[write:w.txt]]");
    w.ok(&["rm", "idle"]);
    w.ok(&["rm", "busy"]);
    stop(&w);
    let branches = || {
        git(
            &w,
            &repo,
            &["branch", "--list", "--format=%(refname:short)"],
        )
    };
    assert_eq!(branches(), "baton/busy\nbaton/idle\nmain\n");
    let (code, v) = doctor(&w, &[]);
    assert_eq!(code, 0, "{v:#}");
    let notes = subjects(&v, "branches", "note");
    assert_eq!(notes.len(), 2, "{v:#}");
    assert_eq!(branches(), "baton/busy\nbaton/idle\nmain\n");
    let (code, v) = doctor(&w, &["--fix"]);
    assert_eq!(code, 0, "{v:#}");
    assert!(subjects(&v, "branches", "fixed")[0].starts_with("baton/idle "));
    let kept = findings(&v, "branches", "note");
    assert!(kept[0]["subject"]
        .as_str()
        .unwrap()
        .starts_with("baton/busy "));
    assert!(kept[0]["detail"]
        .as_str()
        .unwrap()
        .contains("1 commit that main does not have"));
    assert_eq!(branches(), "baton/busy\nmain\n");
}

#[test]
fn git_locks_a_commit_cut_short_left_are_found_and_removed() {
    let mut w = World::new();
    let repo = repo(&w, "repo");
    w.ok(&["new", "api", "--dir", repo.to_str().unwrap()]);
    let dir = PathBuf::from(w.show("api")["dir"].as_str().unwrap());
    stop(&w);
    // The server dies inside the turn's commit, holding the branch's lock.
    w.env.push(("BATON_CRASH_AT".into(), "commit-ref".into()));
    let out = w.run(&["send", "api", "one [[write:one.txt]]"]);
    assert!(!out.status.success(), "{}", text(&out));
    w.wait_for("the server to die at its crash point", || {
        w.run(&["server", "status"]).status.code() != Some(0)
    });
    w.env.clear();
    let lock = repo.join(".git/refs/heads/baton/api.lock");
    assert!(lock.exists());
    let (found, fixed) = found_then_fixed(&w, "worktrees", &[w.data(), repo.clone()]);
    let fault = &findings(&found, "worktrees", "fault")[0];
    assert_eq!(fault["subject"], "api");
    assert!(
        fault["detail"].as_str().unwrap().contains("api.lock"),
        "{fault}"
    );
    assert_eq!(subjects(&fixed, "worktrees", "fixed"), ["api"]);
    assert!(!lock.exists());
    w.send("api", "two [[write:two.txt]]");
    let turns = w.json(&["log", "api"])["turns"].clone();
    let files = |n: usize| {
        let commit = turns[n]["commit"].as_str().unwrap().to_string();
        git(&w, &dir, &["show", "--name-only", "--format=", &commit])
    };
    assert_eq!(
        (files(0), files(1)),
        ("one.txt\n".into(), "two.txt\n".into())
    );
}

#[test]
fn loose_worktree_folders_are_found_and_tightened() {
    let w = World::new();
    let repo = busy_world(&w);
    let dir = PathBuf::from(w.show("api")["dir"].as_str().unwrap());
    stop(&w);
    let home = w.data().join("worktrees");
    for p in [&home, &dir] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let (found, _) = found_then_fixed(&w, "permissions", &[w.data(), repo]);
    let shown = |p: &PathBuf| p.display().to_string();
    assert_eq!(
        subjects(&found, "permissions", "fault"),
        [shown(&home), shown(&dir)]
    );
    for p in [&home, &dir] {
        assert_eq!(
            std::fs::metadata(p).unwrap().permissions().mode() & 0o7777,
            0o700
        );
    }
}
