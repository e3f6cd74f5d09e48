//! Points where the tests hold the server or learn it got there, to act at a known moment (kill
//! a CLI, send again) rather than after a sleep. Never set in normal use: each reads its
//! variable and returns at once when it is unset. (`removal::crash_point` kills it instead.)

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The `PATH` of `VAR=NAME:PATH` when `NAME` is `name`.
fn armed(var: &str, name: &str) -> Option<String> {
    let at = std::env::var_os(var)?;
    let at = at.to_string_lossy();
    let (point, path) = at.split_once(':')?;
    (point == name).then(|| path.to_string())
}

/// How many times the server got to an armed point so far (this one included).
fn hit() -> u32 {
    static HITS: AtomicU32 = AtomicU32::new(0);
    HITS.fetch_add(1, Ordering::SeqCst) + 1
}

/// When `BATON_STALL_AT` names `name`: marks it reached (`PATH.reached.K`) and gives `PATH`.
fn reached(name: &str) -> Option<String> {
    let path = armed("BATON_STALL_AT", name)?;
    let _ = std::fs::write(format!("{path}.reached.{}", hit()), "");
    Some(path)
}

/// `BATON_STALL_AT=NAME:PATH`: creates `PATH.reached.K` (the K-th time), then waits until
/// `PATH` exists. For an async step (a turn).
pub(super) async fn stall_point(name: &str) {
    let Some(path) = reached(name) else {
        return;
    };
    while !Path::new(&path).exists() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `BATON_STALL_AT=NAME:PATH` at a step that runs on a plain thread (it may hold a lock):
/// creates `PATH.reached.K`, then blocks the thread until `PATH` exists.
pub(super) fn stall_point_blocking(name: &str) {
    let Some(path) = reached(name) else {
        return;
    };
    while !Path::new(&path).exists() {
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `BATON_STALL_AT=NAME:PATH`: creates `PATH.waiting.K` the K-th time the step `NAME` has to
/// wait (for a lock another holds), and goes on: a test learns a second caller is held there.
pub(super) fn waiting(name: &str) {
    static WAITING: AtomicU32 = AtomicU32::new(0);
    if let Some(path) = armed("BATON_STALL_AT", name) {
        let k = WAITING.fetch_add(1, Ordering::SeqCst) + 1;
        let _ = std::fs::write(format!("{path}.waiting.{k}"), "");
    }
}
