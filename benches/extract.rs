//! Benchmark of standing-instruction extraction (the local extractor, through the whole
//! pipeline): nanoseconds per extraction for a 4 KB prompt and for every prompt of the labelled
//! corpus. A plain `harness = false` binary timed with `std::time::Instant`; run it with
//! `cargo bench --bench extract`.

use baton::instructions::{extract_lines, LocalExtractor};
use std::hint::black_box;
use std::time::Instant;

/// A realistic mixed prompt: context, tasks, rules, a code block, a pasted log, a list.
const PARAGRAPH: &str = "I'm picking the payments service back up. The refund endpoint returns 500 when \
the order was paid with a gift card, and the logs are not much help. Fix it, and from now on \
always run the full test suite before you say you're done. Keep shared types in src/types.rs.\n\
Here's the handler:\n\n```rust\nfn refund(order: &Order) -> Result<()> {\n    // must never refund twice\n    \
let card = order.card.as_ref().unwrap();\n    Ok(())\n}\n```\n\n\
2024-05-03T10:22:41Z ERROR refund: card must not be null\n\n\
Conventions:\n- never use unwrap in library code\n- tests go next to the code\n\
- commit messages follow Conventional Commits\n\n\
Why does the gift card path skip validation? 以后所有的回答都用中文。 Don't add new dependencies without asking me first.\n\n";

fn four_kb_prompt() -> String {
    let mut prompt = String::with_capacity(4200);
    while prompt.len() < 4096 {
        prompt.push_str(PARAGRAPH);
    }
    let mut end = 4096;
    while !prompt.is_char_boundary(end) {
        end -= 1;
    }
    prompt.truncate(end);
    prompt
}

fn corpus_prompts() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/instructions/corpus.jsonl"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("no corpus at {path}");
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|v| v.get("prompt")?.as_str().map(str::to_string))
        .collect()
}

/// Runs `f` until at least `min_ms` have passed; returns nanoseconds per call.
fn time_per_call(min_ms: u128, mut f: impl FnMut()) -> f64 {
    for _ in 0..10 {
        f();
    }
    let start = Instant::now();
    let mut calls: u64 = 0;
    while start.elapsed().as_millis() < min_ms {
        f();
        calls += 1;
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

fn main() {
    let ex = LocalExtractor::new();
    let prompt = four_kb_prompt();
    let per_4kb = time_per_call(1000, || {
        black_box(extract_lines(&ex, black_box(&prompt)));
    });
    println!(
        "extract 4 KB prompt ({} bytes, {} lines kept): {:.0} ns per extraction",
        prompt.len(),
        extract_lines(&ex, &prompt).len(),
        per_4kb
    );

    let corpus = corpus_prompts();
    if corpus.is_empty() {
        return;
    }
    // The same size of varied text (every corpus prompt in turn), so the regex caches are not
    // flattered by one paragraph repeated.
    let mut varied = String::new();
    for p in corpus.iter().cycle().take(corpus.len() * 2) {
        if varied.len() + p.len() + 2 > 4096 {
            break;
        }
        varied.push_str(p);
        varied.push_str("\n\n");
    }
    let per_varied = time_per_call(1000, || {
        black_box(extract_lines(&ex, black_box(&varied)));
    });
    println!(
        "extract 4 KB of varied corpus text ({} bytes): {:.0} ns per extraction",
        varied.len(),
        per_varied
    );
    let bytes: usize = corpus.iter().map(String::len).sum();
    let per_corpus = time_per_call(1000, || {
        for p in &corpus {
            black_box(extract_lines(&ex, black_box(p)));
        }
    });
    println!(
        "extract whole corpus ({} prompts, {} bytes): {:.0} ns per pass, {:.0} ns per prompt",
        corpus.len(),
        bytes,
        per_corpus,
        per_corpus / corpus.len() as f64
    );
}
