//! A private world per test: HOME, BATON_HOME, CODEX_HOME in a temp dir, the shims first on
//! PATH, and helpers to run the real `baton` binary and read what the shims recorded.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BATON: &str = env!("CARGO_BIN_EXE_baton");
pub const SHIMS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/shims");

pub struct World {
    pub tmp: tempfile::TempDir,
    pub path: String,
    /// Extra environment for baton (and so for the server it starts and the shims).
    pub env: Vec<(String, String)>,
}

impl World {
    pub fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        for d in ["home", "data", "work"] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        let path = format!("{SHIMS}:{}", std::env::var("PATH").unwrap_or_default());
        World {
            tmp,
            path,
            env: vec![],
        }
    }

    /// A world whose PATH has no `claude` or `codex` (only the system's).
    pub fn without_clis() -> World {
        let mut w = World::new();
        w.path = "/usr/local/bin:/usr/bin:/bin".to_string();
        w
    }

    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    pub fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }
    pub fn codex_home(&self) -> PathBuf {
        self.home().join(".codex")
    }
    pub fn shim_log(&self) -> PathBuf {
        self.tmp.path().join("shim.log")
    }

    /// A fresh project directory (physical path).
    pub fn project(&self, name: &str) -> PathBuf {
        let p = self.tmp.path().join("work").join(name);
        std::fs::create_dir_all(&p).unwrap();
        p.canonicalize().unwrap()
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BATON);
        c.args(args)
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", self.home())
            .env("BATON_HOME", self.data())
            .env("CODEX_HOME", self.codex_home())
            .env("BATON_SHIM_LOG", self.shim_log())
            .env("LANG", "C.UTF-8")
            .stdin(Stdio::null());
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    pub fn run_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        use std::io::Write;
        let mut child = self
            .cmd(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    }

    pub fn spawn(&self, args: &[&str]) -> Child {
        self.cmd(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs and asserts exit 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "baton {args:?} failed: {}",
            text(&out)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        let out = self.ok(&a);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
    }

    pub fn show(&self, name: &str) -> Value {
        self.json(&["show", name])
    }

    /// `baton new NAME --dir DIR --provider P` with a fresh project dir.
    pub fn new_terminal(&self, name: &str, provider: &str) -> PathBuf {
        let dir = self.project(name);
        self.ok(&[
            "new",
            name,
            "--dir",
            dir.to_str().unwrap(),
            "--provider",
            provider,
        ]);
        dir
    }

    /// A terminal `name` on a new git repository `repo` (with one commit), on `provider`: it
    /// works in a worktree of its own. Returns the repository.
    pub fn new_repo_terminal(&self, name: &str, repo_name: &str, provider: &str) -> PathBuf {
        let repo = repo(self, repo_name);
        let dir = repo.to_str().unwrap();
        self.ok(&["new", name, "--dir", dir, "--provider", provider]);
        repo
    }

    /// `baton send`, asserting the turn completed; returns (stdout, stderr).
    pub fn send(&self, name: &str, prompt: &str) -> (String, String) {
        let out = self.run(&["send", name, prompt]);
        assert!(
            out.status.success(),
            "send {prompt:?} failed: {}",
            text(&out)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    /// Every shim invocation so far that ran a turn (not the sandbox probes).
    /// The runs that took a prompt: each CLI started for a turn, and each turn of a warm one
    /// (a record with `turn`); not sandbox probes, nor a Codex app-server's own start (its
    /// turns are logged as they come).
    pub fn invocations(&self) -> Vec<Value> {
        self.all_invocations()
            .into_iter()
            .filter(|i| i["argv"][0] != "sandbox")
            .filter(|i| i["argv"][0] != "app-server" || i.get("turn").is_some())
            .collect()
    }

    /// Every shim invocation so far, sandbox probes included.
    pub fn all_invocations(&self) -> Vec<Value> {
        let Ok(text) = std::fs::read_to_string(self.shim_log()) else {
            return vec![];
        };
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn last_invocation(&self) -> Value {
        self.invocations().pop().expect("no shim was run")
    }

    /// Turns warm CLIs off (`warm = 0` for Claude and Codex): every turn starts its CLI, for
    /// tests of the command line a cold turn gets. Call it before the server starts.
    pub fn cold(&self) {
        let config = self.data().join("config.toml");
        assert!(!config.exists(), "cold() writes the whole config");
        std::fs::write(
            config,
            "[providers.claude]\nwarm = 0\n\n[providers.codex]\nwarm = 0\n",
        )
        .unwrap();
    }

    /// Turns the approvals inbox off (`[approvals] ask = "never"`): a Codex turn then stays a
    /// `codex exec` (one that may ask runs on an app-server, a new thread's first too), for tests
    /// of exec's command line and of warm app-servers. Call it after any whole-config write,
    /// before the server starts.
    pub fn exec_only(&self) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.data().join("config.toml"))
            .unwrap();
        writeln!(f, "\n[approvals]\nask = \"never\"").unwrap();
    }

    /// Waits until `cond` holds, failing after a deadline.
    pub fn wait_for(&self, what: &str, mut cond: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(90);
        let mut pause = Duration::from_millis(10);
        while !cond() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(200));
        }
    }
}

/// A connection watching the server's stream of changes (what the UI sees).
pub struct Watcher {
    lines: std::io::Lines<std::io::BufReader<std::os::unix::net::UnixStream>>,
}

impl Watcher {
    /// Reads events until one satisfies `pred` (and returns it); fails after a deadline.
    pub fn until(&mut self, mut pred: impl FnMut(&Value) -> bool) -> Value {
        loop {
            let line = self
                .lines
                .next()
                .expect("the watch stream ended")
                .expect("the watch stream timed out");
            let v: Value = serde_json::from_str(&line).unwrap();
            if pred(&v) {
                return v;
            }
        }
    }
}

impl World {
    /// Starts the server if needed and watches it.
    pub fn watch(&self) -> Watcher {
        use std::io::{BufRead, Write};
        self.ok(&["server", "start"]);
        let mut sock =
            std::os::unix::net::UnixStream::connect(self.data().join("server.sock")).unwrap();
        sock.write_all(b"{\"cmd\":\"watch\"}\n").unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(90)))
            .unwrap();
        Watcher {
            lines: std::io::BufReader::new(sock).lines(),
        }
    }
}

impl World {
    /// One request `line` to the server's socket (started if needed), and its answer's line.
    pub fn request(&self, line: &str) -> Value {
        use std::io::{BufRead, Write};
        self.ok(&["server", "start"]);
        let mut sock =
            std::os::unix::net::UnixStream::connect(self.data().join("server.sock")).unwrap();
        sock.write_all(format!("{line}\n").as_bytes()).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut answer = String::new();
        std::io::BufReader::new(sock)
            .read_line(&mut answer)
            .unwrap();
        serde_json::from_str(&answer).unwrap()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let _ = self.cmd(&["server", "stop"]).output();
    }
}

/// Runs git in `dir` with a private, empty global config and a fixed identity; panics on
/// failure; returns its stdout.
pub fn git(w: &World, dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", w.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test User")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test User")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

pub fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Asserts `baton ARGS` is refused with exit 2 and one line holding `needle`.
pub fn refused(w: &World, args: &[&str], needle: &str) {
    let out = w.run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// The value of `flag` in an argv list.
pub fn flag<'a>(argv: &'a Value, flag: &str) -> Option<&'a str> {
    let a = argv.as_array()?;
    let i = a.iter().position(|x| x.as_str() == Some(flag))?;
    a.get(i + 1)?.as_str()
}

/// The system text a shim received (Claude's appended text, Codex's `developer_instructions`),
/// read by the shim from the file or profile baton named: never from argv.
pub fn system_text(inv: &Value) -> Option<String> {
    inv["system"].as_str().map(String::from)
}

/// The value of a `-c key=value` pair in a codex argv.
pub fn codex_config<'a>(argv: &'a Value, key: &str) -> Option<&'a str> {
    let a = argv.as_array()?;
    a.windows(2).find_map(|w| {
        let v = w[1].as_str()?;
        (w[0].as_str() == Some("-c") && v.starts_with(&format!("{key}=")))
            .then(|| &v[key.len() + 1..])
    })
}

pub fn has_arg(argv: &Value, arg: &str) -> bool {
    argv.as_array()
        .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(arg)))
}

pub fn read_dir_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(read_dir_files(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// A repository with one commit on `main`, a README and a .gitignore for `*.log`.
pub fn repo(w: &World, name: &str) -> PathBuf {
    let dir = w.project(name);
    init_repo(w, &dir);
    dir
}

/// Makes `dir` the repository [`repo`] makes.
pub fn init_repo(w: &World, dir: &Path) {
    git(w, dir, &["init", "-q", "-b", "main"]);
    git(w, dir, &["config", "user.name", "Repo Owner"]);
    git(w, dir, &["config", "user.email", "owner@example.com"]);
    std::fs::write(dir.join("README.md"), "# project\n").unwrap();
    std::fs::write(dir.join(".gitignore"), "*.log\n").unwrap();
    git(w, dir, &["add", "."]);
    git(w, dir, &["commit", "-q", "-m", "init"]);
}

/// Kills the server with SIGKILL and waits until it is gone; returns its pid.
pub fn kill_server(w: &World) -> i32 {
    use nix::sys::signal::{kill, Signal};
    use nix::unistd::Pid;
    let server = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
    kill(Pid::from_raw(server), Signal::SIGKILL).unwrap();
    w.wait_for("the server to be gone", || !process_runs(server));
    server
}

/// `baton send NAME PROMPT` for a prompt whose CLI lingers after its answer (`[[linger:…]]`):
/// its output once the send returned (successfully), and the pid of that CLI, still running.
pub fn send_lingering(w: &World, name: &str, prompt: &str) -> (Output, i32) {
    let mut slow = w.spawn(&["send", name, prompt]);
    w.wait_for("the send to return while its CLI still runs", || {
        slow.try_wait().unwrap().is_some()
    });
    let out = slow.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let pid = w.last_invocation()["pid"].as_i64().unwrap() as i32;
    assert!(process_runs(pid), "the CLI still exits");
    (out, pid)
}

/// True while process `pid` runs (a zombie does not).
pub fn process_runs(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// The Claude session a turn's invocation (a line of the shim log) opened and the one it
/// resumed: `--session-id` and `--resume` of a process's first turn; a further turn of a warm
/// process (`turn` > 0) resumes the session that process holds (a fork's: its new id).
pub fn claude_session(inv: &Value) -> (Option<String>, Option<String>) {
    let argv = &inv["argv"];
    let opened = flag(argv, "--session-id").map(String::from);
    let resumed = flag(argv, "--resume").map(String::from);
    if inv["turn"].as_u64().unwrap_or(0) == 0 {
        return (opened, resumed);
    }
    if has_arg(argv, "--fork-session") {
        return (None, opened);
    }
    (None, opened.or(resumed))
}

/// The prompt a CLI invocation read on stdin: Claude reads it as a stream-json user message
/// (one JSON line; later lines are steers), Codex as plain text.
pub fn stdin_prompt(inv: &Value) -> String {
    let stdin = inv["stdin"].as_str().unwrap_or_default();
    if flag(&inv["argv"], "--input-format") == Some("stream-json") {
        let first = stdin.lines().next().unwrap_or_default();
        let line: Value = serde_json::from_str(first).unwrap_or_else(|e| panic!("{e}: {stdin:?}"));
        assert_eq!(line["type"], "user", "{line}");
        return line["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string();
    }
    stdin.to_string()
}

/// The terminals' names in an `ls --json` answer, in order.
pub fn names_of(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// Terminal `name`'s standing instructions, as `baton instructions NAME --json` lists them.
pub fn instructions(w: &World, name: &str) -> Vec<String> {
    w.json(&["instructions", name])
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].as_str().unwrap().to_string())
        .collect()
}

/// The pids of running processes whose environment holds `var` (`NAME=value`) and whose
/// program (`/proc/PID/exe`) and command line (its words joined by spaces) `pick` takes.
pub fn processes_with(var: &str, pick: impl Fn(&Path, &str) -> bool) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let words = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            env.split(|&b| b == 0).any(|v| v == var.as_bytes()) && pick(&exe, &words)
        })
        .collect()
}
