//! Table tests of the warden's lines and of what it interrupts at the end of its input.

use std::collections::BTreeSet;

use super::*;

fn set(v: &[i32]) -> BTreeSet<i32> {
    v.iter().copied().collect()
}

#[test]
fn lines_add_and_remove_groups_and_nothing_else_changes_them() {
    // (lines, groups left)
    let cases: [(&[&str], &[i32]); 9] = [
        (&["+120"], &[120]),
        (&["+120", "+121", "-120"], &[121]),
        (&["+120", "+120"], &[120]),
        (&["-120"], &[]),
        // Never a group that killpg would widen: 0 is the caller's own, 1 is init's, and a
        // negative pid means every process.
        (&["+0", "+1", "+-5", "+-1"], &[]),
        (&["120", "*120", "", "+", "+12a", "+ 12"], &[]),
        (&["+2147483647", "+2147483648"], &[2147483647]),
        (&["  +300  "], &[300]),
        (&["+7\r"], &[7]),
    ];
    for (lines, left) in cases {
        let mut groups = BTreeSet::new();
        for l in lines {
            apply(l, &mut groups);
        }
        assert_eq!(groups, set(left), "{lines:?}");
    }
}

#[test]
fn what_is_listed_at_the_end_of_input_is_what_gets_interrupted() {
    let input = b"+100\n+200\n-100\n+300\ngarbage\n+400";
    assert_eq!(watch_until_eof(&input[..]), set(&[200, 300, 400]));
    // Bytes that are not UTF-8 end the reading as EOF would: what was listed is kept.
    let input = b"+100\n\xff\xfe\n+200\n";
    assert_eq!(watch_until_eof(&input[..]), set(&[100]));
}
