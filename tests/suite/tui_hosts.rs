//! The multiplexer with another host's terminals (a real sshd on 127.0.0.1, as in `hosts.rs`,
//! driven in tmux as in `tui.rs`): listed under their host, a prompt from the composer, the
//! shell face on the remote checkout, the diff face of its branch there, and a host that drops
//! and comes back with the turn and the shell it kept running. Skipped (saying why) where tmux or sshd
//! cannot run.

use super::common::*;
use super::hosts::{add_box, remote_project, sshd, Sshd};
use super::tui::{tmux_missing, Tmux};

/// A world with host `box` added (sshd on 127.0.0.1), or `None` (the test is skipped, saying
/// why) where tmux or sshd cannot run.
fn world_with_box() -> Option<(World, Sshd)> {
    if tmux_missing() {
        return None;
    }
    let mut w = World::new();
    let s = sshd(&mut w, "")?;
    add_box(&w, &s);
    Some((w, s))
}

/// The line of `screen` that holds `what`.
fn line_of(screen: &str, what: &str) -> Option<usize> {
    screen.lines().position(|l| l.contains(what))
}

#[test]
fn a_remote_terminal_is_listed_under_its_host_answers_the_composer_and_has_its_shell_face() {
    let Some((w, s)) = world_with_box() else {
        return;
    };
    let here = w.new_terminal("t", "claude");
    let dir = remote_project(&s, "proj");
    w.ok(&["new", "box:t", "--dir", dir.to_str().unwrap()]);
    let ui = Tmux::start(&w, &here, "");
    // The local `t` first, then box's `t` (the same name) under box's header.
    let screen = ui.wait_until("box's terminal under its header", |s| {
        s.contains("── box") && s.contains("1 box:t") && !s.contains("connecting")
    });
    let (local, header, remote) = (
        line_of(&screen, "0 t "),
        line_of(&screen, "── box"),
        line_of(&screen, "1 box:t"),
    );
    assert!(
        local < header && header < remote && local.is_some(),
        "{screen}"
    );

    ui.keys(&["C-b", "1"]);
    ui.wait_for("box:t · claude");
    ui.type_text("hello from the multiplexer");
    ui.keys(&["Enter"]);
    ui.wait_for("last_user=hello from the multiplexer");
    ui.wait_for("── completed · claude");
    // It ran on the host: the local terminal has no turn.
    assert_eq!(w.json(&["log", "t"])["turns"], serde_json::json!([]));
    assert_eq!(w.json(&["log", "box:t"])["turns"][0]["status"], "completed");

    ui.keys(&["C-b", "s"]);
    ui.wait_for("keys go to the shell");
    ui.type_text("echo \"at=$(pwd)\"");
    ui.keys(&["Enter"]);
    ui.wait_for(&format!("at={}", dir.display()));

    // The diff face asks the host (this checkout is a plain folder there: no branch).
    ui.keys(&["C-b", "s"]);
    ui.wait_for("box:t · claude");
    ui.keys(&["C-b", "g"]);
    ui.wait_for("on host box: t has no worktree of its own");
}

#[test]
fn the_diff_face_of_a_remote_terminal_shows_its_branch_on_that_host() {
    let Some((w, s)) = world_with_box() else {
        return;
    };
    let repo = remote_project(&s, "repo");
    init_repo(&w, &repo);
    w.ok(&["new", "box:g", "--dir", repo.to_str().unwrap()]);
    let here = w.new_terminal("here", "claude");
    let ui = Tmux::start(&w, &here, "attach box:g");
    ui.wait_for("box:g · claude");
    ui.keys(&["C-b", "g"]);
    ui.wait_for("no changes on");
    ui.type_text("make it [[write:hello.txt]]");
    ui.keys(&["Enter"]);
    let screen = ui.wait_for("+written by shim");
    assert!(screen.contains("+++ b/hello.txt"), "{screen}");
    // The file is in the terminal's worktree on the host, not in the local one.
    assert!(!here.join("hello.txt").exists());
}

/// Kills this world's ssh processes: its master connections and their channels (each names
/// the control directory in the data dir).
pub(super) fn kill_ssh(w: &World) {
    let control = format!("{}/ssh/", w.data().display());
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = p.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmd = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains("ssh") && cmd.contains(&control) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

#[test]
fn a_host_that_drops_is_shown_offline_and_comes_back_with_the_turn_it_kept_running() {
    let Some((w, mut s)) = world_with_box() else {
        return;
    };
    let here = w.new_terminal("here", "claude");
    let dir = remote_project(&s, "proj");
    w.ok(&["new", "box:t", "--dir", dir.to_str().unwrap()]);
    // `attach HOST:NAME` focuses it once its host has listed it.
    let ui = Tmux::start(&w, &here, "attach box:t");
    ui.wait_for("box:t · claude");
    ui.type_text("take your time [[hold:go]]");
    ui.keys(&["Enter"]);
    let remote_log = w.tmp.path().join("remote-shim.log");
    w.wait_for("the remote CLI to start the turn", || {
        std::fs::read_to_string(&remote_log).is_ok_and(|l| l.contains("take your time"))
    });
    // Its shell face, while the turn runs.
    ui.keys(&["C-b", "s"]);
    ui.wait_for("keys go to the shell");
    ui.type_text("echo before-$((2+3))");
    ui.keys(&["Enter"]);
    ui.wait_for("before-5");

    // The host goes away: no new connection is accepted, and the open ones die.
    s.stop_listening();
    kill_ssh(&w);
    ui.wait_until("box offline and its shell lost", |s| {
        s.contains("── box · offline") && s.contains("Enter tries again")
    });
    // The turn belongs to the host's server: it ends there while the UI cannot see it.
    std::fs::write(dir.join("go"), "").unwrap();
    let remote_baton = || {
        let out = std::process::Command::new(BATON)
            .args(["log", "t", "--json"])
            .env("BATON_HOME", &s.remote)
            .env("HOME", &s.remote_home)
            .output()
            .unwrap();
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap_or_default()
    };
    w.wait_for("the turn to end on the host", || {
        remote_baton()["turns"][0]["status"] == "completed"
    });
    assert!(ui.screen().contains("── box · offline"), "{}", ui.screen());

    // Back: the UI reconnects by itself, its shell attaches again (the same shell: the host's
    // server kept it), and the transcript catches up with the whole turn.
    s.listen_again();
    ui.wait_until("box back with its shell", |s| {
        !s.contains("offline") && !s.contains("tries again") && s.contains("before-5")
    });
    ui.type_text("echo after-$((3+4))");
    ui.keys(&["Enter"]);
    ui.wait_for("after-7");
    ui.keys(&["C-b", "s"]);
    let screen = ui.wait_for("── completed · claude");
    assert!(screen.contains("last_user=take your time"), "{screen}");
}
