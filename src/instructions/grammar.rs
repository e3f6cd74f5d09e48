//! Word-level readings of one sentence for the local extractor: whether its "always" or
//! "never" instructs or describes, whether its subject is a whole category ("tests go…",
//! "all timestamps are…") or one thing, and whether an imperative "use" aims at a category.
//! Works on the lowercased cue text, as words tagged with where clauses start.

/// Words of the cue text, each with whether a clause starts at it (start of the sentence, or
/// after `,` `;` `:` `(` or a dash).
pub(super) fn words(cue: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut clause = true;
    let mut start: Option<usize> = None;
    for (i, c) in cue.char_indices() {
        if c.is_alphanumeric() || c == '\'' {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push((cue[s..i].trim_matches('\''), clause));
            clause = false;
        }
        if ",;:()[]!?.—–".contains(c) || (c == '-' && cue[i + 1..].starts_with(' ')) {
            clause = true;
        }
    }
    if let Some(s) = start {
        out.push((cue[s..].trim_matches('\''), clause));
    }
    out
}

/// Words that may come before an imperative "always"/"never" without making it a description.
#[rustfmt::skip]
const SOFT: &[&str] = &[
    "please", "and", "but", "so", "also", "then", "just", "to", "pls", "plz", "btw", "remember",
    "ok", "okay", "oh", "i'd", "you'd", "really", "but", "or", "thus", "hence", "therefore",
];
#[rustfmt::skip]
const MODALS: &[&str] = &[
    "should", "must", "shall", "will", "would", "need", "needs", "can", "could", "gotta", "do",
    "does", "'ll", "may", "might",
];
#[rustfmt::skip]
const DESCRIBING: &[&str] = &[
    "was", "were", "it's", "that's", "there's", "he's", "she's", "it", "this", "that", "which",
    "there", "they", "he", "she", "who", "something", "everything", "nothing", "everyone",
    "nobody", "people", "users", "customers", "i've", "it'd", "it'll", "that'll", "you", "almost",
    "nearly", "basically", "hardly",
];
#[rustfmt::skip]
const PREFERRING: &[&str] = &[
    "want", "prefer", "like", "use", "write", "keep", "put", "run", "do", "need", "ask", "format",
    "follow", "target", "add", "deploy", "avoid", "test", "name", "commit", "push", "merge",
    "review", "squash", "pin", "include", "document", "validate", "start", "end", "go", "check",
];
#[rustfmt::skip]
const PAST: &[&str] = &[
    "got", "had", "did", "saw", "went", "came", "knew", "understood", "broke", "ran", "took",
    "made", "found", "thought", "said", "gave", "left", "felt", "became", "began", "kept", "heard",
    "meant", "built", "sent", "spent", "lost", "held", "brought", "wrote", "worked",
];

/// How strongly "always" or "never" in the sentence prescribes (best occurrence): an imperative
/// ("Always run clippy", "you should never…", "we always squash") scores, a description ("the
/// build always fails", "it never finishes", "I never got…", "you always forget") does not.
pub(super) fn always_never(words: &[(&str, bool)]) -> i32 {
    let mut best = 0;
    for (i, &(word, clause)) in words.iter().enumerate() {
        if word != "always" && word != "never" {
            continue;
        }
        let next = words[i + 1..]
            .iter()
            .map(|w| w.0)
            .find(|w| !matches!(*w, "ever" | "really" | "just" | "again"))
            .unwrap_or("");
        if next == "mind" {
            continue;
        }
        if next.is_empty() {
            // "Tabs for indentation, always." An emphatic tail, not a lone word.
            if clause && i > 0 {
                best = best.max(3);
            }
            continue;
        }
        let prev = (!clause && i > 0).then(|| words[i - 1].0);
        let prev2 = (i > 1 && !words[i - 1].1).then(|| words[i - 2].0);
        let copula = matches!(
            prev,
            Some("is" | "are" | "be" | "been" | "'re" | "we're" | "they're")
        );
        if ELIDED.contains(&next) && !copula {
            // "retry on 503 but never on 4xx": a contrast inside a task, not an order.
            best = best.max(1);
            continue;
        }
        let points = match prev {
            Some("you")
                if prev2.is_some_and(|w| matches!(w, "can" | "could" | "would" | "will")) =>
            {
                4
            }
            None => 4,
            Some(p) if SOFT.contains(&p) => 4,
            Some(p) if MODALS.contains(&p) => {
                // "it should never wait…": a rule about one thing the prompt talks about, which
                // means nothing once stored on its own.
                let describing = prev2.is_some_and(|w| DESCRIBING.contains(&w) && w != "you");
                if describing {
                    0
                } else {
                    4
                }
            }
            Some("is" | "are" | "be" | "been" | "'re" | "we're" | "they're") => 3,
            Some(p) if DESCRIBING.contains(&p) => 0,
            Some("we" | "i") => {
                if PREFERRING.contains(&next) {
                    3
                } else {
                    0
                }
            }
            Some(_) => {
                if is_inflected(next) || describes_some(&words[..i]) {
                    0
                } else {
                    3
                }
            }
        };
        best = best.max(points);
    }
    best
}

/// "some clients never respect…", "these tests always…": a subject that picks out particular
/// things makes the sentence a description, not a rule about a category.
fn describes_some(before: &[(&str, bool)]) -> bool {
    const PARTICULAR: &[&str] = &[
        "some",
        "many",
        "most",
        "few",
        "several",
        "certain",
        "these",
        "those",
        "older",
        "sometimes",
        "often",
        "usually",
        "the",
        "my",
        "his",
        "her",
        "their",
    ];
    before
        .iter()
        .rev()
        .take_while(|w| !w.1)
        .chain(before.iter().rev().find(|w| w.1))
        .any(|w| PARTICULAR.contains(&w.0))
}

/// Words after "always"/"never" that show its verb was left out ("never on 4xx", "never the
/// real AWS").
#[rustfmt::skip]
const ELIDED: &[&str] = &[
    "on", "in", "for", "with", "at", "to", "from", "by", "as", "when", "if", "during", "after",
    "before", "under", "over", "inside", "outside", "without", "the", "a", "an", "more", "less",
];

/// Verbs of a bug report: "all tests fail", "all the buttons break".
#[rustfmt::skip]
const BUG_VERBS: &[&str] = &[
    "fail", "break", "crash", "hang", "error", "timeout", "disappear", "flicker", "leak", "freeze",
    "explode", "stopped", "broke",
];

fn is_inflected_past(word: &str) -> bool {
    PAST.contains(&word) || word.ends_with("ed")
}

/// "fails", "crashed", "got": a verb that describes rather than instructs.
fn is_inflected(word: &str) -> bool {
    is_inflected_past(word) || is_plural(word)
}

/// Lead-in words skipped before the subject of a sentence.
#[rustfmt::skip]
const LEAD_WORDS: &[&str] = &[
    "please", "and", "also", "oh", "but", "so", "ok", "okay", "btw", "again", "important", "note",
    "remember", "reminder", "fyi", "ps", "just", "then", "plus", "additionally", "finally",
    "generally", "honestly", "rule",
];
const QUANTIFIERS: &[&str] = &["all", "every", "each", "any"];
#[rustfmt::skip]
const DETERMINERS: &[&str] = &[
    "the", "this", "that", "these", "those", "a", "an", "my", "your", "his", "her", "their", "its",
    "it", "i", "you", "he", "she", "we", "they", "there", "here", "what", "why", "how", "which",
    "who", "when", "where", "if", "let's", "can", "could", "would", "will", "do", "does", "did",
    "to", "some", "one", "only", "both", "most", "many", "few", "several",
];
/// Nouns that name a whole category without a plural ending.
#[rustfmt::skip]
const MASS_NOUNS: &[&str] = &[
    "code", "output", "money", "state", "config", "configuration", "logging", "documentation",
    "sql", "css", "html", "json", "yaml", "data", "accessibility", "everything", "indentation",
    "formatting", "naming", "input", "ui", "copy", "text", "stdout", "stderr", "security",
    "performance", "handling", "management", "i18n", "styling", "validation", "auth",
    "infrastructure", "caching", "anything", "nothing",
];

/// A general statement about a category ("Tests go next to the code", "Commit messages must
/// follow…", "All timestamps are stored in UTC", "Config files are TOML") rather than about one
/// thing ("the button should be blue").
pub(super) fn generic_subject(words: &[(&str, bool)]) -> i32 {
    let body: Vec<&str> = words
        .iter()
        .map(|w| w.0)
        .skip_while(|w| LEAD_WORDS.contains(w))
        .take(8)
        .collect();
    let Some(first) = body.first() else {
        return 0;
    };
    if matches!(body.get(1), Some(&"time")) && !matches!(body.get(2), Some(&"you")) {
        // "Every time I run the dev server it…": a circumstance, not a category.
        return 0;
    }
    let quantified = QUANTIFIERS.contains(first);
    let Some(k) = body.iter().position(|w| verb_weight(w).is_some()) else {
        // "All external links open in a new tab": a quantified subject with any present verb.
        let described = body
            .get(2)
            .is_some_and(|w| is_inflected_past(w) || BUG_VERBS.contains(w));
        return i32::from(quantified && body.len() > 3 && !described);
    };
    if k == 0 {
        return 0;
    }
    let subject = &body[..k];
    // The head noun comes before any prepositional phrase: "code" in "vendored code in x/".
    let head = subject
        .iter()
        .position(|w| {
            matches!(
                *w,
                "in" | "of" | "for" | "under" | "from" | "on" | "with" | "to"
            )
        })
        .filter(|&p| p > 0)
        .map_or(subject[k - 1], |p| subject[p - 1]);
    // "Nothing else goes in a handler": the head is "nothing".
    let head = match subject.iter().rposition(|w| *w == head) {
        Some(p) if head == "else" && p > 0 => subject[p - 1],
        _ => head,
    };
    let bare = !subject.iter().any(|w| DETERMINERS.contains(w));
    let plural = is_plural(head);
    let mut weight = verb_weight(body[k]).unwrap_or(0);
    if weight == 1
        && body
            .get(k + 1)
            .is_some_and(|w| CONVENTION_COMPLEMENTS.contains(w))
    {
        weight = 3;
    }
    if quantified {
        weight.max(2) + 1
    } else if bare && (plural || MASS_NOUNS.contains(&head)) {
        weight
    } else {
        0
    }
}

/// "Use thiserror for errors", "Use `async fn` in traits": an imperative "use" aimed at a
/// whole category (a bare plural or mass noun) is a convention, unlike "use a Vec here".
pub(super) fn use_for_category(words: &[(&str, bool)]) -> i32 {
    let mut body = words
        .iter()
        .map(|w| w.0)
        .skip_while(|w| LEAD_WORDS.contains(w));
    if body.next() != Some("use") {
        return 0;
    }
    let rest: Vec<&str> = body.take(8).collect();
    let Some(at) = rest.iter().position(|w| matches!(*w, "for" | "in")) else {
        return 0;
    };
    let target = rest[at + 1..]
        .iter()
        .find(|w| !matches!(**w, "all" | "any" | "every" | "new"))
        .copied()
        .unwrap_or("");
    let categorical =
        !DETERMINERS.contains(&target) && (is_plural(target) || MASS_NOUNS.contains(&target));
    if at > 0 && categorical {
        2
    } else {
        0
    }
}

fn is_plural(word: &str) -> bool {
    word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
}

/// What a general subject "is" or "are" when the sentence states a convention: "Test files are
/// named…", "Branch names are lowercase…".
#[rustfmt::skip]
const CONVENTION_COMPLEMENTS: &[&str] = &[
    "named", "called", "prefixed", "suffixed", "written", "formatted", "stored", "kept", "placed",
    "located", "indented", "sorted", "grouped", "lowercase", "uppercase", "capitalized",
    "capitalised", "snake_case", "camelcase", "kebab", "pascalcase", "immutable", "private",
    "typed", "documented", "tested", "versioned", "pinned", "required", "optional", "forbidden",
    "singular", "plural", "utc", "validated", "logged", "reviewed", "squashed", "signed",
    "encrypted", "hashed", "generated", "declared", "defined", "imported", "exported",
];

/// How normative a verb is after a general subject.
fn verb_weight(word: &str) -> Option<i32> {
    match word {
        "must" | "should" | "shall" | "need" | "needs" | "mustn't" | "shouldn't" | "can't"
        | "cannot" => Some(3),
        "go" | "goes" | "belong" | "belongs" | "live" | "lives" | "stay" | "stays" | "sit"
        | "sits" | "flow" | "flows" => Some(3),
        "use" | "uses" | "follow" | "follows" | "require" | "requires" => Some(3),
        "get" | "gets" | "have" | "has" | "return" | "returns" | "start" | "starts" | "come"
        | "comes" | "run" | "runs" | "don't" => Some(2),
        "is" | "are" => Some(1),
        _ => None,
    }
}
