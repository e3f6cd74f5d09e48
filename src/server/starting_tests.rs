use std::collections::VecDeque;
use std::sync::Arc;

use super::*;

#[test]
fn the_cap_is_the_configured_count_else_one_per_core_and_zero_is_none() {
    let rows: [(Option<usize>, usize, Option<usize>); 5] = [
        (None, 2, Some(2)),
        (None, 0, Some(1)),
        (Some(0), 8, None),
        (Some(3), 8, Some(3)),
        (Some(1), 1, Some(1)),
    ];
    for (configured, cores, want) in rows {
        assert_eq!(cap(configured, cores), want, "{configured:?} {cores}");
    }
}

#[test]
fn ahead_counts_the_terminals_that_asked_before() {
    let waiting: VecDeque<(u64, String)> = [(4, "a"), (7, "b"), (9, "c")]
        .map(|(n, t)| (n, t.to_string()))
        .into();
    let rows = [("a", Some(0)), ("b", Some(1)), ("c", Some(2)), ("d", None)];
    for (tid, want) in rows {
        assert_eq!(ahead_of(&waiting, tid), want, "{tid}");
    }
}

#[tokio::test]
async fn places_are_given_in_the_order_asked_and_a_held_one_counts() {
    let starts = Arc::new(Starts::new(Some(1)));
    assert!(starts.try_hold("p"));
    assert!(!starts.try_hold("q"), "no place is free");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for tid in ["a", "b", "c"] {
        let (mine, tx) = (starts.clone(), tx.clone());
        tokio::spawn(async move {
            let place = mine.place(tid, || {}).await;
            tx.send((tid, place)).ok();
        });
        // Each is in line before the next asks.
        while starts.ahead(tid).is_none() {
            tokio::task::yield_now().await;
        }
    }
    assert_eq!(
        ["a", "b", "c"].map(|t| starts.ahead(t)),
        [Some(0), Some(1), Some(2)]
    );
    starts.release("p");
    let mut order = vec![];
    for _ in 0..3 {
        let (tid, place) = rx.recv().await.expect("a place");
        order.push(tid);
        assert_eq!(starts.ahead(tid), None);
        drop(place);
    }
    assert_eq!(order, ["a", "b", "c"]);
}

#[tokio::test]
async fn no_cap_never_waits() {
    let starts = Starts::new(None);
    let _a = starts.place("a", || {}).await;
    let _b = starts.place("b", || {}).await;
    assert!(starts.try_hold("c"));
    assert_eq!(starts.ahead("b"), None);
}
