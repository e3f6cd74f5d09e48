//! The backoff between tries to reach a host: doubling, bounded.

use std::time::Duration;

use super::*;

#[test]
fn a_host_that_does_not_answer_is_asked_again_later_and_later_up_to_a_bound() {
    let table = [
        (0, 250),
        (1, 500),
        (2, 1000),
        (3, 2000),
        (4, 4000),
        (5, 5000),
        (40, 5000),
    ];
    for (failures, ms) in table {
        assert_eq!(
            retry_after(failures),
            Duration::from_millis(ms),
            "{failures}"
        );
    }
}
