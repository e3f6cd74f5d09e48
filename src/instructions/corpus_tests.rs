//! Measures the local extractor against the labelled corpora in fixtures/instructions/: every
//! `*.jsonl` there (one `{"prompt": …, "expected": […]}` per line) is scored on its own and
//! together, micro-averaged over lines. `BATON_INSTRUCTIONS_CORPUS=/path/to/other.jsonl` scores
//! another file (an unseen corpus) the same way.

use super::{extract_lines, LocalExtractor};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
struct Case {
    prompt: String,
    expected: Vec<String>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    prompts: usize,
    true_pos: usize,
    false_pos: usize,
    false_neg: usize,
}

impl Tally {
    fn precision(&self) -> f64 {
        ratio(self.true_pos, self.true_pos + self.false_pos)
    }
    fn recall(&self) -> f64 {
        ratio(self.true_pos, self.true_pos + self.false_neg)
    }
    fn add(&mut self, other: Tally) {
        self.prompts += other.prompts;
        self.true_pos += other.true_pos;
        self.false_pos += other.false_pos;
        self.false_neg += other.false_neg;
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

fn corpus_files() -> Vec<PathBuf> {
    if let Ok(path) = std::env::var("BATON_INSTRUCTIONS_CORPUS") {
        return vec![PathBuf::from(path)];
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/instructions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// Scores one corpus; prints every miss so a failing run shows what to look at.
fn score(path: &Path, cases: &[Case]) -> Tally {
    let ex = LocalExtractor::new();
    let mut tally = Tally::default();
    for case in cases {
        let got = extract_lines(&ex, &case.prompt);
        for line in &got {
            assert!(
                case.prompt.contains(line.as_str()),
                "not verbatim: {line:?} from {:?}",
                case.prompt
            );
        }
        tally.prompts += 1;
        for line in &got {
            if case.expected.contains(line) {
                tally.true_pos += 1;
            } else {
                tally.false_pos += 1;
                println!("  FP {}: {line:?}", path.display());
            }
        }
        for line in &case.expected {
            if !got.contains(line) {
                tally.false_neg += 1;
                println!("  FN {}: {line:?}", path.display());
            }
        }
    }
    tally
}

#[test]
fn local_extractor_precision_and_recall_on_the_corpus() {
    let files = corpus_files();
    assert!(!files.is_empty(), "no corpus in fixtures/instructions/");
    let mut total = Tally::default();
    for path in &files {
        let cases = load(path);
        let tally = score(path, &cases);
        println!(
            "{}: {} prompts, {} expected lines, {} produced; precision {:.3}, recall {:.3}",
            path.display(),
            tally.prompts,
            tally.true_pos + tally.false_neg,
            tally.true_pos + tally.false_pos,
            tally.precision(),
            tally.recall()
        );
        total.add(tally);
    }
    println!(
        "all: {} prompts; precision {:.3}, recall {:.3}",
        total.prompts,
        total.precision(),
        total.recall()
    );
    assert!(total.prompts >= 200 || std::env::var("BATON_INSTRUCTIONS_CORPUS").is_ok());
    assert!(
        total.precision() >= 0.95,
        "precision {:.3} < 0.95",
        total.precision()
    );
    assert!(
        total.recall() >= 0.85,
        "recall {:.3} < 0.85",
        total.recall()
    );
}
