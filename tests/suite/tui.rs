//! The multiplexer driven like a user drives it: the real binary inside a private tmux server,
//! keys sent with `send-keys`, the screen read with `capture-pane`. Skipped (with a message)
//! where tmux is not installed.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::common::*;

static SESSIONS: AtomicUsize = AtomicUsize::new(0);

pub(super) fn tmux_missing() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping: tmux is not installed (apt-get install tmux) — the UI tests need it");
    }
    !ok
}

/// The world's environment as `K='V'` words for `env -i`.
pub(super) fn env_words(w: &World) -> String {
    let mut env = vec![
        ("PATH".to_string(), w.path.clone()),
        ("HOME".into(), w.home().display().to_string()),
        ("BATON_HOME".into(), w.data().display().to_string()),
        ("CODEX_HOME".into(), w.codex_home().display().to_string()),
        ("BATON_SHIM_LOG".into(), w.shim_log().display().to_string()),
        ("LANG".into(), "C.UTF-8".into()),
        ("TERM".into(), "xterm-256color".into()),
    ];
    env.extend(w.env.iter().cloned());
    let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}='{v}'")).collect();
    env.join(" ")
}

/// One baton client running in its own tmux server (a private socket, no user config).
pub(super) struct Tmux {
    socket: String,
}

impl Tmux {
    /// Runs `baton ARGS` in `dir` with the world's environment. After baton exits, the pane
    /// prints its exit code and whether the terminal is back in canonical (cooked) mode.
    pub(super) fn start(w: &World, dir: &Path, args: &str) -> Tmux {
        let script = format!(
            "env -i {} {BATON} {args}; echo BATON-EXITED $?; stty -a | grep -o -- '-*icanon' | head -1; sleep 600",
            env_words(w)
        );
        Tmux::run(dir, &script)
    }

    /// Runs `script` (a shell command line) in `dir`, in a tmux server of its own.
    pub(super) fn run(dir: &Path, script: &str) -> Tmux {
        let socket = format!(
            "baton-test-{}-{}",
            std::process::id(),
            SESSIONS.fetch_add(1, Ordering::SeqCst)
        );
        let out = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", "120", "-y", "40", "-c"])
            .arg(dir)
            .arg(script)
            .output()
            .unwrap();
        assert!(out.status.success(), "tmux: {}", text(&out));
        Tmux { socket }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Keys by tmux name (`Enter`, `Escape`, `C-b`).
    pub(super) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend(keys);
        self.tmux(&args);
    }

    /// Text typed as is.
    pub(super) fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-l", text]);
    }

    pub(super) fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    /// Waits until the pane says the terminal is back in canonical (cooked) mode.
    pub(super) fn wait_canonical(&self) {
        self.wait_until("the terminal back in canonical mode", |s| {
            s.lines().any(|l| l.trim() == "icanon")
        });
    }

    /// Waits until the screen shows `what`; returns the screen.
    pub(super) fn wait_for(&self, what: &str) -> String {
        self.wait_until(what, |s| s.contains(what))
    }

    /// The screen returned is one seen twice in a row (or, on a screen that keeps
    /// ticking, the condition held on several captures in a row): a capture taken while
    /// the client is mid-paint, showing half of a new frame, is never returned.
    pub(super) fn wait_until(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(90);
        let mut pause = Duration::from_millis(20);
        let mut held = 0;
        let mut last = String::new();
        loop {
            let s = self.screen();
            if cond(&s) {
                held += 1;
                if s == last || held >= 5 {
                    return s;
                }
                last = s;
                std::thread::sleep(Duration::from_millis(15));
                continue;
            }
            held = 0;
            last.clear();
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what:?}; the screen:\n{s}"
            );
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(200));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

#[test]
fn create_send_queue_interrupt_detach_and_reattach() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.project("proj");
    let ui = Tmux::start(&w, &dir, "");
    // No terminal works here yet: the UI offers one (C-y: no letter is an answer).
    ui.wait_for("No terminal works in");
    ui.keys(&["C-y"]);
    ui.wait_for("No turns yet");
    assert_eq!(w.show("proj")["dir"], dir.to_str().unwrap());

    ui.type_text("hello there");
    ui.keys(&["Enter"]);
    ui.wait_for("last_user=hello there");
    ui.wait_for("── completed · claude");

    // A turn that hangs; a second prompt waits for it on the server; Esc interrupts.
    ui.type_text("slow one [[hang]]");
    ui.keys(&["Enter"]);
    ui.wait_for("MOCK-PARTIAL before hang");
    ui.type_text("after the hang");
    ui.keys(&["Enter"]);
    ui.wait_for("⏸ waiting 1 · #3: after the hang");
    ui.keys(&["Escape"]);
    ui.wait_for("── interrupted");
    // The partial answer stays; the interrupt held the queue until `r` on the waiting input.
    assert!(ui.screen().contains("⏸ waiting 1"), "{}", ui.screen());
    assert_eq!(w.show("proj")["queue_held"], true);
    ui.keys(&["Up"]);
    ui.keys(&["r"]);
    let s = ui.wait_for("last_user=after the hang");
    assert!(s.contains("MOCK-PARTIAL before hang"), "{s}");
    assert!(!s.contains("⏸ waiting"), "{s}");

    // Detach: the client exits 0 and gives the terminal back in cooked mode.
    ui.keys(&["C-b", "d"]);
    let s = ui.wait_for("BATON-EXITED 0");
    assert!(s.contains("[detached from baton"), "{s}");
    ui.wait_canonical();
    let turns = w.json(&["log", "proj"])["turns"].as_array().unwrap().len();
    assert_eq!(turns, 3);

    // Attach again: the whole history comes back.
    let again = Tmux::start(&w, &dir, "attach");
    let s = again.wait_for("last_user=after the hang");
    for part in ["› hello there", "› slow one [[hang]]", "── interrupted"] {
        assert!(s.contains(part), "missing {part:?}:\n{s}");
    }
}

#[test]
fn two_clients_see_the_same_turn_and_a_new_terminal_from_the_form() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let a = Tmux::start(&w, &dir, "");
    let b = Tmux::start(&w, &dir, "attach");
    a.wait_for("No turns yet");
    b.wait_for("No turns yet");
    a.type_text("shared prompt");
    a.keys(&["Enter"]);
    b.wait_for("last_user=shared prompt");
    b.wait_for("── completed · claude");

    // A terminal made with the form (prefix c) shows up in both lists.
    let other = w.project("web");
    a.keys(&["C-b", "c"]);
    a.wait_for(" new terminal ");
    a.type_text("web");
    // The directory field starts on the current directory: clear it (C-u), type another.
    a.keys(&["Tab", "C-u"]);
    a.type_text(other.to_str().unwrap());
    a.keys(&["Tab", "Space", "Enter"]);
    a.wait_for("1 web · codex");
    b.wait_for("1 web");
    assert_eq!(w.show("web")["provider"], "codex");
}

/// The inputs `baton queue NAME --json` says wait, next to run first.
fn waiting_inputs(w: &World, name: &str) -> Vec<u64> {
    let queue = w.json(&["queue", name]);
    let items = queue.as_array().cloned().unwrap_or_default();
    items.iter().filter_map(|q| q["input"].as_u64()).collect()
}

#[test]
fn the_waiting_list_is_the_servers_in_two_clients_and_after_a_reattach() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let go_on = w.tmp.path().join("go-on");
    let a = Tmux::start(&w, &dir, "");
    let b = Tmux::start(&w, &dir, "attach");
    a.wait_for("No turns yet");
    b.wait_for("No turns yet");
    // A turn held by the shim; two prompts typed in client a wait for it on the server.
    a.type_text(&format!("held [[hold:{}]]", go_on.display()));
    a.keys(&["Enter"]);
    w.wait_for("the held turn running", || {
        w.show("api")["state"] == "running"
    });
    for prompt in ["first waiting", "second waiting"] {
        a.type_text(prompt);
        a.keys(&["Enter"]);
    }
    // Client b, which sent nothing, shows the same list.
    for ui in [&a, &b] {
        ui.wait_for("⏸ waiting 1 · #2: first waiting");
        ui.wait_for("⏸ waiting 2 · #3: second waiting");
    }
    assert_eq!(waiting_inputs(&w, "api"), [2, 3]);

    // Moved earlier from b (Up selects the last one, K moves it): the server's order changes,
    // and a shows it.
    b.keys(&["Up"]);
    b.wait_for("▸ waiting 2 · #3: second waiting");
    b.keys(&["K"]);
    a.wait_for("⏸ waiting 1 · #3: second waiting");
    assert_eq!(waiting_inputs(&w, "api"), [3, 2]);

    // Withdrawn from a: gone from the server and from b.
    a.keys(&["Up", "x"]);
    b.wait_until("input 2 gone from b", |s| !s.contains("first waiting"));
    assert_eq!(waiting_inputs(&w, "api"), [3]);

    // A detach and a re-attach keep the list: it never lived in the client.
    a.keys(&["C-b", "d"]);
    a.wait_for("BATON-EXITED 0");
    let again = Tmux::start(&w, &dir, "attach");
    again.wait_for("⏸ waiting 1 · #3: second waiting");

    // Released, the held turn ends and the server runs what waits.
    std::fs::write(&go_on, "").unwrap();
    let s = again.wait_for("last_user=second waiting");
    assert!(!s.contains("⏸ waiting"), "{s}");
    assert!(waiting_inputs(&w, "api").is_empty());
}

#[test]
fn a_waiting_input_taken_back_from_the_ui_is_edited_in_place() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let go_on = w.tmp.path().join("go-on");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("No turns yet");
    ui.type_text(&format!("held [[hold:{}]]", go_on.display()));
    ui.keys(&["Enter"]);
    w.wait_for("the held turn running", || {
        w.show("api")["state"] == "running"
    });
    ui.type_text("typo here");
    ui.keys(&["Enter"]);
    ui.wait_for("⏸ waiting 1 · #2: typo here");
    // C-e takes it back; C-u clears it; the new text is saved in place (same input number).
    ui.keys(&["C-e"]);
    ui.wait_for("editing waiting input #2");
    ui.keys(&["C-u"]);
    ui.type_text("fixed text");
    ui.keys(&["Enter"]);
    ui.wait_for("⏸ waiting 1 · #2: fixed text");
    let queue = w.json(&["queue", "api"]);
    assert_eq!(queue[0]["prompt"], "fixed text", "{queue}");
    // Sent as a steer (M-s), input 3 is marked so on the list.
    ui.type_text("and a steer");
    ui.keys(&["M-s"]);
    ui.wait_until("the steer listed or taken", |s| {
        s.contains("#3: and a steer") || s.contains("and a steer\n")
    });
    std::fs::write(&go_on, "").unwrap();
    ui.wait_for("last_user=fixed text");
}

#[test]
fn a_server_that_dies_while_attached_ends_the_client_cleanly() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("No turns yet");
    w.ok(&["server", "stop"]);
    let s = ui.wait_for("BATON-EXITED 1");
    assert!(s.contains("the server went away"), "{s}");
    ui.wait_canonical();
}

#[test]
fn the_shell_face_runs_programs_with_colors_and_survives_a_detach() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("No turns yet");
    ui.keys(&["C-b", "s"]);
    ui.wait_for("shell · ");
    ui.wait_for("keys go to the shell");
    ui.type_text("printf 'x%.0s' 1 2 3; echo");
    ui.keys(&["Enter"]);
    ui.wait_for("xxx");

    // Colors reach the real terminal (capture-pane -e keeps the escape codes).
    ui.type_text("printf '\\033[31m%s\\033[0m\\n' red-text");
    ui.keys(&["Enter"]);
    // The typed command line also says red-text: wait for the printed line itself, in red
    // (palette color 1, in the user's own palette; capture-pane -e keeps the escape codes).
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let colored = ui.tmux(&["capture-pane", "-p", "-e"]);
        if colored.contains("\x1b[38;5;1mred-text") {
            break;
        }
        assert!(Instant::now() < deadline, "no red line: {colored}");
        std::thread::sleep(Duration::from_millis(50));
    }

    // A full-screen program on the alternate screen, and back.
    ui.type_text("seq 1 200 | less");
    ui.keys(&["Enter"]);
    ui.wait_until("less showing the first lines", |s| {
        s.lines().any(|l| l.contains("│1 ")) && !s.contains("xxx")
    });
    ui.keys(&["q"]);
    ui.wait_for("xxx");

    // Back to the transcript; the composer takes keys again.
    ui.keys(&["C-b", "s"]);
    ui.wait_for("No turns yet");

    // Detach and attach: the same shell, its screen replayed.
    ui.keys(&["C-b", "d"]);
    ui.wait_for("BATON-EXITED 0");
    let again = Tmux::start(&w, &dir, "attach");
    again.wait_for("No turns yet");
    again.keys(&["C-b", "s"]);
    let s = again.wait_for("xxx");
    assert!(s.contains("red-text"), "{s}");
}

#[test]
fn the_diff_face_follows_turns_and_terminals_are_renamed_and_removed() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let repo = w.project("repo");
    git(&w, &repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "# project\n").unwrap();
    git(&w, &repo, &["add", "."]);
    git(&w, &repo, &["commit", "-q", "-m", "init"]);
    w.ok(&["new", "t", "--dir", repo.to_str().unwrap()]);
    let plain = w.new_terminal("plain", "claude");
    let ui = Tmux::start(&w, &repo, "");
    ui.wait_for("No turns yet");

    // The diff face: nothing yet, then a turn's file appears when the turn ends.
    ui.keys(&["C-b", "g"]);
    ui.wait_for("no changes on");
    ui.type_text("make it [[write:hello.txt]]");
    ui.keys(&["Enter"]);
    let s = ui.wait_for("+written by shim");
    assert!(s.contains("+++ b/hello.txt"), "{s}");
    ui.keys(&["C-b", "g"]);
    ui.wait_for("── completed · claude");

    // A terminal without a worktree says why.
    ui.keys(&["C-b", "1", "C-b", "g"]);
    ui.wait_for("plain has no worktree of its own");
    assert!(plain.exists());

    // Rename with prefix `,`; the list and the server both know the new name.
    ui.keys(&["C-b", ","]);
    ui.wait_for("rename plain to: plain");
    ui.keys(&["C-u"]);
    ui.type_text("docs");
    ui.keys(&["Enter"]);
    ui.wait_for("renamed plain to docs");
    ui.wait_for("1 docs");
    assert_eq!(w.show("docs")["name"], "docs");

    // Close with prefix X: asked first, then gone (its branch is kept).
    ui.keys(&["C-b", "0", "C-b", "X"]);
    ui.wait_for("remove t? its work is committed and its branch kept");
    ui.keys(&["y"]);
    ui.wait_for("removed t (its work is on branch");
    let s = ui.wait_until("t gone from the list", |s| !s.contains("0 t "));
    assert!(s.contains("0 docs"), "{s}");
    assert_eq!(w.json(&["ls"]).as_array().unwrap().len(), 1);
}

#[test]
fn sigterm_and_sighup_restore_the_terminal() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    for (sig, code) in [("TERM", 143), ("HUP", 129)] {
        let ui = Tmux::start(&w, &dir, "");
        ui.wait_for("No turns yet");
        // The pane runs `sh -c SCRIPT`; `env -i … baton` becomes its child process.
        let shell = ui.tmux(&["list-panes", "-F", "#{pane_pid}"]);
        let out = Command::new("ps")
            .args(["-o", "pid=", "--ppid", shell.trim()])
            .output()
            .unwrap();
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!pid.is_empty(), "no baton process under {shell}");
        let killed = Command::new("kill")
            .args([&format!("-{sig}"), &pid])
            .status()
            .unwrap();
        assert!(killed.success());
        let s = ui.wait_for(&format!("BATON-EXITED {code}"));
        assert!(s.contains(&format!("stopped by SIG{sig}")), "{s}");
        ui.wait_canonical();
    }
}

#[test]
fn copy_mode_searches_the_transcript_and_copies_by_osc52() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.project("proj");
    let ui = Tmux::start(&w, &dir, "");
    // tmux takes OSC 52 from the application into a paste buffer only when told to.
    ui.tmux(&["set-option", "-s", "set-clipboard", "on"]);
    ui.wait_for("No terminal works in");
    ui.keys(&["C-y"]);
    ui.wait_for("No turns yet");
    ui.type_text("hello there");
    ui.keys(&["Enter"]);
    ui.wait_for("── completed · claude");
    ui.keys(&["C-b", "["]);
    ui.wait_for("copy mode [");
    ui.type_text("/last_user=");
    ui.keys(&["Enter", "v", "$", "y"]);
    ui.wait_for("copied ");
    let buffer = ui.tmux(&["show-buffer"]);
    assert!(buffer.starts_with("last_user=hello there"), "{buffer:?}");
}

#[test]
fn copy_mode_over_the_shell_reaches_the_servers_scrollback() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.tmux(&["set-option", "-s", "set-clipboard", "on"]);
    ui.wait_for("No turns yet");
    ui.keys(&["C-b", "s"]);
    ui.wait_for("keys go to the shell");
    // 500 rows: most of them scroll off the screen (the client never holds them).
    ui.type_text("seq 1 500 | sed 's/^/row-/'; echo listed-$((1+1))");
    ui.keys(&["Enter"]);
    ui.wait_for("listed-2");
    ui.keys(&["C-b", "["]);
    ui.wait_for("copy mode [");
    ui.type_text("/row-17");
    ui.keys(&["Enter", "v", "$", "y"]);
    ui.wait_for("copied ");
    assert_eq!(ui.tmux(&["show-buffer"]), "row-17");
}

#[test]
fn rapid_resizes_with_splits_and_a_shell_leave_a_working_ui() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.new_terminal("web", "codex");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("No turns yet");
    ui.keys(&["C-b", "%"]);
    ui.keys(&["C-b", "s"]);
    ui.wait_for("keys go to the shell");
    // Sizes from tiny to huge and back, as fast as tmux takes them.
    for (x, y) in [
        (20, 5),
        (400, 120),
        (1, 1),
        (61, 9),
        (200, 60),
        (33, 7),
        (120, 40),
    ] {
        ui.tmux(&["resize-window", "-x", &x.to_string(), "-y", &y.to_string()]);
    }
    // tmux tells the program the last size a little later: the whole window is drawn again
    // at 120x40, borders and all (a screen drawn only where it changed would leave holes).
    ui.wait_until("a full redraw at 120x40", |s| {
        let rows: Vec<&str> = s.lines().collect();
        rows.len() >= 40
            && rows[0].starts_with('┌')
            && rows[0].chars().count() == 120
            && rows[38].starts_with('└')
            && rows[38].chars().count() == 120
    });
    ui.type_text("echo still-$((6*7))");
    ui.keys(&["Enter"]);
    ui.wait_for("still-42");
    ui.keys(&["C-b", "s"]);
    ui.type_text("after the storm");
    ui.wait_for("after the storm");
    ui.keys(&["C-b", "d"]);
    ui.wait_for("BATON-EXITED 0");
}

#[test]
fn a_program_in_the_shell_that_asks_for_the_mouse_gets_it() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("No turns yet");
    ui.keys(&["C-b", "s"]);
    ui.wait_for("keys go to the shell");
    // A program that turns on mouse reports (SGR), reads one report and shows it.
    ui.type_text(
        "stty raw -echo; printf '\\033[?1000h\\033[?1006h'; r=$(dd bs=1 count=5 2>/dev/null); \
         printf '\\033[?1000l'; stty sane; echo \"got=$(printf %s \"$r\" | tr -d '\\033')=\"",
    );
    ui.keys(&["Enter"]);
    // The report arrives once the program asked (the client learnt the mode from a frame).
    // Typed before the shell printed its prompt, the first `s` is echoed ahead of the prompt
    // (`s# tty raw …`): look for what follows it.
    let s = ui.wait_until("the program waiting for the mouse", |s| {
        s.lines().any(|l| l.contains("tty raw -echo")) && !s.contains("got=[")
    });
    let (x, y) = locate(&s, "tty raw -echo");
    let mut got = String::new();
    for _ in 0..50 {
        ui.mouse(0, (x, y + 3), false);
        let s = ui.screen();
        if let Some(line) = s.lines().find(|l| l.contains("got=[")) {
            got = line
                .trim_matches(|c: char| c == '│' || c.is_whitespace())
                .to_string();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // Button 0 at the shell's own column and row (from 1), not the window's.
    assert_eq!(
        got, "got=[<0;=",
        "the first bytes of an SGR press of button 0"
    );
}

/// The pids of baton clients whose environment has `BATON_HOME=home`.
fn batons_of(home: &std::path::Path) -> Vec<u32> {
    processes_with(&format!("BATON_HOME={}", home.display()), |exe, words| {
        exe.ends_with("baton") && !words.contains("server")
    })
}

#[test]
fn a_terminal_gone_without_a_sighup_still_ends_the_client() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    // setsid: baton runs outside the terminal's session, so its hangup sends baton no SIGHUP.
    let socket = format!("baton-test-hup-{}", std::process::id());
    let script = format!(
        "setsid -w env -i PATH='{}' HOME='{}' BATON_HOME='{}' TERM=xterm-256color {BATON}",
        w.path,
        w.home().display(),
        w.data().display()
    );
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap()
    };
    let started = Command::new("tmux")
        .args([
            "-L",
            &socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
        ])
        .arg("-c")
        .arg(&dir)
        .arg(&script)
        .output()
        .unwrap();
    assert!(started.status.success(), "{}", text(&started));
    w.wait_for("the UI", || {
        String::from_utf8_lossy(&tmux(&["capture-pane", "-p"]).stdout).contains("No turns yet")
    });
    let pids = batons_of(&w.data());
    assert_eq!(pids.len(), 1, "{pids:?}");
    let pid = pids[0];
    // The terminal goes away: tmux and its pane, with the master side of the terminal.
    tmux(&["kill-server"]);
    let gone = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |s| s.split(' ').nth(2) == Some("Z"))
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !gone() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    if !gone() {
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).output();
        panic!("the client outlived its terminal (it would spin on it)");
    }
}

/// Where `text` first shows on `screen`: (column, row), counted from 0 in cells.
fn locate(screen: &str, text: &str) -> (usize, usize) {
    for (y, line) in screen.lines().enumerate() {
        if let Some(i) = line.find(text) {
            return (line[..i].chars().count(), y);
        }
    }
    panic!("{text:?} is not on the screen:\n{screen}");
}

/// Where the frame of the pane titled `title` starts (its top-left corner, the focused pane's
/// double line or another's), as (column, row): the title itself moves by the focus mark.
fn corner(screen: &str, title: &str) -> (usize, usize) {
    let (_, y) = locate(screen, title);
    let line = screen.lines().nth(y).unwrap_or("");
    (frame_x(line, title).unwrap_or(0), y)
}

/// The column of the corner of the pane titled `title` on `line`.
fn frame_x(line: &str, title: &str) -> Option<usize> {
    let i = line.find(title)?;
    let before: Vec<char> = line[..i].chars().collect();
    before.iter().rposition(|c| matches!(c, '┌' | '╔'))
}

impl Tmux {
    /// A mouse event as the real terminal reports it with SGR mouse mode on (`ESC [ < b ; x ;
    /// y M`, `m` for a release; x and y from 1): typed into the pane as is.
    fn mouse(&self, button: u8, (x, y): (usize, usize), release: bool) {
        let end = if release { 'm' } else { 'M' };
        let seq = format!("\x1b[<{button};{};{}{end}", x + 1, y + 1);
        self.tmux(&["send-keys", "-l", &seq]);
    }

    /// Press at `from`, drag to `to`, release there.
    fn drag(&self, from: (usize, usize), to: (usize, usize)) {
        self.mouse(0, from, false);
        self.mouse(32, to, false);
        self.mouse(0, to, true);
    }
}

#[test]
fn panes_split_both_ways_each_with_its_own_transcript_zoom_and_close() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.new_terminal("web", "codex");
    w.send("api", "hello api");
    w.send("web", "hello web");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("› hello api");

    // Left|right: the new pane shows the other terminal's transcript beside the first.
    ui.keys(&["C-b", "%"]);
    let s = ui.wait_for("› hello web");
    let (_, top) = locate(&s, "0 api · claude");
    let (web_x, web_y) = corner(&s, "1 web · codex");
    assert_eq!(top, web_y, "side by side:\n{s}");
    assert!(s.contains("› hello api"), "{s}");

    // Top/bottom inside the right pane: a second pane below the first web pane.
    ui.keys(&["C-b", "\""]);
    let s = ui.wait_until("a pane below", |s| s.matches("1 web · codex").count() == 2);
    // Each pane's frame (the new one, focused, has the double line and the mark).
    let below: Vec<(usize, usize)> = s
        .lines()
        .enumerate()
        .filter_map(|(y, l)| frame_x(l, "1 web · codex").map(|x| (x, y)))
        .collect();
    assert_eq!(below[0], (web_x, web_y), "{s}");
    assert_eq!(below[1].0, web_x, "{s}");
    assert!(below[1].1 > web_y + 3, "{s}");
    assert_eq!(s.matches("› hello web").count(), 2, "{s}");

    // The pane on the left takes the focus; zoomed, it fills the window alone.
    ui.keys(&["C-b", "Left"]);
    ui.wait_for("prompt → api");
    ui.keys(&["C-b", "z"]);
    // The screen is read whole: one caught mid-paint may show the zoom's title before the
    // other panes are cleared (seen in CI), so wait for both.
    ui.wait_until("the pane zoomed alone", |s| {
        s.contains("zoomed (C-b z)") && !s.contains("1 web · codex")
    });
    ui.keys(&["C-b", "z"]);
    ui.wait_for("1 web · codex");

    // Closing it: the web panes take the room, the api terminal goes on in the list.
    ui.keys(&["C-b", "x"]);
    let s = ui.wait_until("the api pane gone", |s| !s.contains("0 api · claude"));
    assert!(s.contains("0 api "), "still listed:\n{s}");
    assert_eq!(s.matches("1 web · codex").count(), 2, "{s}");
    assert_eq!(w.json(&["ls"]).as_array().unwrap().len(), 2);
}

#[test]
fn a_mouse_drag_selects_and_copies_by_osc52_with_or_without_copy_mode() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.send("api", "hello there");
    let ui = Tmux::start(&w, &dir, "");
    ui.tmux(&["set-option", "-s", "set-clipboard", "on"]);
    let s = ui.wait_for("last_user=hello there");

    // A drag on the transcript (tmux's mouse mode): selected, copied on release.
    let wanted = "last_user=hello there";
    let (x, y) = locate(&s, wanted);
    ui.drag((x, y), (x + wanted.len() - 1, y));
    ui.wait_for("copied 21 characters");
    assert_eq!(ui.tmux(&["show-buffer"]), wanted);

    // In copy mode (prefix [): a drag from right to left across the answer's first word.
    ui.keys(&["C-b", "["]);
    ui.wait_for("copy mode [");
    let (x, y) = locate(&s, "MOCK-REPLY");
    ui.drag((x + 9, y), (x, y));
    ui.wait_for("copied 10 characters");
    assert_eq!(ui.tmux(&["show-buffer"]), "MOCK-REPLY");

    // A double click copies the word under it.
    let (x, y) = locate(&s, "› hello there");
    for _ in 0..2 {
        ui.mouse(0, (x + 4, y), false);
        ui.mouse(0, (x + 4, y), true);
    }
    ui.wait_for("copied 5 characters");
    assert_eq!(ui.tmux(&["show-buffer"]), "hello");
}

#[test]
fn esc_twice_rewinds_the_last_turn_and_prefix_f_forks_from_the_multiplexer() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = super::common::repo(&w, "api");
    w.ok(&["new", "api", "--dir", dir.to_str().unwrap()]);
    w.send("api", "first prompt");
    w.send("api", "second prompt, to edit");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("second prompt, to edit");
    // Esc twice on an empty composer: a new terminal from before turn 2, its prompt to edit.
    ui.keys(&["Escape"]);
    ui.wait_for("Esc again");
    ui.keys(&["Escape"]);
    ui.wait_for("rewound api to before turn 2 into api-2");
    w.wait_for("api-2", || {
        w.json(&["ls"]).as_array().is_some_and(|l| l.len() == 2)
    });
    assert_eq!(w.show("api-2")["conversation"]["opened_reason"], "rewind");
    // The prompt is in the composer: Enter sends it to the new terminal.
    ui.keys(&["Enter"]);
    w.wait_for("api-2's turn to end", || {
        w.show("api-2")["last_turn"]["status"] == "completed"
    });
    let log = w.json(&["log", "api-2"]);
    assert_eq!(log["turns"][0]["prompt"], "second prompt, to edit");
    // Prefix f forks the focused terminal.
    // At once: the runner of the turn that just ended may still be finishing up.
    ui.wait_for("── completed");
    ui.keys(&["C-b", "f"]);
    ui.wait_for("forked api-2 at turn 1 into api-2-2");
    w.wait_for("the fork", || {
        w.json(&["ls"]).as_array().is_some_and(|l| l.len() == 3)
    });
}

/// Waits on the server's watch stream for a step of a running turn of kind `kind`.
fn wait_for_step(watch: &mut Watcher, kind: &str) {
    watch.until(|v| v["event"]["what"] == "turn" && v["event"]["event"]["event"]["kind"] == kind);
}

#[test]
fn a_client_attached_mid_turn_draws_what_had_streamed_then_the_whole_turn() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    let mut watch = w.watch();
    // A turn held while its first tool runs: its tool line streamed before any client came.
    let tool_go = w.tmp.path().join("tool-go");
    w.ok(&[
        "send",
        "api",
        "--detach",
        &format!("two calls [[calls:2]] [[hold:{}]]", tool_go.display()),
    ]);
    wait_for_step(&mut watch, "tool_use");
    let a = Tmux::start(&w, &dir, "attach");
    let s = a.wait_for("⚙");
    assert!(s.contains("› two calls"), "{s}");
    std::fs::write(&tool_go, "").unwrap();
    let s = a.wait_for("── completed");
    assert_eq!(s.matches("⚙").count(), 1, "the tool line drawn once:\n{s}");
    assert!(s.contains("last_user=two calls"), "{s}");

    // A turn held after the first piece of its answer, then interrupted: a client attached in
    // between draws the front of the answer, and keeps it once the turn ended.
    let answer_go = w.tmp.path().join("answer-go");
    w.ok(&[
        "send",
        "api",
        "--detach",
        &format!(
            "[[reply:ALPHA-FRONT-OF-THE-ANSWER-0123456789 then OMEGA-END]] [[hold:{}]]",
            answer_go.display()
        ),
    ]);
    wait_for_step(&mut watch, "delta");
    let b = Tmux::start(&w, &dir, "attach");
    b.wait_for("ALPHA-FRONT");
    w.ok(&["interrupt", "api"]);
    for ui in [&a, &b] {
        let s = ui.wait_for("── interrupted");
        assert!(s.contains("ALPHA-FRONT"), "{s}");
        assert!(s.contains("⚙"), "turn 1's tool line kept:\n{s}");
    }
}

#[test]
fn the_list_says_running_when_a_terminal_out_of_view_starts_its_next_turn() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.new_terminal("web", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("No turns yet");
    // web's turns run while api has the focus.
    w.send("web", "first");
    ui.wait_until("web marked done", |s| {
        s.lines().any(|l| l.contains("web") && l.contains("✓ done"))
    });
    let go_on = w.tmp.path().join("go-on");
    w.ok(&[
        "send",
        "web",
        "--detach",
        &format!("held [[hold:{}]]", go_on.display()),
    ]);
    ui.wait_until("web running in the list", |s| {
        s.lines()
            .any(|l| l.contains("web") && l.contains("● running"))
    });
    std::fs::write(&go_on, "").unwrap();
    ui.wait_until("web done again", |s| {
        s.lines().any(|l| l.contains("web") && l.contains("✓ done"))
    });
}

#[test]
fn drafts_per_terminal_and_the_layout_come_back_after_a_detach() {
    use std::os::unix::fs::PermissionsExt;
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.new_terminal("web", "claude");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("prompt → api");
    ui.type_text("draft for api");
    ui.keys(&["C-b", "n"]);
    let s = ui.wait_for("prompt → web");
    assert!(
        !s.contains("draft for api"),
        "api's draft followed to web:\n{s}"
    );
    // Put aside by the change of focus, it is on disk at once (a client killed keeps it).
    let saved = w.data().join("ui/ui.json");
    w.wait_for("api's draft written", || {
        std::fs::read_to_string(&saved).is_ok_and(|t| t.contains("draft for api"))
    });
    ui.type_text("draft for web");
    // A second pane (it shows api, with api's draft), zoomed.
    ui.keys(&["C-b", "%"]);
    let s = ui.wait_for("draft for api");
    assert!(s.contains("1 web · claude"), "{s}");
    ui.keys(&["C-b", "z"]);
    ui.wait_until("zoomed on api", |s| !s.contains("1 web · claude"));
    ui.keys(&["C-b", "d"]);
    ui.wait_for("BATON-EXITED 0");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&saved), 0o600);
    assert_eq!(mode(saved.parent().unwrap()), 0o700);

    // Attached again: zoomed on api's pane with its draft; unzoomed, web's pane has its own.
    let again = Tmux::start(&w, &dir, "attach");
    let s = again.wait_for("draft for api");
    assert!(!s.contains("1 web · claude"), "still zoomed:\n{s}");
    again.keys(&["C-b", "z"]);
    again.wait_for("1 web · claude");
    again.keys(&["C-b", "o"]);
    again.wait_for("draft for web");
    // Ctrl-c cancels api's draft and leaves web's alone; Enter in web sends web's to web.
    again.keys(&["C-b", "o"]);
    again.wait_for("draft for api");
    again.keys(&["C-c"]);
    again.wait_until("api's draft cleared", |s| {
        s.contains("draft cleared") && !s.contains("draft for api")
    });
    again.keys(&["C-b", "o"]);
    again.wait_for("draft for web");
    again.keys(&["Enter"]);
    again.wait_for("last_user=draft for web");
    assert_eq!(turn_count(&w, "api"), 0);
}

/// How many turns `baton log NAME` lists.
fn turn_count(w: &World, name: &str) -> usize {
    w.json(&["log", name])["turns"]
        .as_array()
        .map_or(0, Vec::len)
}

/// A client on terminals `api` (claude, focused), `web` (codex) and `docs` (claude).
fn client_on_three(w: &World) -> Tmux {
    let dir = w.new_terminal("api", "claude");
    w.new_terminal("web", "codex");
    w.new_terminal("docs", "claude");
    let ui = Tmux::start(w, &dir, "");
    ui.wait_for("prompt → api");
    ui
}

/// A client on a new claude terminal `api`, once its composer shows.
fn client_on_api(w: &World) -> Tmux {
    let dir = w.new_terminal("api", "claude");
    let ui = Tmux::start(w, &dir, "");
    ui.wait_for("prompt → api");
    ui
}

#[test]
fn ctrl_u_at_a_line_start_and_esc_esc_clear_the_whole_draft() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let ui = client_on_api(&w);
    let paste = w.tmp.path().join("paste.txt");
    let long: String = (1..=300).map(|i| format!("pasted line {i}\n")).collect();
    std::fs::write(&paste, long).unwrap();
    ui.tmux(&["load-buffer", paste.to_str().unwrap()]);
    ui.tmux(&["paste-buffer", "-p"]);
    ui.wait_for("pasted line 300");
    ui.keys(&["C-u"]);
    ui.wait_until("the paste cleared", |s| !s.contains("pasted line"));
    // Esc Esc clears a draft too, as in Claude Code, while nothing runs.
    ui.type_text("second thoughts");
    ui.keys(&["Escape"]);
    ui.wait_for("Esc again clears the draft");
    ui.keys(&["Escape"]);
    ui.wait_until("the draft cleared", |s| !s.contains("second thoughts"));
    // Enter on the emptied composer sends nothing: the next prompt is the first turn.
    ui.keys(&["Enter"]);
    ui.type_text("next");
    ui.keys(&["Enter"]);
    ui.wait_for("last_user=next");
    assert_eq!(turn_count(&w, "api"), 1);
}

#[test]
fn a_ctrl_space_prefix_a_help_that_fits_and_scrolls_and_unbound_keys_named_plainly() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    std::fs::create_dir_all(w.data()).unwrap();
    std::fs::write(
        w.data().join("config.toml"),
        "[ui.keys]\nprefix = \"C-Space\"\n",
    )
    .unwrap();
    let ui = client_on_api(&w);
    ui.keys(&["C-Space", "y"]);
    ui.wait_for("C-Space y is not bound; C-Space ? lists the keys");
    // The help on 120×40: whole lines, scrolled to its end with G.
    ui.keys(&["C-Space", "?"]);
    let s = ui.wait_for(" keys 1–");
    assert!(
        s.contains(
            "copy mode: hjkl/w/b/g/G move, v select, y copy (OSC 52), / ? n N search, q leave"
        ),
        "{s}"
    );
    assert!(!s.contains("on it: edit (Enter)"), "{s}");
    ui.keys(&["G"]);
    let s = ui.wait_for("on it: edit (Enter)");
    assert!(!s.contains("C-Space c "), "{s}");
    ui.keys(&["q"]);
    ui.wait_until("the help closed", |s| !s.contains("on it: edit (Enter)"));
    // Tab: the title says the next prompt switches provider.
    ui.keys(&["Tab"]);
    ui.wait_for("codex (provider switch)");
}

/// The keys that reshape the panes.
#[path = "tui_panes.rs"]
mod panes;

/// Where the focus is after a re-attach and prefix and a digit, and how it shows.
#[path = "tui_focus.rs"]
mod focus;

/// The tree picker, the command prompt and `baton attach NAME`.
#[path = "tui_picker.rs"]
mod picker;

/// Copy mode's backward search.
#[path = "tui_copy.rs"]
mod copy;

/// Turns as the CLIs draw them: tool calls (C-t), refusals, subagents, Markdown, the turn line.
#[path = "tui_transcript.rs"]
mod transcript;

/// A first hour's habits: a held queue and costs in the list, `/cost`, the diff face's base,
/// editing standing instructions in their overlay, the demo's screen.
#[path = "tui_daily.rs"]
mod daily;

/// The first keys: typed in the burst that starts baton, or while the new-terminal offer shows.
#[path = "tui_start.rs"]
mod start;

/// Rough edges: the default model, incomplete slash commands, a held queue's words.
#[path = "tui_edges.rs"]
mod edges;

#[test]
fn slash_commands_in_the_composer_complete_run_and_others_reach_the_cli_as_typed() {
    if tmux_missing() {
        return;
    }
    let w = World::new();
    let dir = w.new_terminal("api", "claude");
    w.send("api", "first prompt");
    let ui = Tmux::start(&w, &dir, "");
    ui.wait_for("first prompt");
    // Tab completes the name; the title says what Enter will do.
    ui.type_text("/fo");
    ui.wait_for("/fork · Tab completes");
    ui.keys(&["Tab"]);
    ui.type_text(" x");
    ui.wait_for("/fork [NEW]: fork this terminal into NEW");
    ui.keys(&["Enter"]);
    ui.wait_for("into x");
    w.wait_for("the fork x", || {
        names_of(&w.json(&["ls"])).contains(&"x".to_string())
    });
    // Not baton's: the CLI gets it as typed, and the title says so first.
    ui.wait_for("prompt → x");
    ui.type_text("/foo bar");
    ui.wait_for("/foo is not baton's: sent to the CLI as typed");
    ui.keys(&["Enter"]);
    w.wait_for("x's turn to end", || {
        w.show("x")["last_turn"]["status"] == "completed"
    });
    assert_eq!(stdin_prompt(&w.last_invocation()), "/foo bar");
    // `//` escapes: `/new` goes to the CLI rather than opening a fresh conversation.
    ui.type_text("//new");
    ui.wait_for("/new is sent to the CLI as typed");
    ui.keys(&["Enter"]);
    w.wait_for("/new at the CLI", || {
        stdin_prompt(&w.last_invocation()) == "/new"
    });
}
