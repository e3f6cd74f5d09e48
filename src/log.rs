//! The server's log lines ([`log_line!`]): its stderr, which is `server.log`, written without
//! ever panicking.

/// `eprintln!` that never panics: `eprintln!` does when stderr cannot be written, and the
/// server's stderr is `server.log`, so a full disk turned every logged index failure into a
/// panic of the task that hit it (each request after it closed without an answer). A log line
/// is never worth a crash.
#[macro_export]
macro_rules! log_line {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Whether `BATON_PHASES` is set: [`phase`] lines are written.
static PHASES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// With `BATON_PHASES` set, a `phase <unix µs> <name>` line on stderr (the server's
/// `server.log`, a client's own stderr): where a send's time goes, step by step, for
/// `benches/figures.rs`. Costs one flag check otherwise.
pub fn phase(name: &str) {
    if !*PHASES.get_or_init(|| std::env::var_os("BATON_PHASES").is_some()) {
        return;
    }
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    log_line!("phase {micros} {name}");
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_log_line_formats_like_eprintln() {
        let e = "disk full";
        crate::log_line!("baton: {e} ({})", 1);
    }
}
