//! Tests of the local tools in a temporary checkout: files, commands, and their errors.

use super::*;
use pretty_assertions::assert_eq;

async fn call(fence: &Fence, name: &str, args: Value) -> Done {
    let c = Call::new(name, &args.to_string()).unwrap();
    run(&c, fence, Duration::from_secs(5), &Arc::default()).await
}

#[tokio::test]
async fn files_are_written_edited_read_listed_and_searched() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fence::new(tmp.path()).unwrap();
    let w = call(
        &f,
        "write_file",
        json!({"path": "src/lib.rs", "content": "fn a() {}\nfn b() {}\n"}),
    )
    .await;
    assert_eq!(w.output, "wrote 20 bytes to src/lib.rs");
    let e = call(
        &f,
        "edit_file",
        json!({"path": "src/lib.rs", "old_text": "fn b", "new_text": "pub fn b"}),
    )
    .await;
    assert_eq!(e.output, "edited src/lib.rs");
    let r = call(&f, "read_file", json!({"path": "src/lib.rs"})).await;
    assert_eq!(r.output, "fn a() {}\npub fn b() {}\n");
    let l = call(&f, "list_dir", json!({})).await;
    assert_eq!(l.output, "src/");
    let s = call(&f, "search", json!({"pattern": "pub fn \\w+"})).await;
    assert_eq!(s.output, "src/lib.rs:2: pub fn b() {}");
    let bad = call(&f, "write_file", json!({"path": "../x", "content": ""})).await;
    assert!(bad.output.starts_with("error: refused"), "{}", bad.output);
    let twice = call(
        &f,
        "edit_file",
        json!({"path": "src/lib.rs", "old_text": "fn", "new_text": "x"}),
    )
    .await;
    assert!(twice.output.contains("occurs 2 times"), "{}", twice.output);
}

/// The model reads these answers to correct itself: they keep their words.
#[tokio::test]
async fn failed_calls_answer_what_went_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fence::new(tmp.path()).unwrap();
    std::fs::write(tmp.path().join("a.txt"), "x").unwrap();
    let edit = json!({"path": "a.txt", "old_text": "y", "new_text": "z"});
    let answers = [
        call(&f, "read_file", json!({})).await.output,
        call(&f, "delete", json!({})).await.output,
        call(&f, "edit_file", edit).await.output,
        call(&f, "read_file", json!({"path": "a\u{0}"}))
            .await
            .output,
        call(&f, "search", json!({"pattern": "("}))
            .await
            .output
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
    ];
    assert_eq!(
        answers,
        [
            "error: read_file needs a string argument \"path\"",
            "error: there is no tool \"delete\" (tools: read_file, list_dir, search, write_file, edit_file, run_command)",
            "error: old_text does not occur in a.txt (read it again and copy it exactly)",
            "error: refused: the path contains a NUL byte",
            "error: bad pattern: regex parse error:",
        ]
    );
    let not_json = Call::new("read_file", "{").err().map(|e| e.to_string());
    assert_eq!(
        not_json.as_deref(),
        Some("the arguments of read_file are not JSON: EOF while parsing an object at line 1 column 1")
    );
}

#[tokio::test]
async fn commands_run_in_the_checkout_capped_and_timed() {
    let tmp = tempfile::tempdir().unwrap();
    let f = Fence::new(tmp.path()).unwrap();
    let pwd = call(
        &f,
        "run_command",
        json!({"command": "pwd -P; echo oops >&2; exit 3"}),
    )
    .await;
    assert_eq!(
        pwd.output,
        format!("exit 3\n{}\noops\n", f.root().display())
    );
    assert!(pwd
        .shown
        .unwrap()
        .starts_with("$ pwd -P; echo oops >&2; exit 3 → exit 3\n"));
    let big = call(
        &f,
        "run_command",
        json!({"command": "yes | head -c 100000"}),
    )
    .await;
    assert!(big.output.len() < OUTPUT_CAP + 200, "{}", big.output.len());
    assert!(big.output.contains("output cut: 100000 bytes"));
    let c = Call::new("run_command", r#"{"command": "sleep 30"}"#).unwrap();
    let started = std::time::Instant::now();
    let slow = run(&c, &f, Duration::from_millis(300), &Arc::default()).await;
    assert!(
        slow.output.starts_with("timed out after 0.3s"),
        "{}",
        slow.output
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}
