//! A Codex rollout file moved to another machine (`baton import`): the thread a fork's rollout
//! builds on, and its developer message re-pointed at the new checkout.
//!
//! Codex stores the developer message (baton's system text, `developer_instructions`) in the
//! rollout when the thread is created and ignores `developer_instructions` on resume, so an
//! imported thread would go on naming the old checkout. Two ways were open: an app-server
//! `thread/inject_items` adding a developer message for the new checkout (as forks do, see
//! `codex::app`), or rewriting the stored message in the copy that is placed. baton rewrites:
//! the thread keeps its id (a resume, not a fork), the model sees one developer message that
//! is right rather than two that disagree, nothing runs the CLI at import time (it may not be
//! installed yet), and the archive keeps the exported bytes verbatim. Only the `input_text`
//! blocks of `developer` messages equal to the old text change; every other line is kept byte
//! for byte.
//!
//! A fork's rollout copies nothing of the original: its first line (`session_meta`) names the
//! thread it was cut from in `history_base.thread_id`, whose rollout must be there too.

use serde_json::Value;

/// The thread whose rollout this rollout's history starts with (a fork's original), if any.
pub fn history_base(rollout: &[u8]) -> Option<String> {
    let first = rollout.split(|b| *b == b'\n').next()?;
    let row: Value = serde_json::from_slice(first).ok()?;
    if row["type"] != "session_meta" {
        return None;
    }
    row["payload"]["history_base"]["thread_id"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

/// `rollout` with every developer message block that is exactly `old` replaced by `new` (the
/// JSON string replaced in place on those lines only).
pub fn rewrite_developer(rollout: &[u8], old: &str, new: &str) -> Vec<u8> {
    crate::providers::replace_in_lines(rollout, old, new, |v| holds_developer_text(v, old))
}

fn holds_developer_text(row: &Value, text: &str) -> bool {
    let p = &row["payload"];
    row["type"] == "response_item"
        && p["type"] == "message"
        && p["role"] == "developer"
        && p["content"].as_array().is_some_and(|blocks| {
            blocks
                .iter()
                .any(|b| b["type"] == "input_text" && b["text"].as_str() == Some(text))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn dev(text: &str) -> String {
        serde_json::json!({"timestamp":"t","ordinal":2,"type":"response_item","payload":{
            "type":"message","role":"developer","content":[
                {"type":"input_text","text":text},{"type":"input_text","text":"<skills>"}]}})
        .to_string()
    }

    #[test]
    fn only_developer_blocks_equal_to_the_old_text_change() {
        let user = r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"work in /w/a"}]}}"#;
        let cases = [
            // (rollout, want)
            (
                format!("{}\n{user}\n", dev("work in /w/a")),
                format!("{}\n{user}\n", dev("work in /x/a")),
            ),
            // another developer text is left alone, a torn last line too
            (
                format!("{}\n{{\"type\":", dev("other")),
                format!("{}\n{{\"type\":", dev("other")),
            ),
            (String::new(), String::new()),
        ];
        for (rollout, want) in cases {
            let got = rewrite_developer(rollout.as_bytes(), "work in /w/a", "work in /x/a");
            assert_eq!(String::from_utf8(got).unwrap(), want);
        }
    }

    #[test]
    fn a_forks_rollout_names_the_thread_it_builds_on() {
        let fork = r#"{"ordinal":4,"type":"session_meta","payload":{"id":"f","history_base":{"thread_id":"t1","end_ordinal_exclusive":4}}}
{"type":"event_msg"}
"#;
        let own = r#"{"ordinal":0,"type":"session_meta","payload":{"id":"t1"}}"#;
        assert_eq!(history_base(fork.as_bytes()), Some("t1".to_string()));
        assert_eq!(history_base(own.as_bytes()), None);
        assert_eq!(history_base(b"garbage"), None);
    }
}
