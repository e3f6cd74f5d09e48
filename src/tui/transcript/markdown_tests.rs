//! Table tests of the Markdown renderer: the text each row shows, and the styles that carry
//! what the markers said.
use super::*;
use pretty_assertions::assert_eq;

fn rows(text: &str, width: usize) -> Rows {
    let mut out = Rows::default();
    render(text, width, &mut out);
    out
}

fn texts(out: &Rows) -> Vec<String> {
    out.lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// The style of the first span holding `needle`.
fn style_of(out: &Rows, needle: &str) -> Style {
    out.lines
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.contains(needle))
        .map(|s| s.style)
        .unwrap_or_else(|| panic!("{needle} not drawn: {:?}", texts(out)))
}

#[test]
fn blocks_draw_without_their_markers() {
    let rows_of = |t: &str| texts(&rows(t, 40));
    let table: Vec<(&str, Vec<&str>)> = vec![
        ("# Title", vec!["Title"]),
        ("### Deep ###", vec!["Deep"]),
        ("#hashtag", vec!["#hashtag"]),
        ("- one\n- two", vec!["• one", "• two"]),
        ("* star\n  - inner", vec!["• star", "  • inner"]),
        ("1. first\n2) second", vec!["1. first", "2) second"]),
        ("> quoted", vec!["│ quoted"]),
        ("---", vec!["────────────────────────────────────────"]),
        (
            "```rust\nfn main() {}\n```\nafter",
            vec!["  fn main() {}", "after"],
        ),
        ("~~~\nopen fence runs on", vec!["  open fence runs on"]),
        ("plain **bold** and `code`", vec!["plain bold and code"]),
        (
            "a [link](https://x.dev) here",
            vec!["a link (https://x.dev) here"],
        ),
        ("snake_case_name stays", vec!["snake_case_name stays"]),
        ("2 * 3 * 4", vec!["2 * 3 * 4"]),
        ("**unclosed bold", vec!["**unclosed bold"]),
        ("", vec![""]),
    ];
    for (text, want) in table {
        assert_eq!(rows_of(text), want, "{text:?}");
    }
}

#[test]
fn styles_carry_emphasis_headings_and_code() {
    let out = rows("# Head\nsome **strong** and *soft* and `tick`", 60);
    assert!(style_of(&out, "Head").add_modifier.contains(Modifier::BOLD));
    assert!(style_of(&out, "Head")
        .add_modifier
        .contains(Modifier::UNDERLINED));
    assert!(style_of(&out, "strong")
        .add_modifier
        .contains(Modifier::BOLD));
    assert!(style_of(&out, "soft")
        .add_modifier
        .contains(Modifier::ITALIC));
    assert_eq!(style_of(&out, "tick").fg, Some(Color::Cyan));
    assert!(!style_of(&out, "some").add_modifier.contains(Modifier::BOLD));
}

#[test]
fn code_is_highlighted() {
    let out = rows("```\nlet x = \"hi\"; // note\n```", 60);
    assert_eq!(style_of(&out, "let").fg, Some(Color::Magenta));
    assert_eq!(style_of(&out, "\"hi\"").fg, Some(Color::Green));
    assert_eq!(style_of(&out, "// note").fg, Some(Color::DarkGray));
    assert_eq!(style_of(&out, "x").fg, Some(Color::White));
}

#[test]
fn prose_wraps_at_words_with_hanging_list_indent() {
    let out = rows("- alpha beta gamma delta", 12);
    assert_eq!(texts(&out), vec!["• alpha beta", "  gamma", "  delta"]);
    assert_eq!(out.soft, vec![false, true, true]);
    let code = rows("```\nabcdefghij\n```", 6);
    assert_eq!(texts(&code), vec!["  abcd", "  efgh", "  ij"]);
}
