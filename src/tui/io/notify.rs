//! What the UI writes to the user's terminal when a turn ends out of view: the bell, or a
//! desktop notification (OSC 9 or OSC 777), as `[ui] notify` says.

use crate::config::Notify;

/// The bytes announcing `body` (with `title` where the sequence has one); empty for `none`.
/// Control characters are dropped from the texts so they cannot end the sequence early, and
/// `;` from OSC 777's title, where it separates the fields.
pub fn bytes(kind: Notify, title: &str, body: &str) -> Vec<u8> {
    let clean = |s: &str| s.chars().filter(|c| !c.is_control()).collect::<String>();
    match kind {
        Notify::Bell => b"\x07".to_vec(),
        Notify::Osc9 => format!("\x1b]9;{}\x07", clean(body)).into_bytes(),
        Notify::Osc777 => format!(
            "\x1b]777;notify;{};{}\x07",
            clean(title).replace(';', ","),
            clean(body)
        )
        .into_bytes(),
        Notify::Off => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences() {
        let table: [(Notify, &str, &str, &[u8]); 5] = [
            (Notify::Bell, "baton", "api: done", b"\x07"),
            (Notify::Osc9, "baton", "api: done", b"\x1b]9;api: done\x07"),
            (
                Notify::Osc777,
                "baton",
                "api: done",
                b"\x1b]777;notify;baton;api: done\x07",
            ),
            (
                Notify::Osc777,
                "a;b\x1b",
                "x\x07y\nz",
                b"\x1b]777;notify;a,b;xyz\x07",
            ),
            (Notify::Off, "baton", "api: done", b""),
        ];
        for (kind, title, body, want) in table {
            assert_eq!(bytes(kind, title, body), want, "{kind:?}");
        }
    }
}
