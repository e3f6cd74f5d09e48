//! The config file (`config::Config::parse`): any text is read or refused with one line that
//! names the line at fault; the documented example (`docs/configuration.md`) with one value replaced, cut anywhere, or
//! nested deep never panics.

use proptest::prelude::*;

use crate::config::{Config, ConfigError};

/// The example of `docs/configuration.md` (its first `toml` block).
fn documented_config() -> String {
    let doc = include_str!("../../docs/configuration.md");
    let start = doc.find("```toml\n").unwrap() + "```toml\n".len();
    doc[start..start + doc[start..].find("```").unwrap()].to_owned()
}

/// A clear refusal: one line, naming a line the text has.
fn clear(text: &str, r: Result<Config, ConfigError>) -> Result<(), TestCaseError> {
    if let Err(e) = r {
        let message = e.to_string();
        prop_assert!(
            !message.trim().is_empty() && !message.contains('\n'),
            "{message:?}"
        );
        if let ConfigError::Invalid { line, .. } = e {
            prop_assert!(
                line >= 1 && line <= text.split('\n').count(),
                "line {line} of {text:?}"
            );
        }
    }
    Ok(())
}

/// TOML values of every type, some out of range.
fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"\"".to_owned()),
        "\\PC{0,10}".prop_map(|s| format!("{s:?}")),
        any::<i64>().prop_map(|n| n.to_string()),
        Just("18446744073709551616".to_owned()),
        Just("-1".to_owned()),
        Just("nan".to_owned()),
        Just("1.5e308".to_owned()),
        Just("true".to_owned()),
        Just("1979-05-27T07:32:00Z".to_owned()),
        Just("[1, \"a\", [2]]".to_owned()),
        Just("{ a = 1, b = { c = \"é\" } }".to_owned()),
        Just("\"unterminated é".to_owned()),
        Just("'''".to_owned()),
    ]
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn any_text_is_read_or_refused_clearly(text in "\\PC{0,120}") {
        clear(&text, Config::parse(&text))?;
    }

    #[test]
    fn toml_like_text_is_read_or_refused_clearly(
        lines in prop::collection::vec(
            prop_oneof![
                "\\[[a-z.]{1,20}\\]".prop_map(|s| s),
                ("[a-z_]{1,12}", toml_value()).prop_map(|(k, v)| format!("{k} = {v}")),
                "\\PC{0,12}".prop_map(|s| s),
            ],
            0..8,
        )
    ) {
        let text = lines.join("\n");
        clear(&text, Config::parse(&text))?;
    }

    #[test]
    fn the_documented_example_with_one_value_replaced_is_read_or_refused_clearly(
        at in any::<prop::sample::Index>(),
        with in toml_value(),
    ) {
        let example = documented_config();
        let mut lines: Vec<String> = example.lines().map(str::to_owned).collect();
        let assignments: Vec<usize> = (0..lines.len()).filter(|i| lines[*i].contains(" = ")).collect();
        let i = assignments[at.index(assignments.len())];
        let key = lines[i].split(" = ").next().unwrap_or_default().to_owned();
        lines[i] = format!("{key} = {with}");
        let text = lines.join("\n");
        clear(&text, Config::parse(&text))?;
    }
}

#[test]
fn the_documented_example_cut_at_every_character_is_read_or_refused_clearly() {
    let example = documented_config();
    for cut in (0..=example.len()).filter(|c| example.is_char_boundary(*c)) {
        let text = &example[..cut];
        clear(text, Config::parse(text)).unwrap();
    }
}

#[test]
fn deep_nesting_is_refused_not_a_crash() {
    for depth in [64, 1_000, 100_000] {
        for text in [
            format!("a = {}", "[".repeat(depth)),
            format!("a = {}1{}", "[".repeat(depth), "]".repeat(depth)),
            format!("a = {}", "{ b = ".repeat(depth)),
            format!("[{}]", "a.".repeat(depth)),
        ] {
            clear(&text, Config::parse(&text)).unwrap();
        }
    }
}
