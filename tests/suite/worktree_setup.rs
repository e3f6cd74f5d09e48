//! Worktrees ready to work in (issue 43): `.worktreeinclude`'s ignored files copied in, the
//! repository's set-up command run before the first turn, a block of ports per terminal, and
//! trust for a repository's own `.baton.toml`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

/// A repository whose `.gitignore` ignores `.env` and `*.log`, with `files` committed.
fn repo_with(w: &World, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = repo(w, name);
    std::fs::write(dir.join(".gitignore"), "*.log\n.env\n").unwrap();
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    git(w, &dir, &["add", "."]);
    git(w, &dir, &["commit", "-q", "-m", "settings"]);
    dir
}

fn config(w: &World, repo: &Path, table: &str) {
    std::fs::write(
        w.data().join("config.toml"),
        format!("[repos.{:?}]\n{table}\n", repo.to_str().unwrap()),
    )
    .unwrap();
}

/// `baton new NAME --dir DIR --provider claude`; its output.
fn new_in(w: &World, name: &str, dir: &str) -> String {
    w.ok(&["new", name, "--dir", dir, "--provider", "claude"])
}

fn worktree_of(show: &Value) -> PathBuf {
    PathBuf::from(show["checkout"]["worktree"].as_str().unwrap())
}

fn setup_state(w: &World, name: &str) -> String {
    w.show(name)["setup"]["state"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn worktreeinclude_copies_ignored_files_into_new_and_forked_worktrees() {
    let w = World::new();
    let repo = repo_with(
        &w,
        "app",
        &[(".worktreeinclude", ".env\nREADME.md\nnope.txt\n")],
    );
    std::fs::write(repo.join(".env"), "KEY=1\n").unwrap();
    std::fs::set_permissions(repo.join(".env"), std::fs::Permissions::from_mode(0o640)).unwrap();
    new_in(&w, "api", repo.to_str().unwrap());
    let show = w.show("api");
    let env = worktree_of(&show).join(".env");
    assert_eq!(std::fs::read_to_string(&env).unwrap(), "KEY=1\n");
    let mode = std::fs::metadata(&env).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let notes = show["setup"]["notes"].as_array().unwrap();
    assert_eq!(show["setup"]["copied"], 1);
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("\"nope.txt\" matches nothing"),
        "{notes:?}"
    );
    assert!(
        notes[1]
            .as_str()
            .unwrap()
            .contains("README.md is not ignored"),
        "{notes:?}"
    );
    w.send("api", "hello");
    let status = git(
        &w,
        &worktree_of(&show),
        &["status", "--porcelain", "--ignored"],
    );
    assert_eq!(status, "!! .env\n", "copied and ignored, never committed");
    w.ok(&["fork", "api", "api-2"]);
    w.ok(&["rewind", "api", "1", "api-3"]);
    for made in ["api-2", "api-3"] {
        let env = worktree_of(&w.show(made)).join(".env");
        assert_eq!(std::fs::read_to_string(env).unwrap(), "KEY=1\n", "{made}");
    }
    // An import into a clone on another machine copies the clone's own.
    let zip = w.json(&["export", "api"])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let w2 = World::new();
    let clone = w2.project("clone");
    git(&w2, &clone, &["clone", "-q", repo.to_str().unwrap(), "."]);
    std::fs::write(clone.join(".env"), "KEY=2\n").unwrap();
    w2.json(&["import", &zip, "--dir", clone.to_str().unwrap()]);
    let env = worktree_of(&w2.show("api")).join(".env");
    assert_eq!(std::fs::read_to_string(env).unwrap(), "KEY=2\n");
}

#[test]
fn the_first_turn_waits_for_the_set_up_and_ports_reach_it_and_the_cli() {
    let w = World::new();
    w.cold();
    let repo = repo_with(&w, "app", &[]);
    let go = w.tmp.path().join("go");
    let setup = format!(
        "echo waiting; while [ ! -e {} ]; do sleep 0.02; done; echo port $BATON_PORT of $BATON_PORTS",
        go.display()
    );
    let mut conf = std::fs::read_to_string(w.data().join("config.toml")).unwrap();
    conf.push_str(&format!(
        "\n[repos.{:?}]\nsetup = {setup:?}\nports = 3\n",
        repo.to_str().unwrap()
    ));
    std::fs::write(w.data().join("config.toml"), conf).unwrap();
    new_in(&w, "api", repo.to_str().unwrap());
    let send = w.spawn(&["send", "api", "hello"]);
    w.wait_for("the input to wait behind the set-up", || {
        let log = w.json(&["log", "api"]);
        w.show("api")["queued"] == 1 && log["setup"]["output"] == "waiting\n"
    });
    assert!(w.invocations().is_empty(), "no CLI before the set-up ends");
    assert_eq!(setup_state(&w, "api"), "running");
    std::fs::write(&go, "").unwrap();
    let out = send.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let show = w.show("api");
    let first = show["ports"]["first"].as_u64().unwrap();
    assert_eq!(show["ports"]["count"], 3);
    assert_eq!(show["setup"]["state"], "done");
    let log = w.json(&["log", "api"]);
    assert_eq!(
        log["setup"]["output"],
        format!("waiting\nport {first} of 3\n")
    );
    let env = &w.last_invocation()["env"];
    assert_eq!(env["BATON_PORT"], first.to_string());
    assert_eq!(env["BATON_PORTS"], "3");
    // A second terminal's block overlaps none of the first's, and both outlive a restart.
    new_in(&w, "web", repo.to_str().unwrap());
    let second = w.show("web")["ports"]["first"].as_u64().unwrap();
    assert!(
        second >= first + 3 || second + 3 <= first,
        "{first} {second}"
    );
    kill_server(&w);
    assert_eq!(w.show("api")["ports"]["first"], first);
    assert_eq!(w.show("web")["ports"]["first"], second);
}

#[test]
fn a_failed_or_hanging_set_up_is_said_and_the_terminal_still_works() {
    let w = World::new();
    let repo = repo_with(&w, "app", &[]);
    config(&w, &repo, "setup = \"echo boom; exit 3\"");
    new_in(&w, "api", repo.to_str().unwrap());
    w.wait_for("the set-up to fail", || setup_state(&w, "api") == "failed");
    assert_eq!(w.show("api")["setup"]["exit_code"], 3);
    let log = w.ok(&["log", "api"]);
    assert!(
        log.contains("──── set-up `echo boom; exit 3`: failed (exit code 3)\n  boom\n"),
        "{log}"
    );
    w.send("api", "hello");

    config(&w, &repo, "setup = \"sleep 30\"\nsetup_timeout_secs = 1");
    w.ok(&["server", "stop"]);
    new_in(&w, "web", repo.to_str().unwrap());
    w.send("web", "hello");
    assert_eq!(setup_state(&w, "web"), "timed_out");
    let notes = w.show("web")["setup"]["notes"].clone();
    assert!(
        notes[0].as_str().unwrap().contains("took longer than 1 s"),
        "{notes}"
    );
}

#[test]
fn a_repositorys_own_set_up_runs_only_once_its_content_is_trusted() {
    let w = World::new();
    let toml = "[worktree]\nsetup = \"touch made-by-setup\"\n";
    let repo = repo_with(&w, "app", &[(".baton.toml", toml)]);
    let dir = repo.to_str().unwrap();
    let said = new_in(&w, "a", dir);
    let file = repo.join(".baton.toml");
    let line = format!(
        "{} asks to run `touch made-by-setup` in each new worktree: not run until you trust it (baton trust {})",
        file.display(),
        file.display()
    );
    assert!(said.contains(&line), "{said}");
    assert_eq!(setup_state(&w, "a"), "untrusted");
    assert!(!worktree_of(&w.show("a")).join("made-by-setup").exists());

    let trusted = w.ok(&["trust", dir]);
    assert!(
        trusted.starts_with(&format!("trusted {}", file.display())),
        "{trusted}"
    );
    new_in(&w, "b", dir);
    w.wait_for("the set-up to run", || setup_state(&w, "b") == "done");
    assert!(worktree_of(&w.show("b")).join("made-by-setup").exists());

    // A changed file asks again; an invalid one is said and the terminal works.
    std::fs::write(&file, "[worktree]\nsetup = \"touch other\"\n").unwrap();
    new_in(&w, "c", dir);
    assert_eq!(setup_state(&w, "c"), "untrusted");
    std::fs::write(&file, "[worktree]\nsetup = 3\n").unwrap();
    let said = new_in(&w, "d", dir);
    assert!(said.contains(".baton.toml is not valid: line 2"), "{said}");
    w.send("d", "hello");
}

#[test]
fn exhausted_ports_are_said_and_the_terminal_still_opens() {
    let w = World::new();
    let repo = repo_with(&w, "app", &[]);
    config(&w, &repo, "ports = 6000");
    let dir = repo.to_str().unwrap();
    new_in(&w, "a", dir);
    assert_eq!(w.show("a")["ports"]["count"], 6000);
    let said = new_in(&w, "b", dir);
    assert!(
        said.contains("no block of 6000 free ports is left"),
        "{said}"
    );
    assert_eq!(w.show("b")["ports"], Value::Null);
    w.send("b", "hello");
}

/// Terminal `api` whose set-up command runs until stopped; (the world, the set-up's processes).
fn running_set_up() -> (World, impl Fn() -> Vec<u32>) {
    let w = World::new();
    let repo = repo_with(&w, "app", &[]);
    let go = w.tmp.path().join("never");
    config(
        &w,
        &repo,
        &format!(
            "setup = \"echo started; while [ ! -e {} ]; do sleep 0.02; done\"\nports = 2",
            go.display()
        ),
    );
    new_in(&w, "api", repo.to_str().unwrap());
    let port = format!("BATON_PORT={}", w.show("api")["ports"]["first"]);
    w.wait_for("the set-up to start", || {
        w.json(&["log", "api"])["setup"]["output"] == "started\n"
    });
    let marker = go.display().to_string();
    let setup = move || processes_with(&port, |_, words| words.contains(&marker));
    assert!(!setup().is_empty(), "the set-up runs");
    (w, setup)
}

#[test]
fn a_set_up_cut_short_by_a_dead_server_is_stopped_said_and_turns_run() {
    let (w, setup) = running_set_up();
    kill_server(&w);
    w.wait_for("the warden to stop the set-up", || setup().is_empty());
    assert_eq!(setup_state(&w, "api"), "interrupted");
    w.send("api", "hello");
}

#[test]
fn removing_a_terminal_stops_its_set_up_first() {
    let (w, setup) = running_set_up();
    w.ok(&["rm", "api", "--force"]);
    // Stopped before `rm` answered: nothing of it runs on in the removed worktree.
    assert!(setup().is_empty(), "the set-up still runs: {:?}", setup());
}
