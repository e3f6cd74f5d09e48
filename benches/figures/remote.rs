//! Issue 16's figures: `baton send` and `baton ls` on a terminal of another host (this machine
//! through a real sshd on 127.0.0.1, as `tests/suite/hosts.rs` starts it) against the same on a
//! local terminal, as ratios. Skipped with a row saying why where sshd cannot run.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{median, ms, row, World, BATON, SHIMS};

/// A private sshd for the bench; stopped (with the far side's server) when dropped.
struct Sshd {
    child: Child,
    remote_env: Vec<(String, String)>,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = Command::new(BATON)
            .args(["server", "stop"])
            .env_clear()
            .envs(self.remote_env.iter().cloned())
            .output();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keygen(path: &Path) -> Result<(), String> {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", ""])
        .arg("-f")
        .arg(path)
        .output()
        .map_err(|e| format!("ssh-keygen: {e}"))?;
    out.status
        .success()
        .then_some(())
        .ok_or_else(|| "ssh-keygen failed".to_string())
}

/// Starts sshd on a free port for world `w` (its `ssh` now a wrapper with the bench's config)
/// with a far side in `w`'s folder `remote`.
fn start(w: &mut World) -> Result<Sshd, String> {
    let sshd = Path::new("/usr/sbin/sshd");
    if !sshd.exists() {
        return Err("no /usr/sbin/sshd (apt-get install openssh-server)".into());
    }
    let dir = w.root.join("sshd");
    let (remote, home, bin) = (
        w.root.join("remote"),
        w.root.join("remote-home"),
        w.root.join("bin"),
    );
    for d in [&dir, &remote, &home, &bin] {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let _ = std::fs::create_dir_all("/run/sshd");
    keygen(&dir.join("host_key"))?;
    keygen(&dir.join("client_key"))?;
    let io = |r: std::io::Result<()>| r.map_err(|e| e.to_string());
    io(std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).map(|_| ()))?;
    let user = std::env::var("USER").unwrap_or_else(|_| "root".into());
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let d = dir.display();
    io(std::fs::write(
        dir.join("sshd_config"),
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\n\
             AuthorizedKeysFile {d}/authorized_keys\nPidFile {d}/sshd.pid\nUsePAM no\n\
             StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             PermitRootLogin prohibit-password\nSetEnv HOME={h} LANG=C.UTF-8\n",
            h = home.display()
        ),
    ))?;
    let host_key = std::fs::read_to_string(dir.join("host_key.pub")).map_err(|e| e.to_string())?;
    let key: Vec<&str> = host_key.split_whitespace().take(2).collect();
    io(std::fs::write(
        dir.join("known_hosts"),
        format!("[127.0.0.1]:{port} {}\n", key.join(" ")),
    ))?;
    io(std::fs::write(
        dir.join("ssh_config"),
        format!(
            "Host *\n  Port {port}\n  User {user}\n  IdentityFile {d}/client_key\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {d}/known_hosts\n"
        ),
    ))?;
    let wrapper = bin.join("ssh");
    io(std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec /usr/bin/ssh -F {d}/ssh_config \"$@\"\n"),
    ))?;
    use std::os::unix::fs::PermissionsExt;
    io(std::fs::set_permissions(
        &wrapper,
        std::fs::Permissions::from_mode(0o755),
    ))?;
    io(std::fs::write(
        remote.join("config.toml"),
        format!("[providers.claude]\nbin = \"{SHIMS}/claude\"\n"),
    ))?;
    for (k, v) in w.env.iter_mut() {
        if k == "PATH" {
            *v = format!("{}:{v}", bin.display());
        }
    }
    let log = std::fs::File::create(dir.join("sshd.log")).map_err(|e| e.to_string())?;
    let mut child = Command::new(sshd)
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("sshd: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if child.try_wait().ok().flatten().is_some() || Instant::now() > deadline {
            let _ = child.kill();
            return Err("sshd did not start".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let remote_env = vec![
        ("BATON_HOME".into(), remote.display().to_string()),
        ("HOME".into(), home.display().to_string()),
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
    ];
    let remote = remote.display().to_string();
    w.ok(&[
        "host",
        "add",
        "box",
        "127.0.0.1",
        "--baton",
        BATON,
        "--data-dir",
        &remote,
    ]);
    Ok(Sshd { child, remote_env })
}

/// The rows: remote `send` and `ls` against local ones, each pair run back to back.
pub fn rows(n: usize) -> Vec<[String; 4]> {
    let mut w = World::new();
    let _sshd = match start(&mut w) {
        Ok(s) => s,
        Err(why) => return vec![row("remote send and ls", "-".into(), why, "-".into())],
    };
    w.terminal("here");
    // The same local terminal in a world without hosts: what `ls` costs without them.
    let plain = World::new();
    plain.terminal("here");
    let far = w.root.join("remote-home").join("there");
    if std::fs::create_dir_all(&far).is_err() {
        return vec![row(
            "remote send and ls",
            "-".into(),
            "no far folder".into(),
            "-".into(),
        )];
    }
    let far = far.display().to_string();
    w.ok(&["new", "box:there", "--dir", &far, "--provider", "claude"]);
    for t in ["here", "box:there"] {
        w.ok(&["send", t, "open the session"]);
    }
    let timed_in = |w: &World, args: &[&str]| {
        let start = Instant::now();
        w.ok(args);
        start.elapsed()
    };
    let timed = |args: &[&str]| timed_in(&w, args);
    let (mut local, mut remote, mut ls_local, mut ls_all) = (vec![], vec![], vec![], vec![]);
    for i in 0..n {
        let prompt = format!("turn {i}");
        local.push(timed(&["send", "here", &prompt]));
        remote.push(timed(&["send", "box:there", &prompt]));
        ls_all.push(timed(&["ls"]));
        ls_local.push(timed_in(&plain, &["ls"]));
    }
    let (l, r) = (median(local), median(remote));
    let (ll, la) = (median(ls_local), median(ls_all));
    vec![
        row(
            "send on a terminal of another host (sshd on 127.0.0.1, ControlMaster) / a local one, warm CLIs",
            ms(r),
            ms(l),
            format!("{:.2}× (+{})", r.as_secs_f64() / l.as_secs_f64(), ms(r.saturating_sub(l))),
        ),
        row(
            "ls of a local and a remote terminal / ls of the local one alone (no host)",
            ms(la),
            ms(ll),
            format!("{:.2}×", la.as_secs_f64() / ll.as_secs_f64()),
        ),
    ]
}
