//! Bad input gets a one-line error naming the fix, exit code 2, and changes nothing.

use pretty_assertions::assert_eq;

use super::common::*;

fn refused(w: &World, args: &[&str], needle: &str) {
    let before = w.json(&["ls"]);
    let out = w.run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    assert!(
        err.contains(needle),
        "{args:?}: expected {needle:?} in {err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert_eq!(w.json(&["ls"]), before, "{args:?} changed something");
}

#[test]
fn unknown_terminal() {
    let w = World::new();
    for args in [
        vec!["send", "nope", "hello"],
        vec!["show", "nope"],
        vec!["log", "nope"],
        vec!["interrupt", "nope"],
        vec!["instructions", "nope"],
    ] {
        refused(&w, &args, "no terminal named \"nope\"");
    }
}

#[test]
fn invalid_and_duplicate_names() {
    let w = World::new();
    let dir = w.project("p");
    let d = dir.to_str().unwrap();
    for (name, why) in [
        ("a/b", "slash"),
        ("..", "`..`"),
        ("   ", "empty"),
        ("a\u{7}b", "control"),
        ("x\ny", "control"),
        // Invisible or direction-changing (issue 14): `ls` would show another name.
        ("evil\u{202E}gnp", "U+202E"),
        ("a\u{200B}b", "U+200B"),
        ("\u{2067}rtl", "U+2067"),
        ("bom\u{FEFF}", "U+FEFF"),
        ("line\u{2028}sep", "U+2028"),
        // Marks with no character to sit on: `ls` listed a blank (issue 39).
        ("\u{301}", "combining mark"),
        ("\u{301}\u{301}\u{301}", "combining mark"),
        ("\u{301}api", "combining mark"),
    ] {
        refused(&w, &["new", name, "--dir", d], why);
    }
    assert_eq!(w.json(&["ls"]).as_array().map(Vec::len), Some(0));
    w.ok(&["new", "api", "--dir", d]);
    refused(&w, &["new", "api", "--dir", d], "already exists");
}

#[test]
fn renames_forks_and_titles_with_invisible_characters_are_refused() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "hello there");
    refused(&w, &["rename", "t", "t\u{202E}x"], "U+202E");
    refused(&w, &["fork", "t", "f\u{2066}"], "U+2066");
    refused(
        &w,
        &["rename", "t", "--conversation", "title\u{200F}"],
        "U+200F",
    );
}

#[test]
fn unknown_provider_and_missing_dir() {
    let w = World::new();
    let dir = w.project("p");
    let d = dir.to_str().unwrap();
    refused(
        &w,
        &["new", "a", "--dir", d, "--provider", "gemini"],
        "unknown provider",
    );
    refused(&w, &["new", "a", "--dir", "/does/not/exist"], "--dir");
    w.ok(&["new", "a", "--dir", d]);
    refused(
        &w,
        &["send", "a", "--provider", "gemini", "hello"],
        "unknown provider",
    );
}

#[test]
fn empty_huge_and_non_utf8_prompts() {
    let w = World::new();
    w.new_terminal("t", "claude");
    refused(&w, &["send", "t", ""], "empty");
    refused(&w, &["send", "t", "  \n "], "empty");
    refused(&w, &["send", "t"], "no prompt");
    for (stdin, needle) in [
        (b"".to_vec(), "empty"),
        (vec![b'h', 0xff, b'i'], "UTF-8"),
        (vec![b'x'; 1024 * 1024 + 1], "limit"),
    ] {
        let out = w.run_stdin(&["send", "t", "-"], &stdin);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{}",
            text(&out)
        );
    }
    // In argv: named, on one line (clap alone says only that some argument is not UTF-8).
    let before = w.json(&["ls"]);
    for (args, needle) in [
        (
            &["send", "t"][..],
            "argument 3 (\"h\u{fffd}i\") is not valid UTF-8",
        ),
        (
            &["new"][..],
            "argument 2 (\"h\u{fffd}i\") is not valid UTF-8",
        ),
    ] {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"h\xffi");
        let out = w.cmd(args).arg(bad).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(err.contains(needle), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
    assert_eq!(w.json(&["ls"]), before);
    assert!(w.invocations().is_empty(), "no CLI may run");
    assert_eq!(w.show("t")["turns"], 0);
}

#[test]
fn a_prompt_with_a_nul_or_of_megabytes_is_refused_saying_what_and_why() {
    let w = World::new();
    w.new_terminal("t", "claude");
    let before = w.json(&["ls"]);
    let nul = w.run_stdin(&["send", "t", "-"], b"before\0after");
    assert_eq!(nul.status.code(), Some(2), "{}", text(&nul));
    assert_eq!(
        String::from_utf8_lossy(&nul.stderr),
        "baton: the prompt contains a NUL character (U+0000) at byte 6: remove it \
         (`tr -d '\\000'` on a piped prompt)\n"
    );
    // 20 MiB on stdin: read no further than the limit, and said to be over it (it was
    // "1048577 bytes", what had been read).
    let mut send = w
        .cmd(&["send", "t", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = send.stdin.take().unwrap();
    // The write ends in a broken pipe once baton stops reading: that is the point.
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&vec![b'x'; 20 * 1024 * 1024]);
    });
    let huge = send.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(huge.status.code(), Some(2), "{}", text(&huge));
    assert_eq!(
        String::from_utf8_lossy(&huge.stderr),
        "baton: the prompt on stdin is more than the 1 MiB limit (1048576 bytes): send a \
         shorter one, or write it to a file and point the agent at the file\n"
    );
    assert_eq!(w.json(&["ls"]), before);
    assert!(w.invocations().is_empty(), "no CLI may run");
}

#[test]
fn a_relative_baton_home_is_refused_before_anything_is_made() {
    // It was accepted: each directory the user stood in got a data directory of its own.
    let w = World::new();
    let cwd = w.project("here");
    for args in [&["ls"][..], &["server", "start"], &["send", "t", "hi"]] {
        let out = w
            .cmd(args)
            .env("BATON_HOME", "data")
            .current_dir(&cwd)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "baton: BATON_HOME is \"data\", a relative path: give it as an absolute one (e.g. \
             BATON_HOME=\"$PWD/data\"), or every directory would have a data directory of its own\n",
        );
    }
    assert_eq!(std::fs::read_dir(&cwd).unwrap().count(), 0, "nothing made");
}

#[test]
fn missing_cli_binary_names_the_install_command() {
    let w = World::without_clis();
    let dir = w.project("p");
    w.ok(&["new", "t", "--dir", dir.to_str().unwrap()]);
    refused(
        &w,
        &["send", "t", "hello"],
        "npm install -g @anthropic-ai/claude-code",
    );
    refused(
        &w,
        &["send", "t", "--provider", "codex", "hello"],
        "npm install -g @openai/codex",
    );
    assert_eq!(w.show("t")["turns"], 0);
    assert_eq!(w.show("t")["provider"], "claude");
}

/// Not bad input: the prompt was accepted and a turn ran, so it is recorded failed (exit 1,
/// `unusable_cli` in the summary); exit 2 is kept for what changes nothing.
#[test]
fn a_cli_that_prints_garbage_or_dies_without_a_result_is_a_failed_turn() {
    for provider in ["claude", "codex"] {
        let w = World::new();
        w.new_terminal("t", provider);
        for marker in ["[[garbage]]", "[[die]]"] {
            let out = w.run(&["send", "t", &format!("do it {marker}"), "--json"]);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{provider} {marker}: {}",
                text(&out)
            );
            let stdout = String::from_utf8_lossy(&out.stdout);
            let last: serde_json::Value =
                serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
            assert_eq!(last["data"]["status"], "failed", "{stdout}");
            assert_eq!(last["data"]["unusable_cli"], true, "{stdout}");
        }
        let log = w.json(&["log", "t"]);
        for t in log["turns"].as_array().unwrap() {
            assert_eq!(t["status"], "failed");
            assert!(t["error"].as_str().is_some_and(|e| !e.is_empty()));
        }
        // The terminal still works afterwards.
        w.send("t", "hello again");
    }
}

#[test]
fn an_api_failure_fails_the_turn_with_exit_1() {
    for provider in ["claude", "codex"] {
        let w = World::new();
        w.new_terminal("t", provider);
        let out = w.run(&["send", "t", "please [[fail:api]]"]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let show = w.show("t");
        assert_eq!(show["state"], "failed");
        assert_eq!(show["last_turn"]["status"], "failed");
    }
}

#[test]
fn a_directory_with_an_escape_in_its_name_is_listed_written_out() {
    // A path may hold any byte but NUL: baton works in it, and `ls` and `show` write out the
    // escape (and a newline) instead of handing it to the user's terminal.
    let w = World::new();
    let dir = w.project("odd\u{1b}[2J\nname");
    let d = dir.to_str().unwrap();
    w.ok(&["new", "t", "--dir", d]);
    assert_eq!(w.show("t")["dir"], d, "--json keeps the real path");
    for args in [&["ls"][..], &["show", "t"]] {
        let out = w.ok(args);
        assert!(!out.contains('\u{1b}'), "{args:?}: {out:?}");
        assert!(
            out.contains("odd<U+001B>[2J<U+000A>name"),
            "{args:?}: {out}"
        );
    }
}
