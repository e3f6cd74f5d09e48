//! `baton demo`: a detach that leaves its server to other clients, ending it (now or later with
//! `--stop`) taking away what it made in a real repository and nothing else, and the scripted
//! walk-through's plain text in a pipe. The multiplexer is driven in tmux (`tui::Tmux`).

use std::path::{Path, PathBuf};

use super::common::*;
use super::tui::{tmux_missing, Tmux};

/// A world whose temporary folder (where the demo makes its own) is private to the test.
pub(super) fn demo_world() -> World {
    let mut w = World::new();
    let tmp = w.tmp.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    w.env.push(("TMPDIR".into(), tmp.display().to_string()));
    w
}

/// The demo's own folder, once it made it.
fn demo_root(w: &World) -> PathBuf {
    let tmp = w.tmp.path().join("tmp");
    let found = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("baton-demo-")
        });
    found.unwrap_or_else(|| panic!("no demo folder in {}", tmp.display()))
}

/// A world pointed at the demo's data directory, as `BATON_HOME=… baton` would be.
fn demo_client(root: &Path) -> World {
    let mut w = World::new();
    let data = root.join("data");
    w.env
        .push(("BATON_HOME".into(), data.display().to_string()));
    w
}

#[test]
fn detaching_the_demo_leaves_its_server_to_another_client() {
    if tmux_missing() {
        return;
    }
    let w = demo_world();
    let dir = w.project("here");
    let demo = Tmux::start(&w, &dir, "demo");
    demo.wait_for("SIMULATED");
    let root = demo_root(&w);
    let other_world = demo_client(&root);
    let other = Tmux::start(&other_world, &dir, "attach");
    other.wait_for("review");

    demo.keys(&["C-b", "d"]);
    let asked = demo.wait_for("Enter leaves it running");
    let data = root.join("data");
    assert!(
        asked.contains(&format!("BATON_HOME={} baton attach", data.display())),
        "{asked}"
    );
    demo.keys(&["Enter"]);
    demo.wait_for("left running");
    demo.wait_for("BATON-EXITED 0");
    // The other client is still attached to a live server, on data that is still there.
    assert!(data.join("index.db").exists());
    let status = other_world.json(&["server", "status"]);
    assert_eq!(status["running"], true, "{status}");
    assert_eq!(other_world.json(&["ls"]).as_array().unwrap().len(), 2);
    assert!(!other.screen().contains("went away"), "{}", other.screen());

    // Ended later, by the folder it printed.
    let out = w.run(&["demo", "--stop", root.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!root.exists());
    other.wait_for("went away");
}

#[test]
fn ending_the_demo_removes_what_it_made_in_a_real_repository_and_nothing_else() {
    if tmux_missing() {
        return;
    }
    let w = demo_world();
    let repo = repo(&w, "repo");
    git(&w, &repo, &["branch", "baton/mine"]);
    let dir = w.project("here");
    let demo = Tmux::start(&w, &dir, "demo");
    demo.wait_for("SIMULATED");
    let root = demo_root(&w);
    let other = demo_client(&root);
    other.ok(&["new", "wt", "--dir", repo.to_str().unwrap()]);
    assert_eq!(git(&w, &repo, &["worktree", "list"]).lines().count(), 2);

    demo.keys(&["C-b", "d"]);
    demo.wait_for("Enter leaves it running");
    demo.type_text("q");
    demo.keys(&["Enter"]);
    demo.wait_for("BATON-EXITED 0");
    assert!(!root.exists());
    let worktrees = git(&w, &repo, &["worktree", "list"]);
    assert_eq!(worktrees.lines().count(), 1, "{worktrees}");
    // Its branch went; the user's own `baton/mine` stays.
    let branches = git(&w, &repo, &["branch", "--format=%(refname:short)"]);
    assert_eq!(branches, "baton/mine\nmain\n");
}

#[test]
fn stop_refuses_a_folder_that_is_not_a_demos() {
    let w = World::new();
    let dir = w.project("precious");
    std::fs::write(dir.join("keep.txt"), "keep").unwrap();
    let out = w.run(&["demo", "--stop", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("is not a baton demo's folder"),
        "{}",
        text(&out)
    );
    assert!(dir.join("keep.txt").exists());
}

#[test]
fn the_scripted_demo_writes_no_ansi_codes_into_a_pipe() {
    let w = demo_world();
    let out = w.run(&["demo", "--script"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("## A terminal for a project"), "{stdout}");
    assert!(!stdout.contains('\x1b'), "{stdout:?}");
}

#[test]
fn the_scripted_demo_shows_nothing_a_real_session_could_not() {
    let w = demo_world();
    let out = w.run(&["demo", "--script"]);
    assert!(out.status.success(), "{}", text(&out));
    let all = text(&out);
    let turns: Vec<&str> = all.lines().filter(|l| l.starts_with("── ")).collect();
    assert_eq!(turns.len(), 4, "{all}");
    // (conversation, provider, context tokens) of each turn, in order.
    let mut seen: Vec<(String, String, u64)> = Vec::new();
    for line in turns {
        assert!(
            !line.contains(" · 0.0 s · "),
            "a turn that took no time: {line}"
        );
        let field = |prefix: &str| {
            line.split(" · ")
                .find_map(|f| f.strip_prefix(prefix))
                .unwrap_or_else(|| panic!("no {prefix:?} in {line}"))
                .to_string()
        };
        let context: u64 = field("context ")
            .split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap();
        let conversation = field("conversation ");
        let provider = line.split(" · ").nth(1).unwrap().to_string();
        if let Some((c, p, before)) = seen.last() {
            if *c == conversation[..1] && *p == provider {
                assert!(
                    context >= *before,
                    "the context fell in one session: {line}"
                );
            }
        }
        seen.push((conversation[..1].to_string(), provider, context));
    }
}
