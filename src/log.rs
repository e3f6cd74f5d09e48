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

#[cfg(test)]
mod tests {
    #[test]
    fn a_log_line_formats_like_eprintln() {
        let e = "disk full";
        crate::log_line!("baton: {e} ({})", 1);
    }
}
