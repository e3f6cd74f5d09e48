//! The system text never rides in argv (every local user reads `/proc/PID/cmdline`): Claude
//! reads it from a 0600 file in the terminal's 0700 `runs/`, a new Codex thread from a 0600
//! profile in `$CODEX_HOME`; both are gone when the run ends, and a crash's are swept.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;

const BRIEF: &str = "Billing backend: the ledger-reconciliation secret plan";
const RULE: &str = "Always mention the codename Bluefinch in commit messages.";

/// A terminal on `provider` whose standing text holds the brief and a standing instruction.
fn terminal(w: &World, provider: &str) -> String {
    let dir = w.project("t");
    let dir = dir.to_str().unwrap();
    w.ok(&[
        "new",
        "t",
        "--dir",
        dir,
        "--provider",
        provider,
        "--brief",
        BRIEF,
    ]);
    w.ok(&["instructions", "t", "add", RULE]);
    w.show("t")["id"].as_str().unwrap().to_string()
}

/// A world whose terminal `t` on `provider` runs a turn that hangs: the world, the terminal's
/// id, the client waiting for the turn and the CLI's shim invocation.
fn hanging_turn(provider: &str) -> (World, String, std::process::Child, Value) {
    let w = World::new();
    // Exec's profile file (with the inbox on, a new thread starts on an app-server, which gets
    // the text on stdin: `a_codex_app_servers_new_thread_gets_the_text_on_stdin_only`).
    w.exec_only();
    let tid = terminal(&w, provider);
    let client = w.spawn(&["send", "t", "work on it [[hang]]"]);
    w.wait_for("the turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    let inv = w.last_invocation();
    (w, tid, client, inv)
}

/// Where the run of `inv` reads its system text: Claude's file, Codex's profile.
fn text_file(w: &World, inv: &Value) -> PathBuf {
    match inv["cli"].as_str() {
        Some("claude") => PathBuf::from(flag(&inv["argv"], "--append-system-prompt-file").unwrap()),
        _ => {
            let name = flag(&inv["argv"], "-p").expect("a profile");
            w.codex_home().join(format!("{name}.config.toml"))
        }
    }
}

/// The system text the CLI of `inv` got (the brief and the rule in it), none of its lines in
/// the running CLI's argv; and that argv.
fn text_not_in_argv(inv: &Value, who: &str) -> (String, String) {
    let pid = inv["pid"].as_i64().unwrap();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    let system = system_text(inv).expect("the CLI got the system text");
    assert!(system.contains(BRIEF) && system.contains(RULE), "{system}");
    for line in system.lines().filter(|l| l.len() >= 12) {
        assert!(!cmdline.contains(line), "{who}: {line:?} in {cmdline}");
    }
    (system, cmdline)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn no_part_of_the_standing_text_is_in_the_clis_argv_while_a_turn_runs() {
    for provider in ["claude", "codex"] {
        let (w, tid, client, inv) = hanging_turn(provider);
        let (system, cmdline) = text_not_in_argv(&inv, provider);
        for word in ["ledger-reconciliation", "Bluefinch"] {
            assert!(!cmdline.contains(word), "{provider}: {word} in {cmdline}");
        }
        // While it runs the text is in a file only the owner reads, named after the run.
        let file = text_file(&w, &inv);
        let name = file.file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.starts_with(&format!("baton-{tid}-")), "{name}");
        assert_eq!(mode(&file), 0o600, "{provider}");
        match provider {
            "claude" => {
                assert_eq!(
                    file.parent().unwrap(),
                    w.data().join("terminals").join(&tid).join("runs")
                );
                assert_eq!(mode(file.parent().unwrap()), 0o700);
                assert_eq!(
                    std::fs::read_to_string(&file).unwrap(),
                    system,
                    "byte for byte"
                );
            }
            _ => assert!(
                !w.codex_home().join("config.toml").exists(),
                "the user's config is untouched"
            ),
        }
        w.ok(&["interrupt", "t"]);
        let _ = client.wait_with_output();
        w.wait_for("the turn to end", || w.show("t")["state"] == "idle");
        if provider == "claude" {
            // Its CLI took the interrupt and waits warm for the next prompt: the file lives
            // as long as that CLI, and goes when it is stopped.
            assert!(file.exists(), "kept while its CLI runs");
            w.ok(&["server", "stop"]);
        }
        assert!(!file.exists(), "{provider}: removed when the run ended");
    }
}

#[test]
fn a_crashed_servers_text_files_are_swept_at_the_next_start_and_run() {
    for provider in ["claude", "codex"] {
        let (w, tid, client, inv) = hanging_turn(provider);
        let file = text_file(&w, &inv);
        kill_server(&w);
        let _ = client.wait_with_output();
        assert!(file.exists(), "{provider}: the crash left it");
        // Any command starts a server, which stops the CLI and closes the turn: the file goes.
        w.wait_for("the turn to be closed", || w.show("t")["state"] == "idle");
        assert!(!file.exists(), "{provider}: swept at start");
        // Leftovers of this terminal's runs (and only those) go at its next run too.
        let runs = w.data().join("terminals").join(&tid).join("runs");
        std::fs::create_dir_all(&runs).unwrap();
        std::fs::create_dir_all(w.codex_home()).unwrap();
        let stale = [
            runs.join(format!("baton-{tid}-old.txt")),
            w.codex_home().join(format!("baton-{tid}-old.config.toml")),
        ];
        let other = w.codex_home().join("baton-other-old.config.toml");
        for f in stale.iter().chain([&other]) {
            std::fs::write(f, "old").unwrap();
        }
        w.send("t", "next");
        for f in &stale {
            assert!(!f.exists(), "{provider}: {} swept", f.display());
        }
        assert!(other.exists(), "another terminal's profile stays");
    }
}

#[test]
fn the_same_bytes_reach_claude_on_every_turn_and_resume_replays_codexs_copy() {
    let w = World::new();
    terminal(&w, "claude");
    w.send("t", "one");
    w.send("t", "two");
    let texts: Vec<Option<String>> = w.invocations().iter().map(system_text).collect();
    assert!(texts[0].as_deref().is_some_and(|t| t.contains(BRIEF)));
    assert_eq!(texts[0], texts[1]);
    assert!(w
        .invocations()
        .iter()
        .all(|i| flag(&i["argv"], "--append-system-prompt").is_none()));
    let w = World::new();
    terminal(&w, "codex");
    w.send("t", "one");
    w.send("t", "two");
    let invs = w.invocations();
    assert!(system_text(&invs[0]).is_some_and(|t| t.contains(BRIEF)));
    assert_eq!(
        system_text(&invs[1]),
        None,
        "a resume replays the rollout's copy"
    );
    assert!(invs
        .iter()
        .all(|i| codex_config(&i["argv"], "developer_instructions").is_none()));
}

#[test]
fn a_codex_profile_of_the_users_own_fails_the_turn_saying_what_to_do() {
    let w = World::new();
    std::fs::write(
        w.data().join("config.toml"),
        "[providers.codex]\nargs = [\"-p\", \"work\"]\n",
    )
    .unwrap();
    w.new_terminal("t", "codex");
    let out = w.run(&["send", "t", "hello"]);
    assert!(!out.status.success());
    let said = text(&out);
    assert!(
        said.contains("-p work") && said.contains("config.toml"),
        "{said}"
    );
    assert!(w.invocations().is_empty(), "the CLI never ran");
}

#[test]
fn a_codex_app_servers_new_thread_gets_the_text_on_stdin_only() {
    let w = World::new();
    terminal(&w, "codex");
    let client = w.spawn(&["send", "t", "work on it [[hang]]"]);
    w.wait_for("the turn to run", || {
        w.show("t")["state"] == "running" && !w.invocations().is_empty()
    });
    let inv = w.last_invocation();
    assert_eq!(inv["argv"][0], "app-server", "{inv}");
    text_not_in_argv(&inv, "codex app-server");
    let profiles: Vec<_> = std::fs::read_dir(w.codex_home())
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        !profiles
            .iter()
            .any(|n| n.to_string_lossy().ends_with(".config.toml")),
        "no profile file: {profiles:?}"
    );
    w.ok(&["interrupt", "t"]);
    let _ = client.wait_with_output();
    w.wait_for("the turn to end", || w.show("t")["state"] == "idle");
}
