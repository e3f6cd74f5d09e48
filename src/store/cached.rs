//! Statements prepared once per connection. rusqlite's `execute` and `query_row` prepare their
//! SQL on every call, which was about a fifth of the server's own time on a turn (measured with
//! `perf` over a run of sends); these go through the connection's statement cache instead
//! ([`CACHE`] statements: every one the store runs, so a turn never re-prepares one). The
//! connection also asks for a stable query plan (`open::connect`): otherwise the bundled
//! SQLite's STAT4 re-prepares a statement whenever a parameter is bound.

use rusqlite::{Connection, Params, Result, Row};

/// Statements the cache keeps (the store has about 80).
pub const CACHE: usize = 128;

/// `execute` and `query_row` on cached statements.
pub trait Cached {
    fn exec<P: Params>(&self, sql: &str, params: P) -> Result<usize>;
    fn row<T, P: Params, F: FnOnce(&Row<'_>) -> Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> Result<T>;
}

impl Cached for Connection {
    fn exec<P: Params>(&self, sql: &str, params: P) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn row<T, P: Params, F: FnOnce(&Row<'_>) -> Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}
