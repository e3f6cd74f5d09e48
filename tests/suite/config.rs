//! The config file: where the CLIs are, and the flags every run gets.

use pretty_assertions::assert_eq;

use super::common::*;

#[test]
fn binaries_models_and_extra_args_come_from_the_config_file() {
    // No claude or codex on PATH: only the config says where they are.
    let w = World::without_clis();
    std::fs::write(
        w.data().join("config.toml"),
        format!(
            r#"
[providers.claude]
bin = "{SHIMS}/claude"
model = "claude-sonnet-4-5"
args = ["--max-turns", "40"]
permission_mode = "plan"

[providers.codex]
bin = "{SHIMS}/codex"
sandbox = "read-only"
args = ["-c", "model_reasoning_effort=\"low\""]
"#
        ),
    )
    .unwrap();
    // Exec's command line (with the inbox on, Codex turns run on an app-server).
    w.exec_only();
    w.new_terminal("t", "claude");
    w.send("t", "hello there");
    let argv = w.last_invocation()["argv"].clone();
    assert_eq!(flag(&argv, "--max-turns"), Some("40"));
    assert_eq!(flag(&argv, "--model"), Some("claude-sonnet-4-5"));
    assert_eq!(flag(&argv, "--permission-mode"), Some("plan"));
    assert_eq!(w.show("t")["context"]["window"], 200_000);
    let out = w.run(&["send", "t", "--provider", "codex", "and now codex"]);
    assert!(out.status.success(), "{}", text(&out));
    let argv = w.last_invocation()["argv"].clone();
    assert_eq!(flag(&argv, "--sandbox"), Some("read-only"));
    assert_eq!(
        codex_config(&argv, "model_reasoning_effort"),
        Some("\"low\"")
    );
}

#[test]
fn default_flags_confine_edits_for_headless_runs() {
    let w = World::new();
    w.exec_only();
    let dir = w.new_terminal("t", "claude");
    w.send("t", "hello there");
    let argv = w.last_invocation()["argv"].clone();
    assert_eq!(flag(&argv, "--permission-mode"), Some("acceptEdits"));
    let shots = argv
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .find(|a| a.starts_with("--add-dir="))
        .unwrap()
        .to_string();
    assert!(shots.ends_with("/screenshots"), "{shots}");
    assert!(
        !shots.contains(dir.to_str().unwrap()),
        "the checkout is the cwd, not an added dir"
    );
    // Codex: the checkout, the screenshots and a private tmp are writable; /tmp and $TMPDIR not.
    let out = w.run(&["send", "t", "--provider", "codex", "and codex"]);
    assert!(out.status.success(), "{}", text(&out));
    let argv = w.last_invocation()["argv"].clone();
    assert_eq!(flag(&argv, "--sandbox"), Some("workspace-write"));
    assert_eq!(
        codex_config(&argv, "sandbox_workspace_write.exclude_slash_tmp"),
        Some("true")
    );
    assert_eq!(
        codex_config(&argv, "sandbox_workspace_write.exclude_tmpdir_env_var"),
        Some("true")
    );
    let dirs: Vec<&str> = argv
        .as_array()
        .unwrap()
        .windows(2)
        .filter(|w| w[0] == "--add-dir")
        .map(|w| w[1].as_str().unwrap())
        .collect();
    assert_eq!(dirs.len(), 2, "{argv}");
    assert!(
        dirs[0].ends_with("/screenshots") && dirs[1].ends_with("/tmp"),
        "{dirs:?}"
    );
}

#[test]
fn an_invalid_config_file_is_reported_with_its_path() {
    let w = World::new();
    std::fs::write(
        w.data().join("config.toml"),
        "[providers.claude]\nbinn = 1\n",
    )
    .unwrap();
    let out = w.run(&["ls"]);
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("config.toml") && err.contains("binn"), "{err}");
}

#[test]
fn a_codex_sandbox_that_cannot_start_is_said_plainly_and_never_bypassed() {
    let mut w = World::new();
    w.env.push(("BATON_SHIM_SANDBOX_BROKEN".into(), "1".into()));
    w.cold();
    w.exec_only();
    w.new_terminal("t", "codex");
    for _ in 0..2 {
        let out = w.run(&["send", "t", "run the tests"]);
        assert!(out.status.success(), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("sandbox cannot start") && err.contains("bwrap"),
            "{err}"
        );
        assert_eq!(
            flag(&w.last_invocation()["argv"], "--sandbox"),
            Some("workspace-write")
        );
    }
    let probes = w.all_invocations().len() - w.invocations().len();
    assert_eq!(probes, 1, "probed once per binary");
    let notes = &w.json(&["log", "t"])["turns"][0]["notes"];
    assert!(
        notes.to_string().contains("sandbox cannot start"),
        "{notes}"
    );
}

#[test]
fn a_working_codex_sandbox_says_nothing() {
    let w = World::new();
    w.new_terminal("t", "codex");
    let (_, err) = w.send("t", "run the tests");
    assert!(!err.contains("sandbox"), "{err}");
}
