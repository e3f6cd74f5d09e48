//! Tests of finding binaries, describing exits, signalling and reading file tails.

use super::*;

fn write_exec(path: &Path, body: &str) {
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn find_bin_searches_path_entries_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(a.join("tool"), "not executable").unwrap();
    write_exec(&b.join("tool"), "#!/bin/sh\n");
    write_exec(&a.join("other"), "#!/bin/sh\n");
    let path = std::env::join_paths([&a, &b]).unwrap();
    assert_eq!(find_bin("tool", Some(&path)), Some(b.join("tool")));
    assert_eq!(find_bin("other", Some(&path)), Some(a.join("other")));
    assert_eq!(find_bin("missing", Some(&path)), None);
    assert_eq!(find_bin("", Some(&path)), None);
    // A directory of that name is not a binary.
    std::fs::create_dir_all(a.join("adir")).unwrap();
    assert_eq!(find_bin("adir", Some(&path)), None);
}

#[test]
fn find_bin_uses_a_path_with_a_slash_as_is() {
    let dir = tempfile::tempdir().unwrap();
    let tool = dir.path().join("tool");
    write_exec(&tool, "#!/bin/sh\n");
    let empty = OsString::new();
    assert_eq!(find_bin(&tool, Some(&empty)), Some(tool.clone()));
    assert_eq!(find_bin(dir.path().join("nope"), Some(&empty)), None);
    std::fs::write(dir.path().join("plain"), "x").unwrap();
    assert_eq!(find_bin(dir.path().join("plain"), None), None);
}

#[test]
fn exit_info_describes_what_happened() {
    let info = ExitInfo {
        code: Some(1),
        signal: None,
        stderr_tail: "WARNING: x\nError: thread/resume failed: no rollout\n\nStack backtrace:\n   0: <unknown>\n".into(),
        interrupted: false,
    };
    assert_eq!(
        info.describe_with_stderr(),
        "rc 1: Error: thread/resume failed: no rollout"
    );
    assert!(!info.was_interrupted());
    let killed = ExitInfo {
        code: None,
        signal: Some(9),
        ..ExitInfo::default()
    };
    assert_eq!(
        killed.describe_with_stderr(),
        "signal 9 (SIGKILL) (stderr was empty)"
    );
    let plain = ExitInfo {
        code: Some(3),
        stderr_tail: "boom\nlast words\n".into(),
        ..ExitInfo::default()
    };
    assert_eq!(plain.last_stderr_line(), Some("last words"));
    assert!(ExitInfo {
        signal: Some(2),
        ..ExitInfo::default()
    }
    .was_interrupted());
    assert!(ExitInfo {
        code: Some(130),
        ..ExitInfo::default()
    }
    .was_interrupted());
    assert!(ExitInfo {
        code: Some(1),
        interrupted: true,
        ..ExitInfo::default()
    }
    .was_interrupted());
}

#[test]
fn signalling_refuses_our_own_group() {
    assert!(interrupt(0).is_err());
    assert!(terminate(-5).is_err());
    assert!(interrupt(1).is_err());
}

#[test]
fn read_file_tail_starts_at_a_line_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "first line\nsecond\nthird\n").unwrap();
    assert_eq!(
        read_file_tail(&file, 1000).unwrap(),
        ("first line\nsecond\nthird\n".into(), true)
    );
    assert_eq!(
        read_file_tail(&file, 10).unwrap(),
        ("third\n".into(), false)
    );
}

#[test]
fn read_file_tail_reads_bytes_that_are_not_utf_8_as_replacement_characters() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, b"ok\n\xff\xfe tail\n").unwrap();
    assert_eq!(
        read_file_tail(&file, 1000).unwrap(),
        ("ok\n\u{fffd}\u{fffd} tail\n".into(), true)
    );
}

#[test]
fn start_time_tells_a_running_process_from_one_that_is_gone() {
    let me = std::process::id() as i32;
    let (start, running) = start_time(me).expect("this process has a start time");
    assert!(running);
    assert_eq!(
        start_time(me),
        Some((start, true)),
        "the same on a second look"
    );
    // A zombie (exited, not yet reaped) does not run.
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id() as i32;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while start_time(pid).is_some_and(|(_, running)| running) {
        assert!(std::time::Instant::now() < deadline, "`true` never exited");
        std::thread::yield_now();
    }
    assert!(matches!(start_time(pid), Some((_, false))));
    child.wait().unwrap();
    assert_eq!(start_time(pid), None, "reaped: no such process");
}
