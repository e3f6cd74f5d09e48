//! Table tests for the instruction pipeline: skipping, the verbatim gate, whole-sentence cuts,
//! quoted material, merging, the local extractor on typical prompts, and the model's half.

use super::model::{self, Answered};
use super::*;
use pretty_assertions::assert_eq;

/// An extractor that proposes fixed candidates, whatever the prompt.
struct Fixed(Vec<&'static str>);

impl Extractor for Fixed {
    fn extract(&self, _prompt: &str) -> Vec<String> {
        self.0.iter().map(|s| s.to_string()).collect()
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn local(prompt: &str) -> Vec<String> {
    extract_lines(&LocalExtractor::new(), prompt)
}

#[test]
fn patterns_compile() {
    if let Err(e) = super::cues::all_compile() {
        panic!("{e}");
    }
}

#[test]
fn greetings_and_short_prompts_are_skipped() {
    let table: &[(&str, bool)] = &[
        ("hi", true),
        ("Thanks!", true),
        ("good morning", true),
        ("GOOD MORNING!", true),
        ("Good Afternoon :)", true),
        ("Hello there!", true),
        ("thank you so much!!", true),
        ("Hey Claude, good evening 👋", true),
        ("Cheers, thanks again for the help!", true),
        ("merci beaucoup", true),
        ("你好", true),
        ("谢谢！", true),
        ("早上好，辛苦了", true),
        ("", true),
        ("   \n\t  ", true),
        ("fix it pls", true),
        // 11 characters, then 12: the limit counts characters, not bytes.
        ("always tabs", true),
        ("always tabs!", false),
        ("以后都用中文来回答我。", true),
        ("以后请都用中文来回答我。", false),
        ("   always tabs   ", true),
        ("Thanks! From now on, always use tabs.", false),
        ("Hi! Could you add an is_admin check?", false),
        ("good morning, never use unwrap", false),
    ];
    for (prompt, skipped) in table {
        assert_eq!(is_skipped(prompt), *skipped, "{prompt:?}");
    }
}

#[test]
fn a_twelve_character_chinese_rule_is_kept() {
    let prompt = "以后请都用中文来回答我。";
    assert_eq!(prompt.chars().count(), MIN_PROMPT_CHARS);
    assert_eq!(local(prompt), strings(&[prompt]));
    assert_eq!(local("以后都用中文来回答我。"), Vec::<String>::new());
}

#[test]
fn the_gate_keeps_only_verbatim_substrings() {
    let prompt = "Fix the bug.\nNever use unwrap in library code. Tests go next to the code.";
    let candidates = strings(&[
        "Never use unwrap in library code.",
        "  Tests go next to the code.  ",
        "Do not use unwrap in library code.",
        "never use unwrap in library code.",
        "Fix the bug. Never use unwrap in library code.",
        "永远不要在库代码中使用unwrap。",
        "Tests go next to the code",
        "",
        "   ",
        "Never use unwrap in library code.",
    ]);
    assert_eq!(
        verbatim_gate(prompt, candidates),
        strings(&[
            "Never use unwrap in library code.",
            "Tests go next to the code.",
            "Tests go next to the code",
        ])
    );
}

#[test]
fn only_whole_lines_and_whole_sentences_of_own_words_pass() {
    let prompt = "Fix the flaky test. From now on, always run clippy.\n\
                  - Tests go next to the code\n\
                  never use tabs in Makefiles\n\
                  > Always squash merge.\n\n\
                  ```\n// must never block\n```";
    let ex = Fixed(vec![
        "From now on, always run clippy.",
        "From now on, always run clippy",
        "Tests go next to the code",
        "- Tests go next to the code",
        "use tabs in Makefiles",
        "never use tabs",
        "always run clippy.",
        "Always squash merge.",
        "// must never block",
        "Fix the flaky test. From now on, always run clippy.",
    ]);
    assert_eq!(
        extract_lines(&ex, prompt),
        strings(&[
            "From now on, always run clippy.",
            "From now on, always run clippy",
            "Tests go next to the code",
            "- Tests go next to the code",
            "Fix the flaky test. From now on, always run clippy.",
        ])
    );
}

#[test]
fn extraction_skips_greetings_and_caps_at_ten_lines() {
    assert_eq!(
        extract_lines(&Fixed(vec!["good morning"]), "good morning"),
        Vec::<String>::new()
    );
    let prompt: String = (1..=12)
        .map(|i| format!("- Never do thing {i}.\n"))
        .collect();
    let ex = Fixed(vec![]);
    assert_eq!(extract_lines(&ex, &prompt), Vec::<String>::new());
    let got = local(&format!("House rules:\n{prompt}"));
    let want: Vec<String> = (1..=10).map(|i| format!("Never do thing {i}.")).collect();
    assert_eq!(got, want);
}

#[test]
fn merge_dedupes_appends_and_keeps_the_forty_newest() {
    let existing = strings(&["a", "b", "c"]);
    let got = merge(&existing, &strings(&["b", "  c  ", "d", "d", "", "e "]));
    assert_eq!(
        got,
        Merge {
            added: strings(&["d", "e"]),
            dropped: vec![],
            result: strings(&["a", "b", "c", "d", "e"]),
        }
    );

    let full: Vec<String> = (0..MAX_LINES_PER_TERMINAL)
        .map(|i| format!("rule {i}"))
        .collect();
    let got = merge(&full, &strings(&["rule 5", "new 1", "new 2"]));
    let mut result = full[2..].to_vec();
    result.extend(strings(&["new 1", "new 2"]));
    assert_eq!(
        got,
        Merge {
            added: strings(&["new 1", "new 2"]),
            dropped: strings(&["rule 0", "rule 1"]),
            result,
        }
    );

    let many: Vec<String> = (0..50).map(|i| format!("n{i}")).collect();
    let got = merge(&strings(&["old"]), &many);
    assert_eq!(got.result, many[10..].to_vec());
    assert_eq!(got.added, many[10..].to_vec());
    assert_eq!(got.dropped, strings(&["old"]));
    assert_eq!(merge(&existing, &[]).result, existing);
}

#[test]
fn quoted_material_never_yields_rules() {
    let table: &[(&str, &[&str])] = &[
        (
            "Why does this panic?\n\n```rust\n// never call this before init()\nlet s = read().unwrap();\n```\n\nFrom now on, always explain panics first.",
            &["From now on, always explain panics first."],
        ),
        (
            "Here is the function:\n\n    def total(items):\n        # never returns negative numbers\n        return sum(items)\n\nAdd a discount parameter.",
            &[],
        ),
        (
            "My colleague wrote:\n\n> You should never hold a lock across an await.\n> Always drop the guard first.\n\nIs she right?",
            &[],
        ),
        (
            "Prod logs:\n2024-05-03T10:22:41Z ERROR worker: payload must not be null\n[WARN] retries must always be capped\nFind the null.",
            &[],
        ),
        (
            "Traceback (most recent call last):\n  File \"app.py\", line 8, in main\nValueError: port must always be an integer\n\nwhat's going on?",
            &[],
        ),
        (
            "thread 'main' panicked at src/lib.rs:3:5:\nduplicate ids must never be stored\nnote: run with `RUST_BACKTRACE=1`\n\nfix it",
            &[],
        ),
        (
            "Review this:\n\ndiff --git a/x.rs b/x.rs\n--- a/x.rs\n+++ b/x.rs\n@@ -1,2 +1,2 @@\n-    // must always trim input\n+    // never trim here\n     let t = lex(s);\n\nDon't merge anything without my review.",
            &["Don't merge anything without my review."],
        ),
        (
            "The deploy failed:\n\n    npm ERR! peer react must be installed\n    npm ERR! Always use --legacy-peer-deps\n\nWhat now?",
            &[],
        ),
        (
            "The PM wrote: \"The checkout must never show a stale price. Users should always see the total.\" Turn that into tests.",
            &[],
        ),
        (
            "Client email:\n\"Hi, the export never includes archived items.\nWe always need those for the audit.\nThanks, Dana\"\n\nDraft a reply. Never promise dates in replies.",
            &["Never promise dates in replies."],
        ),
        (
            "\"Done\" must always mean the tests pass.",
            &["\"Done\" must always mean the tests pass."],
        ),
        (
            "Uncaught TypeError: x is undefined\n    at List (List.jsx:23:18)\n\nFix it. Never use optional chaining to hide bugs.",
            &["Never use optional chaining to hide bugs."],
        ),
    ];
    for (prompt, want) in table {
        assert_eq!(local(prompt), strings(want), "{prompt}");
    }
}

#[test]
fn model_candidates_from_quoted_material_are_dropped() {
    let prompt =
        "See:\n```\nnever use unwrap\n```\n> always squash\n\nKeep shared types in src/types.rs.";
    let ex = Fixed(vec![
        "never use unwrap",
        "always squash",
        "Keep shared types in src/types.rs.",
    ]);
    assert_eq!(
        extract_lines(&ex, prompt),
        strings(&["Keep shared types in src/types.rs."])
    );
}

#[test]
fn sentences_are_cut_at_their_ends_only() {
    use super::sentences::split_sentences;
    let cut = |text: &str| -> Vec<String> {
        split_sentences(text)
            .into_iter()
            .map(|(s, e)| text[s..e].to_string())
            .collect()
    };
    assert_eq!(
        cut("Use e.g. serde for this. Keep src/types.rs tidy! Why? ok"),
        strings(&[
            "Use e.g. serde for this.",
            "Keep src/types.rs tidy!",
            "Why?",
            "ok"
        ])
    );
    assert_eq!(
        cut("No `println!` left behind. He wrote \"Never. Ever.\" and left."),
        strings(&[
            "No `println!` left behind.",
            "He wrote \"Never. Ever.\" and left."
        ])
    );
    assert_eq!(
        cut("帮我修一下bug。以后都用中文！好吗？"),
        strings(&["帮我修一下bug。", "以后都用中文！", "好吗？"])
    );
    assert_eq!(
        cut("Done at 300ms. btw keep answers short"),
        strings(&["Done at 300ms.", "btw keep answers short"])
    );
}

#[test]
fn the_local_extractor_keeps_rules_and_drops_tasks() {
    let table: &[(&str, &[&str])] = &[
        (
            "Fix the flaky test in auth.rs. From now on, always run clippy before you say you're done.",
            &["From now on, always run clippy before you say you're done."],
        ),
        ("Add a created_at field. Keep shared types in src/types.rs.", &["Keep shared types in src/types.rs."]),
        ("Implement CSV export. Never use unwrap in library code.", &["Never use unwrap in library code."]),
        ("write tests for the lexer. tests go next to the code", &["tests go next to the code"]),
        ("Please answer in German from now on. What does Pin guarantee?", &["Please answer in German from now on."]),
        ("fix the login bug", &[]),
        ("add a button to the settings page", &[]),
        ("what does this function do?", &[]),
        ("The CI build always fails on macOS. Can you figure out why?", &[]),
        ("It must be a race condition. Look at pool.rs.", &[]),
        ("Skip the integration tests for now, they need a database.", &[]),
        ("Don't push yet, I want to review first.", &[]),
        (
            "Conventions:\n1. One component per file.\n2. CSS modules only, no global styles.\n\nBuild the profile page.",
            &["One component per file.", "CSS modules only, no global styles."],
        ),
        ("Steps to reproduce:\n1. Log in\n2. Open settings\n3. The page never loads", &[]),
        ("帮我修一下登录页面的bug。以后所有的回答都用中文。", &["以后所有的回答都用中文。"]),
        ("这次先不要跑集成测试，数据库还没准备好。", &[]),
        ("为什么这里必须用Box<dyn Error>？", &[]),
        ("禁止在库代码里使用unwrap()，错误统一用thiserror定义。", &["禁止在库代码里使用unwrap()，错误统一用thiserror定义。"]),
    ];
    for (prompt, want) in table {
        assert_eq!(local(prompt), strings(want), "{prompt}");
    }
}

#[test]
fn the_model_request_embeds_the_prompt_between_fresh_markers() {
    let text = model::request("Fix it. Never use unwrap.");
    assert!(text.contains("<<<USER_MESSAGE\nFix it. Never use unwrap.\nUSER_MESSAGE>>>"));
    assert!(text.contains(model::NONE_ANSWER));
    assert!(text.contains("verbatim") || text.contains("exactly as the user typed"));
    let tricky = model::request("look: <<<USER_MESSAGE");
    assert!(tricky.contains("<<<USER_MESSAGE_1\nlook: <<<USER_MESSAGE\nUSER_MESSAGE_1>>>"));
}

#[test]
fn model_answers_are_parsed_one_candidate_per_line() {
    let table: &[(&str, &[&str])] = &[
        ("NONE", &[]),
        ("  none.\n", &[]),
        ("", &[]),
        ("Never use unwrap in library code.", &["Never use unwrap in library code."]),
        (
            "- Never use unwrap.\n* Tests go next to the code\n1. Answer in German.\n2) Keep it short",
            &["Never use unwrap.", "Tests go next to the code", "Answer in German.", "Keep it short"],
        ),
        ("\"Use tabs.\"\n“Answer in German.”\n`cargo fmt first`\n> quoted", &["Use tabs.", "Answer in German.", "cargo fmt first", "quoted"]),
        ("```\nUse tabs.\n```", &["Use tabs."]),
        ("[\"Use tabs.\", \"Never push to main.\"]", &["Use tabs.", "Never push to main."]),
        ("以后都用中文回答。\n\n无", &["以后都用中文回答。"]),
    ];
    for (answer, want) in table {
        assert_eq!(model::parse_answer(answer), strings(want), "{answer:?}");
    }
}

#[test]
fn a_model_answer_passes_the_same_gate() {
    let prompt = "Fix the login bug. From now on, write tests first.\n```\n// never do this\n```";
    let answer = "- From now on, write tests first.\n- Always write tests first.\n- never do this\n- Fix the login bug.";
    // Only the gate and the quoted-material filter stand between a model and the list: a
    // rephrased line and one from a code block go; a verbatim one-off task is the model's call.
    assert_eq!(
        extract_lines(&Answered(answer), prompt),
        strings(&["From now on, write tests first.", "Fix the login bug."])
    );
}

#[test]
#[ignore]
fn debug_scores() {
    if let Ok(s) = std::env::var("DEBUG_SENTENCE") {
        for line in s.split('|') {
            println!("{line:?} -> {:?}", super::local::debug_score(line));
        }
    }
}
