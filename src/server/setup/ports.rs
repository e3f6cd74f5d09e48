//! A terminal's block of ports: `count` consecutive ports in [`RANGE`], none in another live
//! terminal's block, each free (bindable on the loopback) when chosen.

use std::ops::RangeInclusive;

/// Where blocks are chosen.
pub const RANGE: RangeInclusive<u16> = 20000..=29999;

/// The first port of a block of `count` in `range` overlapping none of `taken` (first, count)
/// and each `free`; `None` when the range holds no such block. Pure but for `free`.
pub fn choose(
    taken: &[(u16, u16)],
    count: u16,
    range: RangeInclusive<u16>,
    free: impl Fn(u16) -> bool,
) -> Option<u16> {
    let (lo, hi) = (u32::from(*range.start()), u32::from(*range.end()));
    let count = u32::from(count);
    let mut first = lo;
    while count > 0 && first + count - 1 <= hi {
        let end = first + count; // exclusive
        let clash = taken.iter().find_map(|(f, n)| {
            let (f, e) = (u32::from(*f), u32::from(*f) + u32::from(*n));
            (f < end && first < e).then_some(e)
        });
        if let Some(after) = clash {
            first = after;
            continue;
        }
        match (first..end).find(|p| u16::try_from(*p).map_or(true, |p| !free(p))) {
            Some(busy) => first = busy + 1,
            None => return u16::try_from(first).ok(),
        }
    }
    None
}

/// Whether nothing listens on `port` on the loopback now.
pub fn bindable(port: u16) -> bool {
    std::net::TcpListener::bind(("127.0.0.1", port)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn blocks_skip_taken_and_busy_ports_and_end_with_the_range() {
        let all = |_| true;
        type Row<'a> = (&'a [(u16, u16)], u16, Option<u16>);
        let rows: Vec<Row<'_>> = vec![
            (&[], 3, Some(100)),
            (&[(100, 3)], 3, Some(103)),
            (&[(101, 1)], 3, Some(102)),
            (&[(100, 3), (104, 4)], 2, None),
            (&[(100, 3), (104, 4)], 1, Some(103)),
            (&[(100, 8)], 3, None),
            (&[], 9, None),
            (&[], 0, None),
        ];
        for (taken, count, want) in rows {
            assert_eq!(
                choose(taken, count, 100..=107, all),
                want,
                "{taken:?} {count}"
            );
        }
        assert_eq!(choose(&[], 2, 100..=107, |p| p != 101), Some(102));
        assert_eq!(choose(&[], 2, 100..=107, |p| p % 2 == 0), None);
    }
}
