//! One integration-test binary: the real `baton` against the shims, end to end.

mod suite;
