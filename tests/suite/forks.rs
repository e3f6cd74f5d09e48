//! `baton fork` and `baton rewind` end to end on the shims: a new worktree and branch, the
//! same instructions, the provider's session forked (and cut back for a rewind), the links in
//! both transcripts, the refusals; and the rest of a conversation's life: `send --fresh`,
//! archive, titles, and an `rm` that a crash cannot leave half done.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

/// The Claude session file of session `id`, wherever its project folder is.
fn claude_session_file(w: &World, id: &str) -> Option<PathBuf> {
    let projects = w.home().join(".claude").join("projects");
    std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .map(|d| d.path().join(format!("{id}.jsonl")))
        .find(|p| p.exists())
}

/// The prompts a session file holds, as the shim wrote its user entries.
fn session_text(w: &World, id: &str) -> String {
    let path = claude_session_file(w, id).unwrap_or_else(|| panic!("no session file for {id}"));
    std::fs::read_to_string(path).unwrap()
}

fn session_of(w: &World, name: &str) -> String {
    let show = w.show(name);
    let sessions = show["sessions"].as_array().unwrap();
    sessions.last().unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Every system prompt the Claude session file `session` keeps names `to`, not `from`.
fn snapshots_point_at(session: &str, to: &Path, from: &Path) {
    let snapshots: Vec<String> = session
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["attachment"]["type"] == "prompt_snapshot")
        .map(|v| v["attachment"]["systemPrompt"].to_string())
        .collect();
    assert!(!snapshots.is_empty(), "the shim keeps no system prompt");
    for text in &snapshots {
        assert!(text.contains(to.to_str().unwrap()), "{text}");
        assert!(!text.contains(&format!("{}.", from.display())), "{text}");
    }
}

fn dir_of(w: &World, name: &str) -> PathBuf {
    PathBuf::from(w.show(name)["dir"].as_str().unwrap())
}

#[test]
fn a_fork_made_the_moment_a_warm_2_1_197_turn_ended_carries_that_turn() {
    // 2.1.197 writes a turn to its session file after its result line, and a warm CLI stays
    // alive meanwhile: the fork waits for the write, so the fork's session holds the turn.
    let mut w = World::new();
    w.env
        .push(("BATON_SHIM_CLAUDE_VERSION".into(), "2.1.197".into()));
    w.env
        .push(("BATON_SHIM_LATE_WRITE_MS".into(), "400".into()));
    let repo = repo(&w, "api");
    w.ok(&["new", "api", "--dir", repo.to_str().unwrap()]);
    w.send("api", "first: add the health endpoint");
    w.send("api", "second, answered warm");
    assert_eq!(w.invocations().last().unwrap()["turn"], 1, "a warm turn");
    w.ok(&["fork", "api"]);
    w.send("api-2", "third, only in the fork");
    let new_id = session_of(&w, "api-2");
    let answers: Vec<Value> = session_text(&w, &new_id)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "assistant")
        .collect();
    // The fork's own turn is written late too: the original's two are what this pins.
    let texts: Vec<String> = answers.iter().map(|a| a["message"].to_string()).collect();
    assert!(texts.len() >= 2, "{texts:#?}");
    assert!(
        texts[1].contains("last_user=second, answered warm"),
        "{texts:#?}"
    );
}

#[test]
fn a_fork_carries_the_files_the_instructions_and_the_session_and_leaves_the_original_alone() {
    let w = World::new();
    let repo = repo(&w, "api");
    w.ok(&[
        "new",
        "api",
        "--dir",
        repo.to_str().unwrap(),
        "--brief",
        "the API service",
    ]);
    w.ok(&["instructions", "api", "add", "Keep every handler small."]);
    w.send("api", "first: add the health endpoint");
    w.send("api", "second [[write:notes.txt]]");
    let original = session_of(&w, "api");
    // Work the agent left uncommitted goes with the fork.
    std::fs::write(dir_of(&w, "api").join("draft.txt"), "draft\n").unwrap();

    let fork = w.json(&["fork", "api"]);
    assert_eq!(fork["name"], "api-2");
    assert_eq!(fork["from"], "api");
    assert_eq!(fork["from_turn"], 2);
    assert_eq!(fork["branch"], "baton/api-2");
    assert_eq!(fork["session_mode"], "forked");
    let fdir = dir_of(&w, "api-2");
    assert_eq!(fdir, PathBuf::from(fork["worktree"].as_str().unwrap()));
    assert_ne!(fdir, dir_of(&w, "api"));
    assert_eq!(
        std::fs::read_to_string(fdir.join("draft.txt")).unwrap(),
        "draft\n"
    );
    assert!(fdir.join("notes.txt").exists());
    let subjects = git(&w, &repo, &["log", "--format=%s", "baton/api"]);
    assert!(subjects.contains("forked into api-2"), "{subjects}");

    let show = w.show("api-2");
    assert_eq!(show["brief"], "the API service");
    assert_eq!(show["instructions"], w.show("api")["instructions"]);
    assert_eq!(show["conversation"]["opened_reason"], "fork");
    assert_eq!(
        show["conversation"]["title"],
        "first: add the health endpoint"
    );

    // Its first turn resumes a fork of the original's session, in its own checkout.
    w.send("api-2", "third, only in the fork");
    let inv = w.last_invocation();
    assert_eq!(flag(&inv["argv"], "--resume"), Some(original.as_str()));
    assert!(has_arg(&inv["argv"], "--fork-session"), "{inv}");
    let new_id = flag(&inv["argv"], "--session-id").unwrap().to_string();
    assert_ne!(new_id, original);
    assert_eq!(inv["cwd"].as_str().map(PathBuf::from), Some(fdir.clone()));
    let system = system_text(&inv).unwrap();
    assert!(system.contains(fdir.to_str().unwrap()), "{system}");
    assert_eq!(session_of(&w, "api-2"), new_id);
    let forked = session_text(&w, &new_id);
    for p in [
        "first: add the health endpoint",
        "second",
        "third, only in the fork",
    ] {
        assert!(forked.contains(p), "{p:?} missing from the fork's session");
    }
    // The system prompt the session keeps (2.1.332 sends it on every resume) is the fork's.
    snapshots_point_at(&forked, &fdir, &dir_of(&w, "api"));
    // No copy of the original's session is left in the fork's project folder.
    let projects = w.home().join(".claude").join("projects");
    let copies = std::fs::read_dir(projects)
        .unwrap()
        .flatten()
        .filter(|d| d.path().join(format!("{original}.jsonl")).exists())
        .count();
    assert_eq!(copies, 1);

    // The original resumes its own session, which never saw the fork's prompt.
    w.send("api", "fourth, in the original");
    let inv = w.last_invocation();
    assert_eq!(claude_session(&inv).1, Some(original.clone()), "{inv}");
    assert!(!session_text(&w, &original).contains("only in the fork"));

    // Both transcripts say where the fork happened.
    let log = w.json(&["log", "api"]);
    assert_eq!(log["forked_into"][0]["name"], "api-2");
    assert_eq!(log["forked_into"][0]["turn"], 2);
    let flog = w.json(&["log", "api-2"]);
    assert_eq!(flog["forked_from"]["name"], "api");
    assert_eq!(flog["forked_from"]["turn"], 2);
    assert_eq!(flog["forked_from"]["id"], w.show("api")["id"]);
    assert!(w.ok(&["log", "api"]).contains("↳ forked into api-2"));
    assert!(w
        .ok(&["log", "api-2"])
        .contains("↳ forked from api at turn 2"));

    // The index rebuilds to the same.
    let snapshot = |w: &World| {
        (
            w.json(&["ls"]),
            w.json(&["log", "api"]),
            w.json(&["log", "api-2"]),
        )
    };
    let before = snapshot(&w);
    w.json(&["reindex"]);
    assert_eq!(snapshot(&w), before);
}

/// A fork of a session a switch started: the system prompt that session keeps (the
/// conversation's plus the rules given since) is re-pointed at the fork's checkout too.
#[test]
fn a_fork_of_a_switched_session_re_points_the_prompt_it_keeps() {
    let w = World::new();
    w.new_repo_terminal("api", "api", "codex");
    w.send("api", "first, on codex");
    w.ok(&["instructions", "api", "add", "Keep every handler small."]);
    let out = w.run(&["send", "api", "--provider", "claude", "second, on claude"]);
    assert!(out.status.success(), "{}", text(&out));
    w.json(&["fork", "api"]);
    w.send("api-2", "third, only in the fork");
    let (fdir, odir) = (dir_of(&w, "api-2"), dir_of(&w, "api"));
    let forked = session_text(&w, &session_of(&w, "api-2"));
    snapshots_point_at(&forked, &fdir, &odir);
}

#[test]
fn a_rewind_restores_the_files_cuts_the_session_and_hands_the_prompt_back() {
    let w = World::new();
    let repo = repo(&w, "web");
    w.ok(&["new", "web", "--dir", repo.to_str().unwrap()]);
    w.send("web", "one [[write:a.txt]]");
    w.ok(&["instructions", "web", "add", "Use tabs, never spaces."]);
    w.send("web", "two [[write:b.txt]]");
    let third = "three [[write:c.txt]]\n  with a second line, \"quoted\" and `ticked`\n";
    let out = w.run_stdin(&["send", "web", "-"], third.as_bytes());
    assert!(out.status.success(), "{}", text(&out));
    w.ok(&["instructions", "web", "add", "Added after turn three."]);
    w.send("web", "four [[write:d.txt]]");
    let original = session_of(&w, "web");

    let rw = w.json(&["rewind", "web", "3"]);
    assert_eq!(rw["name"], "web-2");
    assert_eq!(rw["from"], "web");
    assert_eq!(rw["before_turn"], 3);
    assert_eq!(rw["history"], "kept");
    assert_eq!(rw["prompt"], third);
    let turn2 = &w.json(&["log", "web"])["turns"][1];
    assert_eq!(rw["base_commit"], turn2["commit"]);
    let dir = dir_of(&w, "web-2");
    assert!(dir.join("a.txt").exists() && dir.join("b.txt").exists());
    assert!(!dir.join("c.txt").exists() && !dir.join("d.txt").exists());
    // The instructions as they were when turn 3 was sent.
    assert_eq!(
        w.show("web-2")["instructions"],
        serde_json::json!(["Use tabs, never spaces."])
    );
    assert_eq!(w.show("web-2")["conversation"]["opened_reason"], "rewind");
    // The text form ends with the prompt, byte for byte.
    let text_out = w.ok(&["rewind", "web", "3", "web-3"]);
    assert!(text_out.ends_with(third), "{text_out}");

    w.send("web-2", "three, edited");
    let inv = w.last_invocation();
    assert_eq!(flag(&inv["argv"], "--resume"), Some(original.as_str()));
    assert!(has_arg(&inv["argv"], "--fork-session"));
    assert!(flag(&inv["argv"], "--resume-session-at").is_some(), "{inv}");
    let forked = session_text(&w, &session_of(&w, "web-2"));
    assert!(forked.contains("one") && forked.contains("two"));
    assert!(!forked.contains("three [[write"), "turn 3 came along");
    assert!(!forked.contains("four"), "turn 4 came along");
    assert!(forked.contains("three, edited"));
    assert!(w
        .ok(&["log", "web-2"])
        .contains("↳ rewound from web before turn 3"));
    assert!(w
        .ok(&["log", "web"])
        .contains("↳ rewound into web-2 (before turn 3)"));

    // Rewinding to the first turn keeps nothing but the standing text.
    let first = w.json(&["rewind", "web", "1", "web-first"]);
    assert_eq!(first["history"], "kept");
    assert_eq!(first["prompt"], "one [[write:a.txt]]");
    w.send("web-first", "one, again");
    let inv = w.last_invocation();
    assert!(flag(&inv["argv"], "--resume").is_none(), "{inv}");
    assert!(!dir_of(&w, "web-first").join("a.txt").exists());
}

#[test]
fn forks_and_rewinds_are_refused_while_busy_or_for_what_does_not_exist() {
    let w = World::new();
    let repo = repo(&w, "svc");
    w.ok(&["new", "svc", "--dir", repo.to_str().unwrap()]);
    w.new_terminal("taken", "claude");
    w.send("svc", "one");
    refused(
        &w,
        &["rewind", "svc", "5"],
        "svc has no turn 5 (it has turns 1 to 1",
    );
    refused(&w, &["rewind", "svc", "0"], "no turn 0");
    refused(&w, &["fork", "svc", "taken"], "already exists");
    refused(&w, &["fork", "svc", "a/b"], "slash");
    refused(&w, &["fork", "nope"], "no terminal named \"nope\"");
    refused(&w, &["rewind", "taken", "1"], "no git worktree");
    // While a turn runs.
    let held = w.spawn(&["send", "svc", "[[hold:go]] held"]);
    w.wait_for("the turn to run", || w.show("svc")["state"] == "running");
    refused(&w, &["fork", "svc"], "svc is running a turn");
    refused(&w, &["rewind", "svc", "1"], "svc is running a turn");
    std::fs::write(dir_of(&w, "svc").join("go"), "").unwrap();
    assert!(held.wait_with_output().unwrap().status.success());
    let ls = w.json(&["ls"]);
    assert_eq!(
        ls.as_array().unwrap().len(),
        2,
        "a refusal made a terminal: {ls}"
    );
}

#[test]
fn a_codex_fork_is_a_new_thread_told_its_new_checkout() {
    let w = World::new();
    w.exec_only();
    let repo = repo(&w, "cx");
    w.ok(&[
        "new",
        "cx",
        "--dir",
        repo.to_str().unwrap(),
        "--provider",
        "codex",
    ]);
    w.send("cx", "one");
    let thread = session_of(&w, "cx");
    let fork = w.json(&["fork", "cx"]);
    assert_eq!(fork["session_mode"], "forked");
    let fdir = dir_of(&w, "cx-2");
    w.send("cx-2", "two, in the fork");
    let inv = w.last_invocation();
    let argv: Vec<&str> = inv["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let at = argv
        .iter()
        .position(|a| *a == "resume")
        .expect("no resume in argv");
    let new_thread = argv[at + 1].to_string();
    assert_ne!(new_thread, thread);
    assert_eq!(session_of(&w, "cx-2"), new_thread);
    assert_eq!(inv["cwd"].as_str().map(PathBuf::from), Some(fdir.clone()));
    let rollout = read_dir_files(&w.codex_home().join("sessions"))
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&new_thread))
        .expect("no rollout for the fork");
    let text = std::fs::read_to_string(rollout).unwrap();
    assert!(
        text.contains("carried over from another terminal"),
        "{text}"
    );
    assert!(text.contains(fdir.to_str().unwrap()));
    w.send("cx", "three, in the original");
    assert_eq!(session_of(&w, "cx"), thread);

    // A fork of a fork that has not run yet gets a thread of its own.
    w.json(&["fork", "cx", "cx-a"]);
    w.json(&["fork", "cx-a", "cx-b"]);
    w.send("cx-b", "in b");
    w.send("cx-a", "in a");
    assert_ne!(session_of(&w, "cx-a"), session_of(&w, "cx-b"));

    // A rewind cuts the thread back through the app-server.
    let rw = w.json(&["rewind", "cx", "2", "cx-r"]);
    assert_eq!(rw["history"], "kept", "{rw}");
    assert_eq!(rw["prompt"], "three, in the original");
    w.send("cx-r", "three, edited");
    let inv = w.last_invocation();
    let argv = inv["argv"].to_string();
    assert!(argv.contains("resume"), "{argv}");
    // Its thread is a copy cut before turn 2: none of turn 2, then its own prompt.
    let cut = session_of(&w, "cx-r");
    assert_ne!(cut, thread);
    let rollout = read_dir_files(&w.codex_home().join("sessions"))
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&cut))
        .expect("no rollout for the rewind");
    let text = std::fs::read_to_string(rollout).unwrap();
    assert!(text.contains("three, edited"), "{text}");
    assert!(
        !text.contains("three, in the original"),
        "turn 3 came along: {text}"
    );
    // The app-server got the fork's text over JSON-RPC: none of it, nor any run's, in argv.
    let all = w.all_invocations();
    assert!(all.iter().any(|i| i["argv"][0] == "app-server"));
    for inv in all {
        let argv = inv["argv"].to_string();
        assert!(!argv.contains("carried over"), "{argv}");
        assert!(!argv.contains("developer_instructions"), "{argv}");
    }
}

#[test]
fn fresh_opens_a_new_conversation_on_the_standing_text() {
    let w = World::new();
    w.new_terminal("f", "claude");
    w.ok(&["instructions", "f", "add", "Always answer in French."]);
    w.send("f", "one");
    let before = session_of(&w, "f");
    let out = w.run(&["send", "f", "--fresh", "two"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("asked for with --fresh"),
        "{}",
        text(&out)
    );
    let show = w.show("f");
    assert_eq!(show["conversation"]["number"], 2);
    assert_eq!(show["conversation"]["opened_reason"], "manual");
    assert_eq!(show["conversation"]["title"], "two");
    let inv = w.last_invocation();
    assert!(flag(&inv["argv"], "--resume").is_none());
    assert_ne!(session_of(&w, "f"), before);
    let system = system_text(&inv).unwrap();
    assert!(system.contains("Always answer in French."), "{system}");
    assert_eq!(stdin_prompt(&inv), "two");
    // Detached, it is remembered with the input and still opens one.
    w.ok(&["send", "f", "--fresh", "--detach", "three"]);
    w.wait_for("turn 3", || {
        w.show("f")["turns"] == 3 && w.show("f")["state"] == "idle"
    });
    assert_eq!(w.show("f")["conversation"]["number"], 3);
    let out = w.run(&["send", "f", "--fresh", "--steer", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("'--fresh' cannot be used with '--steer'"));
}

#[test]
fn titles_come_from_the_first_prompt_until_renamed() {
    let w = World::new();
    w.new_terminal("t", "codex");
    refused(
        &w,
        &["rename", "t", "--conversation", "x"],
        "no conversation yet",
    );
    let long = "\n  Refactor the billing module so that invoices are computed lazily\nmore";
    let out = w.run_stdin(&["send", "t", "-"], long.as_bytes());
    assert!(out.status.success(), "{}", text(&out));
    let title = "Refactor the billing module so that invo";
    assert_eq!(w.show("t")["conversation"]["title"], title);
    w.send("t", "second prompt");
    assert_eq!(w.show("t")["conversation"]["title"], title);
    let out = w.json(&["rename", "t", "--conversation", "  Billing, lazily  "]);
    assert_eq!(out["title"], "Billing, lazily");
    assert_eq!(w.show("t")["conversation"]["title"], "Billing, lazily");
    assert_eq!(
        w.json(&["log", "t"])["conversations"][0]["title"],
        "Billing, lazily"
    );
    assert!(w
        .ok(&["log", "t"])
        .contains("conversation 1 \"Billing, lazily\""));
    refused(
        &w,
        &["rename", "t", "--conversation", "two\nlines"],
        "one line",
    );
    refused(&w, &["rename", "t", "--conversation", "  "], "one line");
    // A rename survives a reindex; the next conversation gets its own title.
    w.json(&["reindex"]);
    assert_eq!(w.show("t")["conversation"]["title"], "Billing, lazily");
    w.ok(&["send", "t", "--fresh", "a new topic"]);
    assert_eq!(w.show("t")["conversation"]["title"], "a new topic");
}

#[test]
fn an_archived_terminal_is_hidden_unchanged_and_refuses_prompts() {
    let w = World::new();
    w.new_terminal("keep", "claude");
    let dir = w.new_terminal("old", "claude");
    w.send("old", "one");
    let before = w.show("old");
    let out = w.ok(&["archive", "old"]);
    assert!(out.contains("baton unarchive old"), "{out}");
    assert_eq!(names_of(&w.json(&["ls"])), ["keep"]);
    let all = w.json(&["ls", "--all"]);
    assert_eq!(names_of(&all), ["keep", "old"]);
    assert_eq!(all[1]["archived"], true);
    assert_eq!(all[0]["archived"], false);
    assert!(w.ok(&["ls", "--all"]).contains("old (archived)"));
    let mut after = w.show("old");
    assert_eq!(after["archived"], true);
    after["archived"] = before["archived"].clone();
    assert_eq!(after, before, "archiving changed the terminal");
    assert!(dir.exists());
    refused(
        &w,
        &["send", "old", "two"],
        "old is archived: `baton unarchive old` first",
    );
    w.json(&["reindex"]);
    assert_eq!(names_of(&w.json(&["ls"])), ["keep"]);
    w.ok(&["unarchive", "old"]);
    assert_eq!(names_of(&w.json(&["ls"])), ["keep", "old"]);
    w.send("old", "two");
}

#[test]
fn an_archive_does_not_stop_a_running_turn() {
    let w = World::new();
    let dir = w.new_terminal("run", "claude");
    let held = w.spawn(&["send", "run", "[[hold:go]] held"]);
    w.wait_for("the turn to run", || w.show("run")["state"] == "running");
    w.ok(&["archive", "run"]);
    std::fs::write(dir.join("go"), "").unwrap();
    let out = held.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(w.json(&["log", "run"])["turns"][0]["status"], "completed");
}

/// Runs `baton rm` with the server set to die at `point`, then checks what a restart finds.
fn crash_rm_at(point: &str) {
    let mut w = World::new();
    let repo = repo(&w, "gone");
    w.ok(&["new", "gone", "--dir", repo.to_str().unwrap()]);
    w.send("gone", "one [[write:kept.txt]]");
    let wt = dir_of(&w, "gone");
    w.ok(&["server", "stop"]);
    // The server the next command starts dies at `point`.
    w.env.push(("BATON_CRASH_AT".into(), point.into()));
    let out = w.run(&["rm", "gone"]);
    assert!(
        !out.status.success(),
        "rm survived its crash point: {}",
        text(&out)
    );
    w.env.clear();
    // Nothing half-removed shows: the next server finishes the removal and says so.
    let ls = w.json(&["ls", "--all"]);
    assert_eq!(ls, serde_json::json!([]), "{point}");
    let log = std::fs::read_to_string(w.data().join("server.log")).unwrap_or_default();
    assert!(log.contains("finished removing gone"), "{point}: {log}");
    assert!(!wt.exists(), "{point}: the worktree is still there");
    let branches = git(&w, &repo, &["branch", "--list", "baton/gone"]);
    assert!(branches.contains("baton/gone"), "the branch must be kept");
    let tip = git(&w, &repo, &["log", "-1", "--format=%s", "baton/gone"]);
    assert!(tip.contains("one"), "{tip}");
    // The name is free again, and a reindex has nothing left to finish.
    assert_eq!(
        w.json(&["reindex"])["finished_removals"],
        serde_json::json!([])
    );
    w.ok(&["new", "gone", "--dir", w.project("other").to_str().unwrap()]);
}

#[test]
fn an_rm_cut_short_after_its_intent_is_finished_by_the_next_start() {
    crash_rm_at("rm-started");
}

#[test]
fn an_rm_cut_short_after_the_checkout_went_is_finished_by_the_next_start() {
    crash_rm_at("rm-checkout");
}

#[test]
fn a_fork_cut_short_by_a_crash_leaves_no_half_terminal() {
    let mut w = World::new();
    let repo = repo(&w, "api");
    w.ok(&["new", "api", "--dir", repo.to_str().unwrap()]);
    w.send("api", "one");
    let before = (w.show("api"), w.json(&["log", "api"]));
    w.ok(&["server", "stop"]);
    // The server dies after the fork's worktree exists, before its journal is written.
    w.env.push(("BATON_CRASH_AT".into(), "fork-journal".into()));
    let out = w.run(&["fork", "api", "api-2"]);
    assert!(
        !out.status.success(),
        "the fork survived its crash point: {}",
        text(&out)
    );
    w.env.clear();
    let names = names_of(&w.json(&["ls", "--all"]));
    assert_eq!(names, ["api"]);
    assert_eq!((w.show("api"), w.json(&["log", "api"])), before);
    // The name's branch is taken by what the crash left: said plainly, nothing changes.
    refused(
        &w,
        &["fork", "api", "api-2"],
        "branch baton/api-2 already exists",
    );
    assert_eq!(w.json(&["ls"]).as_array().unwrap().len(), 1);
    w.json(&["fork", "api", "api-3"]);
    w.send("api-3", "two");
    assert!(has_arg(&w.last_invocation()["argv"], "--fork-session"));
}

#[test]
fn a_rewind_runs_on_the_provider_its_turn_ran_on() {
    let w = World::new();
    let repo = repo(&w, "mix");
    w.ok(&["new", "mix", "--dir", repo.to_str().unwrap()]);
    w.send("mix", "one on claude");
    w.send("mix", "two on claude");
    let out = w.run(&["send", "mix", "--provider", "codex", "three on codex"]);
    assert!(out.status.success(), "{}", text(&out));
    let claude_session = w.json(&["log", "mix"])["turns"][1]["session_id"].clone();
    let rw = w.json(&["rewind", "mix", "2"]);
    assert_eq!(rw["history"], "kept");
    assert_eq!(w.show("mix-2")["provider"], "claude");
    w.send("mix-2", "two again");
    let inv = w.last_invocation();
    assert_eq!(
        flag(&inv["argv"], "--resume"),
        claude_session.as_str(),
        "{inv}"
    );
    assert!(flag(&inv["argv"], "--resume-session-at").is_some(), "{inv}");
}
