//! The shims behave like the captured CLIs (checked field by field by tests/shims_check.py).

#[test]
fn shims_match_the_captured_clis() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shims_check.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .output()
        .expect("python3 is needed for the shims");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
