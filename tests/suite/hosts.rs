//! Terminals on another host over ssh, against a real sshd on 127.0.0.1 started by each test
//! (its own host key and client key, made by ssh-keygen in the test's temp dir). The "other
//! host" is this machine with another data dir; `ssh` on PATH is a wrapper giving the system
//! ssh a test config (port, key, known_hosts): the user's own mechanism, not a baton option.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::common::{text, World, BATON, SHIMS};

/// An sshd on a free port of 127.0.0.1, and the remote side's data dir.
pub(super) struct Sshd {
    child: Child,
    port: u16,
    /// The remote server's data dir (its config points at the shims).
    pub(super) remote: PathBuf,
    pub(super) remote_home: PathBuf,
    /// Its config, keys and log.
    dir: PathBuf,
}

impl Sshd {
    /// Stops listening (sessions already open go on, as sshd's do).
    pub(super) fn stop_listening(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Listens again on the same port.
    pub(super) fn listen_again(&mut self) {
        self.child = listen(&self.dir);
        wait_listening(self.port);
    }
}

/// sshd in the foreground with the config in `dir`, its log into a file (a pipe nobody reads
/// would stop it once full).
fn listen(dir: &Path) -> Child {
    Command::new("/usr/sbin/sshd")
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join("sshd.log"))
                .unwrap(),
        )
        .spawn()
        .unwrap()
}

fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "sshd did not listen again");
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = Command::new(BATON)
            .args(["server", "stop"])
            .env("BATON_HOME", &self.remote)
            .env("HOME", &self.remote_home)
            .output();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keygen(path: &Path) {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", ""])
        .arg("-f")
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "ssh-keygen: {}", text(&out));
}

/// Starts sshd for world `w` and puts the `ssh` wrapper first on its PATH; `None` (the test
/// is skipped, saying why) where sshd is missing or cannot run.
pub(super) fn sshd(w: &mut World, extra_hosts: &str) -> Option<Sshd> {
    let sshd_bin = Path::new("/usr/sbin/sshd");
    if !sshd_bin.exists() || !Path::new("/usr/bin/ssh").exists() {
        eprintln!("skipped: no /usr/sbin/sshd or /usr/bin/ssh (apt-get install openssh-server openssh-client)");
        return None;
    }
    let dir = w.tmp.path().join("sshd");
    let remote = w.tmp.path().join("remote");
    let remote_home = w.tmp.path().join("remote-home");
    let bin = w.tmp.path().join("bin");
    for d in [&dir, &remote, &remote_home, &bin] {
        std::fs::create_dir_all(d).unwrap();
    }
    // As root, sshd needs its privilege separation directory.
    let _ = std::fs::create_dir_all("/run/sshd");
    keygen(&dir.join("host_key"));
    keygen(&dir.join("client_key"));
    std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
    let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    let port = free_port();
    let d = dir.display();
    std::fs::write(
        dir.join("sshd_config"),
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\n\
             AuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\nUsePAM no\n\
             StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             PermitRootLogin prohibit-password\n\
             SetEnv HOME={home} CODEX_HOME={home}/.codex BATON_SHIM_LOG={log} LANG=C.UTF-8\n",
            home = remote_home.display(),
            log = w.tmp.path().join("remote-shim.log").display(),
        ),
    )
    .unwrap();
    let host_key = std::fs::read_to_string(dir.join("host_key.pub")).unwrap();
    let key: Vec<&str> = host_key.split_whitespace().take(2).collect();
    std::fs::write(
        dir.join("known_hosts"),
        format!("[127.0.0.1]:{port} {}\n", key.join(" ")),
    )
    .unwrap();
    std::fs::write(
        dir.join("ssh_config"),
        format!(
            "{extra_hosts}Host *\n  Port {port}\n  User {user}\n  IdentityFile {d}/client_key\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {d}/known_hosts\n"
        ),
    )
    .unwrap();
    let wrapper = bin.join("ssh");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec /usr/bin/ssh -F {d}/ssh_config \"$@\"\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.path = format!("{}:{}", bin.display(), w.path);
    std::fs::write(
        remote.join("config.toml"),
        format!(
            "[providers.claude]\nbin = \"{SHIMS}/claude\"\n[providers.codex]\nbin = \"{SHIMS}/codex\"\n"
        ),
    )
    .unwrap();
    let log = dir.join("sshd.log");
    let mut child = listen(&dir);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut pause = Duration::from_millis(5);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            let err = std::fs::read_to_string(&log).unwrap_or_default();
            eprintln!("skipped: sshd cannot run here ({status}): {err}");
            return None;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            eprintln!("skipped: sshd did not accept connections within 20 s");
            return None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
    Some(Sshd {
        child,
        port,
        remote,
        remote_home,
        dir,
    })
}

/// `baton host add box 127.0.0.1` with this test's baton and the remote data dir.
pub(super) fn add_box(w: &World, s: &Sshd) {
    w.ok(&[
        "host",
        "add",
        "box",
        "127.0.0.1",
        "--baton",
        BATON,
        "--data-dir",
        s.remote.to_str().unwrap(),
    ]);
}

/// sshd, host `box` added and a terminal `box:NAME` on it (`None`: sshd cannot run here).
pub(super) fn box_terminal(w: &mut World, name: &str) -> Option<Sshd> {
    let s = sshd(w, "")?;
    add_box(w, &s);
    let dir = remote_project(&s, "proj");
    w.ok(&[
        "new",
        &format!("box:{name}"),
        "--dir",
        dir.to_str().unwrap(),
    ]);
    Some(s)
}

pub(super) fn remote_project(s: &Sshd, name: &str) -> PathBuf {
    let p = s.remote_home.join(name);
    std::fs::create_dir_all(&p).unwrap();
    p.canonicalize().unwrap()
}

#[test]
fn hosts_are_added_listed_and_removed_in_the_config() {
    let mut w = World::new();
    let Some(s) = sshd(&mut w, "") else { return };
    add_box(&w, &s);
    let config = w.data().join("config.toml");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&config).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let written = std::fs::read_to_string(&config).unwrap();
    assert_eq!(
        written,
        format!(
            "[hosts.box]\nssh = \"127.0.0.1\"\nbaton = \"{BATON}\"\ndata_dir = \"{}\"\n",
            s.remote.display()
        )
    );
    let again = w.run(&["host", "add", "box", "127.0.0.1"]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    let hosts = w.json(&["host", "ls"]);
    assert_eq!(hosts[0]["name"], "box");
    assert_eq!(hosts[0]["reachable"], true, "{hosts}");
    assert_eq!(hosts[0]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(hosts[0]["terminals"], 0);
    assert!(hosts[0]["rtt_ms"].is_u64());
    let listed = w.ok(&["host", "ls"]);
    assert!(
        listed.contains("box") && listed.contains("online"),
        "{listed}"
    );
    let typo = w.run(&["show", "bx:t"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        text(&typo).contains("did you mean \"box\"") && text(&typo).contains("baton host add"),
        "{}",
        text(&typo)
    );
    w.ok(&["host", "rm", "box"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "");
    assert_eq!(w.run(&["host", "rm", "box"]).status.code(), Some(2));
    let _ = s.port;
}

#[test]
fn a_terminal_on_another_host_is_driven_as_a_local_one_and_listed_with_the_local_ones() {
    let mut w = World::new();
    let Some(s) = sshd(&mut w, "") else { return };
    add_box(&w, &s);
    w.new_terminal("here", "claude");
    let dir = remote_project(&s, "proj");
    let made = w.ok(&["new", "box:t", "--dir", dir.to_str().unwrap()]);
    assert!(made.starts_with("box:t "), "{made}");
    let relative = w.run(&["new", "box:u", "--dir", "proj"]);
    assert_eq!(relative.status.code(), Some(2), "{}", text(&relative));
    let (out, err) = w.send("box:t", "hello from afar");
    assert!(
        out.contains("MOCK-REPLY #1") && out.contains("last_user=hello from afar"),
        "{out}"
    );
    assert!(err.contains("box:t · turn 1"), "{err}");
    // The prompt reached the remote CLI on its stdin, never in an argv.
    let remote_log = std::fs::read_to_string(w.tmp.path().join("remote-shim.log")).unwrap();
    let run = remote_log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|i| i["argv"][0] != "sandbox")
        .expect("the remote CLI never ran");
    assert!(
        run["stdin"].as_str().unwrap().contains("hello from afar"),
        "{run}"
    );
    assert!(
        !run["argv"].to_string().contains("hello from afar"),
        "{run}"
    );
    let piped = w.run_stdin(&["send", "box:t", "-"], b"second prompt");
    assert!(piped.status.success(), "{}", text(&piped));
    let streamed = w.ok(&["send", "box:t", "third", "--json"]);
    let lines: Vec<serde_json::Value> = streamed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.last().unwrap()["reply"], "ok", "{streamed}");
    assert_eq!(lines.last().unwrap()["data"]["number"], 3, "{streamed}");
    let detached = w.run(&["send", "box:t", "fourth", "--detach"]);
    assert!(detached.status.success(), "{}", text(&detached));
    w.wait_for("the detached turn to end on the host", || {
        w.json(&["log", "box:t"])["turns"][3]["status"] == "completed"
    });
    let show = w.json(&["show", "box:t"]);
    assert_eq!(show["name"], "t");
    assert_eq!(show["dir"], dir.to_str().unwrap());
    let log = w.json(&["log", "box:t"]);
    assert_eq!(log["turns"].as_array().unwrap().len(), 4, "{log}");
    assert!(w.ok(&["log", "box:t"]).contains("hello from afar"));
    w.ok(&["instructions", "box:t", "add", "Always answer in English."]);
    assert_eq!(
        w.json(&["instructions", "box:t"])[0]["text"],
        "Always answer in English.",
    );
    assert_eq!(w.json(&["queue", "box:t"]), serde_json::json!([]));
    let idle = w.run(&["interrupt", "box:t"]);
    assert_eq!(
        String::from_utf8_lossy(&idle.stderr),
        "baton: on host box: t has no running turn to interrupt\n"
    );
    // The local server never saw the remote terminal.
    assert_eq!(
        w.run(&["show", "t"]).status.code(),
        Some(2),
        "the remote terminal leaked into the local server"
    );
    let rows = w.json(&["ls"]);
    let rows: Vec<(String, String)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["host"].to_string(),
                r["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("null".to_string(), "here".to_string()),
            ("\"box\"".to_string(), "t".to_string())
        ]
    );
    let table = w.ok(&["ls"]);
    assert!(table.starts_with("HOST "), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("box ") && l.contains(" t ")),
        "{table}"
    );
    assert_eq!(w.json(&["host", "ls"])[0]["terminals"], 1);
    w.ok(&["archive", "box:t"]);
    assert_eq!(w.json(&["ls"]).as_array().unwrap().len(), 1);
    assert_eq!(w.json(&["ls", "--all"]).as_array().unwrap().len(), 2);
    w.ok(&["unarchive", "box:t"]);
    w.ok(&["rename", "box:t", "t2"]);
    assert_eq!(w.json(&["show", "box:t2"])["name"], "t2");
    w.ok(&["rm", "box:t2"]);
    assert_eq!(w.json(&["ls"]).as_array().unwrap().len(), 1);
}

#[test]
fn a_host_that_does_not_answer_is_listed_offline_within_the_bound_and_local_rows_still_print() {
    let mut w = World::new();
    // Accepts connections and never says a word: ssh waits for its banner for ever.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    let closed = free_port();
    let extra = format!(
        "Host silent.test\n  HostName 127.0.0.1\n  Port {silent_port}\n\
         Host closed.test\n  HostName 127.0.0.1\n  Port {closed}\n"
    );
    let Some(_s) = sshd(&mut w, &extra) else {
        return;
    };
    w.new_terminal("here", "claude");
    std::fs::write(
        w.data().join("config.toml"),
        "[remote]\noffline_after_ms = 1500\n",
    )
    .unwrap();
    w.ok(&["host", "add", "quiet", "silent.test", "--baton", BATON]);
    w.ok(&["host", "add", "gone", "closed.test", "--baton", BATON]);
    let started = Instant::now();
    let out = w.run(&["ls"]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", text(&out));
    assert!(took < Duration::from_secs(10), "ls took {took:?}");
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("-") && l.contains("here")),
        "{table}"
    );
    assert!(
        table.contains("host quiet: offline (no answer within 1500 ms)"),
        "{table}"
    );
    assert!(
        table.contains("host gone: offline (cannot reach host gone over ssh")
            && table.contains("run `ssh closed.test` once by hand"),
        "{table}"
    );
    // The ssh still waiting on the silent host was ended with the listing.
    w.wait_for("no ssh left waiting on the silent host", || {
        !processes_naming("-T silent.test")
    });
    let json = w.run(&["ls", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    // The local row, then a row marking each host offline.
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    let offline: Vec<&str> = (rows.iter())
        .filter(|r| r["offline"] == true)
        .filter_map(|r| r["host"].as_str())
        .collect();
    assert_eq!(offline, ["gone", "quiet"]);
    assert!(String::from_utf8_lossy(&json.stderr).contains("host quiet is offline"));
    let hosts = w.json(&["host", "ls"]);
    assert_eq!(hosts[1]["name"], "quiet");
    assert_eq!(hosts[1]["reachable"], false);
    assert_eq!(hosts[1]["error"], "no answer within 1500 ms");
    let cmd = w.run(&["show", "gone:t"]);
    assert_eq!(cmd.status.code(), Some(1));
    assert!(
        text(&cmd).contains("run `ssh closed.test` once by hand"),
        "{}",
        text(&cmd)
    );
    drop(silent);
}

#[test]
fn a_host_without_baton_gives_one_line_saying_what_to_install() {
    let mut w = World::new();
    let Some(_s) = sshd(&mut w, "") else { return };
    w.ok(&[
        "host",
        "add",
        "bare",
        "127.0.0.1",
        "--baton",
        "/nowhere/baton",
    ]);
    let out = w.run(&["show", "bare:t"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        format!(
            "baton: host bare has no baton at /nowhere/baton: install baton {} there (`cargo install --locked --path .` in baton's source) or set [hosts.bare] baton = \"/path/to/baton\"\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    // A baton there whose server cannot start: its own one line, naming the host.
    let broken = w.tmp.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("config.toml"), "[nonsense\n").unwrap();
    w.ok(&[
        "host",
        "add",
        "broken",
        "127.0.0.1",
        "--baton",
        BATON,
        "--data-dir",
        broken.to_str().unwrap(),
    ]);
    let out = w.run(&["show", "broken:t"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("baton: on host broken: ")
            && err.contains("is not valid")
            && err.lines().count() == 1,
        "{err}"
    );
    // A bridge of another protocol: the versions on both sides, in one line.
    let old = w.tmp.path().join("old-baton");
    std::fs::write(
        &old,
        "#!/bin/sh\necho '{\"baton\":\"0.0.1\",\"protocol\":0}'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.ok(&[
        "host",
        "add",
        "old",
        "127.0.0.1",
        "--baton",
        old.to_str().unwrap(),
    ]);
    let out = w.run(&["show", "old:t"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("host old runs baton 0.0.1 (protocol 0), this one is baton")
            && err.lines().count() == 1,
        "{err}"
    );
}

/// Whether a live process's command line holds `what`.
fn processes_naming(what: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        std::fs::read(p.path().join("cmdline")).is_ok_and(|c| {
            String::from_utf8_lossy(&c)
                .replace('\0', " ")
                .contains(what)
        })
    })
}

/// The ssh child of process `pid` (its channel to the host).
fn ssh_child(pid: u32) -> Option<i32> {
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
    children
        .split_whitespace()
        .filter_map(|c| c.parse::<i32>().ok())
        .find(|c| {
            std::fs::read_to_string(format!("/proc/{c}/cmdline"))
                .is_ok_and(|cmd| cmd.contains("ssh"))
        })
}

#[test]
fn a_connection_dropped_mid_turn_loses_nothing_and_watch_picks_the_turn_up() {
    let mut w = World::new();
    let Some(s) = sshd(&mut w, "") else { return };
    add_box(&w, &s);
    let dir = remote_project(&s, "proj");
    w.ok(&["new", "box:t", "--dir", dir.to_str().unwrap()]);
    let mut send = w.spawn(&["send", "box:t", "take your time [[hold:go]]"]);
    let remote_log = w.tmp.path().join("remote-shim.log");
    w.wait_for("the remote CLI to start the turn", || {
        std::fs::read_to_string(&remote_log).is_ok_and(|l| l.contains("take your time"))
    });
    let ssh = ssh_child(send.id()).expect("the send has no ssh child");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(ssh),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let status = send.wait().unwrap();
    let mut err = String::new();
    send.stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("lost the connection to host box")
            && err.contains("`baton watch box:t` picks its turn up again"),
        "{err}"
    );
    // The turn runs on there: watch follows it from its start to its end.
    let mut watch = w.spawn(&["watch", "box:t"]);
    let mut watch_err = watch.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = String::new();
        let mut buf = [0u8; 1024];
        while let Ok(n) = watch_err.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            let _ = tx.send(seen.clone());
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let seen = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("watch printed no start of the turn");
        if seen.contains("box:t · turn 1") {
            break;
        }
    }
    std::fs::write(dir.join("go"), "").unwrap();
    let out = watch.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("MOCK-REPLY #1"));
    let log = w.json(&["log", "box:t"]);
    assert_eq!(log["turns"][0]["status"], "completed", "{log}");
}

#[test]
fn ctrl_c_at_the_terminal_interrupts_a_remote_turn_instead_of_killing_the_channel() {
    let mut w = World::new();
    let Some(s) = sshd(&mut w, "") else { return };
    add_box(&w, &s);
    let dir = remote_project(&s, "proj");
    w.ok(&["new", "box:t", "--dir", dir.to_str().unwrap()]);
    // A group of its own, as a shell gives a foreground job: Ctrl-c is SIGINT to that group.
    let mut cmd = w.cmd(&["send", "box:t", "[[hold:go]] held"]);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut send = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut buf = [0u8; 256];
    let n = send.stdout.as_mut().unwrap().read(&mut buf).unwrap();
    assert!(n > 0, "the send printed nothing of its turn");
    let group = nix::unistd::Pid::from_raw(-(send.id() as i32));
    nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGINT).unwrap();
    let out = send.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    assert!(
        text(&out).contains("interrupting box:t's turn"),
        "{}",
        text(&out)
    );
    assert_eq!(w.show("box:t")["last_turn"]["status"], "interrupted");
}

#[test]
fn ls_json_marks_a_host_that_does_not_answer_after_the_terminals_rows() {
    let mut w = World::new();
    // An ssh that cannot reach anything: no sshd needed.
    let bin = w.tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let ssh = bin.join("ssh");
    std::fs::write(
        &ssh,
        "#!/bin/sh\necho 'ssh: connect to host gone.test port 22: Connection refused' >&2\nexit 255\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.path = format!("{}:{}", bin.display(), w.path);
    w.new_terminal("here", "claude");
    w.ok(&["host", "add", "gone", "gone.test", "--baton", BATON]);
    let out = w.run(&["ls", "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["name"], "here");
    assert_eq!(rows[0].get("offline"), None);
    let keys: Vec<&String> = rows[1].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["error", "host", "offline"]);
    assert_eq!(rows[1]["host"], "gone");
    assert_eq!(rows[1]["offline"], true);
    let error = rows[1]["error"].as_str().unwrap();
    assert!(error.contains("cannot reach host gone"), "{error}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("host gone is offline"));
}
