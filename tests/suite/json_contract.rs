//! The documented `--json` output (`new`, `send`, `ls`, `show`, `log`, `instructions`, `diff`,
//! `server status`, `prune`, `export`, `import`, `doctor`, `integrate`) pinned as snapshots, so a refactor
//! that renames, drops or retypes a field fails here. Values that differ per run (ids, times,
//! paths, commits, pids) are replaced by
//! placeholders that keep their identity: the same id is the same `<id:N>` everywhere.

use std::collections::HashMap;

use regex::Regex;
use serde_json::Value;

use super::common::*;

/// Replaces per-run values by stable placeholders, numbered in order of first appearance.
struct Normalizer {
    tmp: String,
    seen: HashMap<String, String>,
    uuid: Regex,
    time: Regex,
    commit: Regex,
    worktree: Regex,
}

impl Normalizer {
    fn new(w: &World) -> Normalizer {
        Normalizer {
            tmp: w.tmp.path().canonicalize().unwrap().display().to_string(),
            seen: HashMap::new(),
            uuid: Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
                .unwrap(),
            time: Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)").unwrap(),
            commit: Regex::new(r"\b[0-9a-f]{40}\b").unwrap(),
            // A worktree's folder is the terminal's name and a random suffix.
            worktree: Regex::new(r#"(/worktrees/[^/"]+)-[0-9a-f]{8}"#).unwrap(),
        }
    }

    fn placeholder(&mut self, kind: &str, raw: &str) -> String {
        let n = self.seen.len() + 1;
        self.seen
            .entry(raw.to_string())
            .or_insert_with(|| format!("<{kind}:{n}>"))
            .clone()
    }

    fn text(&mut self, s: &str) -> String {
        let mut out = s.replace(&self.tmp, "<tmp>");
        for (re, kind) in [(self.uuid.clone(), "id"), (self.commit.clone(), "commit")] {
            let found: Vec<String> = re.find_iter(&out).map(|m| m.as_str().to_string()).collect();
            for f in found {
                let p = self.placeholder(kind, &f);
                out = out.replace(&f, &p);
            }
        }
        let out = self.worktree.replace_all(&out, "$1-<suffix>");
        self.time.replace_all(&out, "<time>").into_owned()
    }

    fn value(&mut self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.value(x)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| {
                        let x = match k.as_str() {
                            "pid" | "warden_pid" | "uptime_secs" | "elapsed_ms"
                            | "warm_budget_bytes"
                                if x.is_number() =>
                            {
                                Value::from("<n>")
                            }
                            _ => self.value(x),
                        };
                        (k.clone(), x)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn pretty(&mut self, v: &Value) -> String {
        serde_json::to_string_pretty(&self.value(v)).unwrap()
    }

    /// JSON lines (a streamed `send --json`), one normalized value a line.
    fn lines(&mut self, text: &str) -> String {
        text.lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
                serde_json::to_string(&self.value(&v)).unwrap()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

const RULE: &str = "Always run cargo fmt before committing.";

#[test]
fn documented_json_output_keeps_its_fields_and_values() {
    let w = World::new();
    // The Codex turns run as exec (with the inbox on, a new thread starts on an app-server,
    // whose answer streams as deltas).
    w.exec_only();
    let mut n = Normalizer::new(&w);
    let repo = repo(&w, "repo");
    let notes = w.project("notes");
    let created = w.json(&[
        "new",
        "api",
        "--dir",
        repo.to_str().unwrap(),
        "--provider",
        "claude",
        "--brief",
        "Backend of the billing service",
    ]);
    w.json(&[
        "new",
        "notes",
        "--dir",
        notes.to_str().unwrap(),
        "--provider",
        "codex",
    ]);
    let first = w.ok(&[
        "send",
        "api",
        &format!("{RULE} Add a /health endpoint. [[write:health.rs]] [[ctx:300]] [[window:1000]]"),
        "--json",
    ]);
    w.wait_for("the rule to be extracted", || {
        w.json(&["instructions", "api"]).as_array().unwrap().len() == 1
    });
    // Past the 45% line: the next prompt opens a fresh conversation.
    let big = w.ok(&[
        "send",
        "api",
        "Now the tests. [[ctx:460]] [[window:1000]]",
        "--json",
    ]);
    let rotated = w.ok(&[
        "send",
        "api",
        "Carry on. [[ctx:100]] [[window:1000]]",
        "--json",
    ]);
    let switched = w.ok(&["send", "api", "--provider", "codex", "Review it.", "--json"]);
    w.send("notes", "Write the release notes.");
    let title = w.json(&["rename", "api", "--conversation", "Health work"]);
    let fork = w.json(&["fork", "api", "api-fork"]);
    let rewind = w.json(&["rewind", "api", "2", "api-rewound"]);
    let archived = w.json(&["archive", "notes"]);
    let status = w.json(&["server", "status"]);

    let snap = [
        ("new", n.pretty(&created)),
        ("send_first", n.lines(&first)),
        ("send_past_the_line", n.lines(&big)),
        ("send_rotated", n.lines(&rotated)),
        ("send_switched", n.lines(&switched)),
        ("ls", n.pretty(&w.json(&["ls"]))),
        ("show", n.pretty(&w.show("api"))),
        ("log", n.pretty(&w.json(&["log", "api"]))),
        ("instructions", n.pretty(&w.json(&["instructions", "api"]))),
        ("diff", n.pretty(&w.json(&["diff", "api"]))),
        ("server_status", n.pretty(&status)),
        ("rename_conversation", n.pretty(&title)),
        ("fork", n.pretty(&fork)),
        ("rewind", n.pretty(&rewind)),
        ("archive", n.pretty(&archived)),
        ("ls_all", n.pretty(&w.json(&["ls", "--all"]))),
        (
            "prune_dry_run",
            n.pretty(&w.json(&["prune", "--older-than", "0", "--dry-run"])),
        ),
        ("log_fork", n.pretty(&w.json(&["log", "api-fork"]))),
    ];
    for (name, text) in snap {
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn export_and_import_json_keep_their_fields() {
    let w = World::new();
    let mut n = Normalizer::new(&w);
    let repo = repo(&w, "repo");
    w.ok(&["new", "api", "--dir", repo.to_str().unwrap()]);
    w.send("api", "Add a /health endpoint. [[write:health.rs]]");
    let mut export = w.json(&["export", "api"]);
    let w2 = World::new();
    let clone = w2.tmp.path().join("work").join("clone");
    git(
        &w2,
        w2.tmp.path(),
        &[
            "clone",
            "-q",
            repo.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    let import = w2.json(&[
        "import",
        export["path"].as_str().unwrap(),
        "--dir",
        clone.to_str().unwrap(),
    ]);
    // The size varies with what the CLI printed (durations): a number, not pinned.
    assert!(export["bytes"].as_u64().unwrap() > 0, "{export}");
    export["bytes"] = "<bytes>".into();
    let tmp2 = w2.tmp.path().canonicalize().unwrap().display().to_string();
    let stamp = Regex::new(r"-\d{8}T\d{6}Z").unwrap();
    let project = Regex::new(r"/projects/[^/]+/").unwrap();
    let mut text = |v: &Value| {
        let t = n.pretty(v).replace(&tmp2, "<tmp2>");
        let t = stamp.replace_all(&t, "-<stamp>");
        project.replace_all(&t, "/projects/<cwd>/").into_owned()
    };
    let snap = [("export", text(&export)), ("import", text(&import))];
    for (name, text) in snap {
        insta::assert_snapshot!(name, text);
    }
}

#[test]
fn doctor_json_keeps_its_fields_and_values() {
    let w = World::new();
    let mut n = Normalizer::new(&w);
    let repo = repo(&w, "repo");
    w.ok(&["new", "api", "--dir", repo.to_str().unwrap()]);
    w.send("api", "Add it. [[write:health.rs]]");
    w.ok(&["new", "old", "--dir", repo.to_str().unwrap()]);
    w.ok(&["rm", "old"]);
    let pid = w.json(&["server", "status"])["pid"].as_i64().unwrap() as i32;
    w.ok(&["server", "stop"]);
    // Until it exits, the server may still write the index (SQLite checkpoints at close).
    w.wait_for("the server to exit", || !process_runs(pid));
    let mut v = w.json(&["doctor"]);
    // Sizes and the number of entries differ from one file system to another.
    for d in v["disk"].as_array_mut().unwrap() {
        for k in ["data_bytes", "worktree_bytes"] {
            if d[k].is_number() {
                d[k] = Value::from("<n>");
            }
        }
    }
    let entries = Regex::new(r"^\d+ entries checked").unwrap();
    let text = n.pretty(&v).replace(SHIMS, "<shims>");
    let text = text
        .lines()
        .map(|l| match l.split_once("\"detail\": \"") {
            Some((head, tail)) => format!(
                "{head}\"detail\": \"{}",
                entries.replace(tail, "<n> entries checked")
            ),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("doctor", text);
}

#[test]
fn integrate_json_keeps_its_fields_and_values() {
    let w = World::new();
    let mut n = Normalizer::new(&w);
    let repo = repo(&w, "app");
    std::fs::write(
        w.data().join("config.toml"),
        format!(
            "[repos.{:?}]\ncheck = \"test ! -e broken.txt\"\n",
            repo.to_str().unwrap()
        ),
    )
    .unwrap();
    // clean, two adding one path differently, and one that breaks the check.
    for (name, file, text) in [
        ("clean", "clean.txt", "c\n"),
        ("left", "both.txt", "left\n"),
        ("right", "both.txt", "right\n"),
        ("breaks", "broken.txt", "b\n"),
    ] {
        w.ok(&["new", name, "--dir", repo.to_str().unwrap()]);
        let dir = w.show(name)["checkout"]["worktree"]
            .as_str()
            .unwrap()
            .to_string();
        std::fs::write(std::path::Path::new(&dir).join(file), text).unwrap();
        w.send(name, "work");
    }
    let out = w.run(&["integrate", "clean", "--json"]);
    assert_eq!(out.status.code(), Some(1), "not all clean: {}", text(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The lane's folder ends in a hash of the repository's (per-run) path.
    let lane = Regex::new(r"/lanes/app-[0-9a-f]{8}").unwrap();
    let text = lane
        .replace_all(&n.pretty(&v), "/lanes/app-<hash>")
        .into_owned();
    insta::assert_snapshot!("integrate", text);
}
