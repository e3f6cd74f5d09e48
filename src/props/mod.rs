//! Property tests of every parser of outside input (tests only): no input panics, every
//! malformed input gets a clear answer (an `Err`, `None`, a skipped line), and what baton
//! writes reads back equal. One file per parser; `gen.rs` holds the shared generators
//! (random JSON, structure-aware mutations, truncations). See ARCHITECTURE.md ("Testing").

mod claude_props;
mod codex_props;
mod config_props;
mod gen;
mod instructions_props;
mod journal_props;
mod protocol_props;
mod sessions_props;

/// Cases per property: enough to find the shallow panics, small enough that the whole tree
/// runs in a few seconds on a shared CI core.
const CASES: u32 = 256;

fn config() -> proptest::test_runner::Config {
    config_with(CASES)
}

fn config_with(cases: u32) -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}
