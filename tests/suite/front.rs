//! The two binaries (ARCHITECTURE.md, "Two binaries"): `baton` runs `send` itself and hands
//! every other command line to `baton-full`, next to it, by exec; a server is always the full
//! binary, whichever started it.

use std::io::Read;
use std::path::Path;

use super::common::*;

/// The file name of the program process `pid` runs.
fn exe_name(pid: u32) -> String {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
    exe.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn a_send_runs_in_the_front_and_the_server_it_starts_is_the_full_binary() {
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    w.ok(&["server", "stop"]);
    let mut send = w.spawn(&["send", "t", "[[hold:go]] held"]);
    let mut first = [0u8; 64];
    assert!(send.stdout.as_mut().unwrap().read(&mut first).unwrap() > 0);
    assert_eq!(exe_name(send.id()), "baton", "the send's own process");
    let server = w.json(&["server", "status"])["pid"].as_u64().unwrap() as u32;
    assert_eq!(
        exe_name(server),
        "baton-full",
        "the server the send started"
    );
    // Any other client is handed over: a `watch` of the turn runs as the full binary.
    let mut watch = w.spawn(&["watch", "t"]);
    let mut seen = [0u8; 64];
    assert!(watch.stdout.as_mut().unwrap().read(&mut seen).unwrap() > 0);
    assert_eq!(exe_name(watch.id()), "baton-full", "the watch's process");
    std::fs::write(dir.join("go"), "").unwrap();
    let out = send.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let watched = watch.wait_with_output().unwrap();
    assert!(watched.status.success(), "{}", text(&watched));
}

#[test]
fn other_commands_are_the_full_binarys_with_its_messages_and_exit_codes() {
    let w = World::new();
    // clap's refusal of the whole command line, in the words it has run directly.
    let typo = w.run(&["frobnicate"]);
    assert_eq!(typo.status.code(), Some(2), "{}", text(&typo));
    let err = String::from_utf8_lossy(&typo.stderr);
    assert!(
        err.contains("unrecognized subcommand 'frobnicate'"),
        "{err}"
    );
    assert!(
        err.contains("Usage: baton "),
        "the program's name stays baton: {err}"
    );
    // A send its own parser refuses is parsed again by the full command line.
    let help = w.run(&["send", "--help"]);
    assert!(help.status.success(), "{}", text(&help));
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("Usage: baton send"),
        "{}",
        text(&help)
    );
    let bad = w.run(&["send", "t", "hi", "--no-such-flag"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
}

#[test]
fn a_front_without_the_full_binary_beside_it_says_how_to_install_both() {
    let w = World::new();
    let alone = w.tmp.path().join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    let front = alone.join("baton");
    std::fs::copy(BATON, &front).unwrap();
    for args in [&["ls"][..], &["send", "t", "hi"][..]] {
        let mut cmd = w.cmd(args);
        cmd.env("BATON_HOME", w.tmp.path().join("nowhere"));
        let out = std::process::Command::new(&front)
            .args(args)
            .env_clear()
            .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&alone.join("baton-full").display().to_string()),
            "{args:?} names where it looked: {err}"
        );
        assert!(err.contains("cargo install --path ."), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    }
    assert!(
        !w.tmp.path().join("nowhere").join("server.sock").exists(),
        "no server started"
    );
}

/// The bytes a binary loads (its sections kept in memory), from its ELF section headers.
fn loaded_bytes(path: &Path) -> u64 {
    let elf = std::fs::read(path).unwrap();
    assert_eq!(&elf[..4], b"\x7fELF", "{}", path.display());
    assert_eq!(elf[4], 2, "a 64-bit ELF");
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    let (shoff, shentsize, shnum) = (u64_at(0x28) as usize, u16_at(0x3a), u16_at(0x3c));
    (0..shnum)
        .map(|i| shoff + i * shentsize)
        .filter(|&h| u64_at(h + 8) & 0x2 != 0 && u32_at(h + 4) != 8) // SHF_ALLOC, not NOBITS
        .map(|h| u64_at(h + 32))
        .sum()
}

#[test]
fn the_front_stays_a_fraction_of_the_full_binary() {
    // What a send saves is loading less: a front that came to depend on the server, the store
    // or the multiplexer would load nearly all of it again.
    let full = Path::new(BATON).with_file_name("baton-full");
    let (front, whole) = (loaded_bytes(Path::new(BATON)), loaded_bytes(&full));
    assert!(
        front * 3 < whole,
        "the front loads {front} bytes, the full binary {whole}"
    );
}

#[test]
fn a_send_started_with_its_stdout_and_stderr_closed_runs_its_turn_to_the_end() {
    // The front starts without Rust's runtime start, which opens /dev/null on a closed
    // descriptor 0, 1 or 2: the front does that itself, else the descriptors it opens next
    // (Ctrl-c's socket pair, the server's socket) would take their places.
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
