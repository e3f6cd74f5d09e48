//! Text a CLI or a model produced reaches the user's terminal as text (issue 39, fault 5):
//! `send`, `watch` and `log` write out its escape sequences as `<U+XXXX>`, keep its lines, and
//! their `--json` lines carry it JSON-escaped, never raw.

use std::io::Read;

use serde_json::Value;

use super::common::*;

/// An answer that, printed raw, would write the clipboard (OSC 52), set the window's title,
/// clear the screen, and start a CSI the C1 way.
const REPLY: &str =
    "clip \x1b]52;c;aGk=\x07 title \x1b]0;pwned\x07 clear \x1b[2J c1 \u{9b}31m\nsecond line";
/// What the terminal is shown of it instead.
const SHOWN: &str = "clip <U+001B>]52;c;aGk=<U+0007> title <U+001B>]0;pwned<U+0007> clear \
     <U+001B>[2J c1 <U+009B>31m\nsecond line";

/// The prompt: that answer, after a tool call whose command is coloured.
fn prompt(extra: &str) -> String {
    format!("[[tool:Bash:\x1b[31mred\x1b[0m]] [[reply:{REPLY}]]{extra}")
}

/// Fails if `bytes` hold a control character other than a newline or a tab.
fn assert_plain(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let raw = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\t'));
    assert_eq!(raw, None, "{what} holds a raw control character: {text:?}");
}

fn ran(what: &str, out: &std::process::Output) -> String {
    assert!(out.status.success(), "{what}: {}", text(out));
    assert_plain(&format!("{what}'s stdout"), &out.stdout);
    assert_plain(&format!("{what}'s stderr"), &out.stderr);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn send_and_log_write_out_the_escape_sequences_a_model_answered_with() {
    for provider in ["claude", "codex"] {
        let w = World::new();
        w.new_terminal("t", provider);
        let sent = ran("send", &w.run(&["send", "t", &prompt("")]));
        assert!(sent.contains(SHOWN), "{provider}: {sent}");
        assert!(
            sent.contains("<U+001B>[31mred<U+001B>[0m"),
            "{provider}: {sent}"
        );

        let log = ran("log", &w.run(&["log", "t"]));
        assert!(log.contains("  second line\n"), "{provider}: {log}");
        assert!(
            log.contains("clip <U+001B>]52;c;aGk=<U+0007>"),
            "{provider}: {log}"
        );
        assert!(log.contains("<U+001B>[31mred"), "{provider}: {log}");

        // `--json` keeps the text as it is, escaped as JSON.
        let json = ran("log --json", &w.run(&["log", "t", "--json"]));
        let log: Value = serde_json::from_str(&json).unwrap();
        let answer = log["turns"][0]["answer"].as_str().unwrap_or_default();
        assert!(answer.contains(REPLY), "{provider}: {json}");
        let lines = ran("send --json", &w.run(&["send", "t", &prompt(""), "--json"]));
        let streamed = lines
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap());
        assert!(streamed.count() > 2, "{provider}: {lines}");
    }
}

#[test]
fn watch_writes_out_the_escape_sequences_of_the_turn_it_follows() {
    let w = World::new();
    let dir = w.new_terminal("t", "claude");
    let mut watch = w.watch();
    w.ok(&["send", "t", &prompt(" [[hold:go]]"), "--detach"]);
    watch.until(|v| v["event"]["event"]["event"]["kind"] == "delta");
    let mut watching = w.spawn(&["watch", "t"]);
    // What streamed before the watch began comes first: it is attached once that shows.
    let mut first = [0u8; 4];
    let n = watching.stdout.as_mut().unwrap().read(&mut first).unwrap();
    assert!(n > 0);
    std::fs::write(dir.join("go"), "").unwrap();
    let out = watching.wait_with_output().unwrap();
    let mut all = first[..n].to_vec();
    all.extend_from_slice(&out.stdout);
    let watched = ran("watch", &std::process::Output { stdout: all, ..out });
    assert!(watched.contains(SHOWN), "{watched}");
}
