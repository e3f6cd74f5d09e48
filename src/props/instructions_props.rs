//! The extractor (`instructions::extract_lines` with the local extractor, and any extractor's
//! candidates through the gate): every kept line is a verbatim substring of the prompt, at
//! most `MAX_LINES_PER_PROMPT`, none from a skipped prompt; the model's answer parser too.

use proptest::prelude::*;

use super::gen;
use crate::instructions::{self, Extractor, LocalExtractor, MAX_LINES_PER_PROMPT};

/// An extractor that proposes whatever it is told to, as a model might.
struct Proposes(Vec<String>);

impl Extractor for Proposes {
    fn extract(&self, _prompt: &str) -> Vec<String> {
        self.0.clone()
    }
}

/// Prompts that read like a user's: rules, tasks, code, quotes, lists, greetings.
fn prompt() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        prop::sample::select(vec![
            "Always run cargo fmt before committing.",
            "Never use unwrap() in library code.",
            "fix the failing test in src/main.rs",
            "Please keep answers short.",
            "> never push to main",
            "```",
            "    let x = y.unwrap();",
            "- Use tabs, not spaces.",
            "hi",
            "thanks!",
            "Do not touch the migrations folder, ever.",
            "error[E0308]: mismatched types",
            "我们总是使用中文回答。",
        ])
        .prop_map(str::to_owned),
        gen::text(),
    ];
    prop::collection::vec(line, 0..14).prop_map(|lines| lines.join("\n"))
}

fn check(prompt: &str, kept: &[String]) -> Result<(), TestCaseError> {
    prop_assert!(kept.len() <= MAX_LINES_PER_PROMPT, "{} lines", kept.len());
    for line in kept {
        prop_assert!(!line.trim().is_empty());
        prop_assert!(
            prompt.contains(line.as_str()),
            "{line:?} is not in the prompt"
        );
    }
    if instructions::is_skipped(prompt) {
        prop_assert!(kept.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(super::config())]

    #[test]
    fn the_local_extractor_keeps_only_verbatim_lines(p in prompt()) {
        check(&p, &instructions::extract_lines(&LocalExtractor::new(), &p))?;
    }

    #[test]
    fn any_candidates_pass_the_gate_only_verbatim(
        p in prompt(),
        picks in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..16),
        made_up in prop::collection::vec(gen::text(), 0..4),
    ) {
        // Cuts of the prompt (on character boundaries) and text it never held.
        let bounds: Vec<usize> = (0..=p.len()).filter(|i| p.is_char_boundary(*i)).collect();
        let mut candidates: Vec<String> = picks
            .iter()
            .map(|(a, b)| {
                let (a, b) = (bounds[a.index(bounds.len())], bounds[b.index(bounds.len())]);
                p[a.min(b)..a.max(b)].to_owned()
            })
            .collect();
        candidates.extend(made_up);
        check(&p, &instructions::extract_lines(&Proposes(candidates), &p))?;
    }

    #[test]
    fn greetings_and_short_prompts_keep_nothing(
        p in prop_oneof![
            "\\PC{0,11}",
            prop::sample::select(vec!["hi", "Thanks!", "good morning", "你好", "hello there"]).prop_map(str::to_owned),
        ],
    ) {
        let everything = Proposes(vec![p.clone(), p.trim().to_owned()]);
        if instructions::is_skipped(&p) {
            prop_assert!(instructions::extract_lines(&everything, &p).is_empty());
        }
        prop_assert!(p.trim().chars().count() >= instructions::MIN_PROMPT_CHARS || instructions::is_skipped(&p));
    }

    #[test]
    fn a_models_answer_of_any_text_is_read(answer in "\\PC{0,200}") {
        let _ = instructions::model::parse_answer(&answer);
    }
}
