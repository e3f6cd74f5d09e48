//! One binary, `baton`: a send, the server it starts and every other client are that binary,
//! a refused command line is told in clap's words, and Rust's own start keeps a send whose
//! stdout and stderr were closed working.

use std::io::Read;

use super::common::*;

/// The file name of the program process `pid` runs.
fn exe_name(pid: u32) -> String {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
    exe.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn a_send_the_server_it_starts_and_a_watch_are_all_the_baton_binary() {
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    w.ok(&["server", "stop"]);
    let mut send = w.spawn(&["send", "t", "[[hold:go]] held"]);
    let mut first = [0u8; 64];
    assert!(send.stdout.as_mut().unwrap().read(&mut first).unwrap() > 0);
    assert_eq!(exe_name(send.id()), "baton", "the send's own process");
    let server = w.json(&["server", "status"])["pid"].as_u64().unwrap() as u32;
    assert_eq!(exe_name(server), "baton", "the server the send started");
    let mut watch = w.spawn(&["watch", "t"]);
    let mut seen = [0u8; 64];
    assert!(watch.stdout.as_mut().unwrap().read(&mut seen).unwrap() > 0);
    assert_eq!(exe_name(watch.id()), "baton", "the watch's process");
    std::fs::write(dir.join("go"), "").unwrap();
    let out = send.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let watched = watch.wait_with_output().unwrap();
    assert!(watched.status.success(), "{}", text(&watched));
}

#[test]
fn a_refused_command_line_is_told_in_clap_s_words_in_one_line_with_exit_2() {
    let w = World::new();
    // One line (issue 39: clap's 3 to 7 with a usage block), naming the subcommand's help.
    for (args, said) in [
        (&["frobnicate"][..], "baton: unrecognized subcommand 'frobnicate' (try `baton --help`)"),
        (&["sned", "t", "hi"][..], "baton: unrecognized subcommand 'sned' (some similar subcommands exist: 'new', 'send'; try `baton --help`)"),
        (&["rename", "t"][..], "baton: the following required arguments were not provided: <NEW_NAME> (try `baton rename --help`)"),
        (&["instructions", "t", "add"][..], "baton: the following required arguments were not provided: <TEXT> (try `baton instructions add --help`)"),
        (&["new", "a", "--dir"][..], "baton: a value is required for '--dir <DIR>' but none was supplied (try `baton new --help`)"),
    ] {
        let out = w.run(args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert_eq!(String::from_utf8_lossy(&out.stderr), format!("{said}\n"));
        assert!(out.stdout.is_empty(), "{}", text(&out));
    }
    // A send its own fast parser refuses is parsed again by the whole command line.
    let help = w.run(&["send", "--help"]);
    assert!(help.status.success(), "{}", text(&help));
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("Usage: baton send"),
        "{}",
        text(&help)
    );
    let bad = w.run(&["send", "t", "hi", "--no-such-flag"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(
        err,
        "baton: unexpected argument '--no-such-flag' found (to pass '--no-such-flag' as a value, \
         use '-- --no-such-flag'; try `baton send --help`)\n"
    );
}

#[test]
fn a_send_started_with_its_stdout_and_stderr_closed_runs_its_turn_to_the_end() {
    // Rust's start opens /dev/null on a closed descriptor 0, 1 or 2, else the descriptors
    // the send opens next (Ctrl-c's socket pair, the server's socket) would take their places.
    use std::os::unix::process::CommandExt;
    let w = World::new();
    w.new_terminal("t", "claude");
    let mut cmd = w.cmd(&["send", "t", "with nothing to print on"]);
    // SAFETY: close(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        cmd.pre_exec(|| {
            nix::libc::close(1);
            nix::libc::close(2);
            Ok(())
        });
    }
    let status = cmd.status().unwrap();
    assert!(status.success(), "{status}");
    let turn = &w.json(&["log", "t"])["turns"][0];
    assert_eq!(turn["status"], "completed", "{turn}");
}
