//! "Did you mean": the known name closest to a mistyped one, by edit distance. Pure; a leaf.

/// The candidate closest to `typed` (Levenshtein distance over characters, case ignored), if
/// it is close enough to be a typo: at most one edit for names up to four characters, else at
/// most a third of the typed length (two edits for `rewiew` → `review`). Ties go to the first
/// candidate. Never `typed` itself.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed_lower = typed.to_lowercase();
    let limit = (typed.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == typed {
            continue;
        }
        let d = distance(&typed_lower, &c.to_lowercase());
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance between `a` and `b`, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        let rows = [
            ("", "", 0),
            ("api", "api", 0),
            ("api", "apj", 1),
            ("api", "ap", 1),
            ("api", "xapi", 1),
            ("kitten", "sitting", 3),
            ("日本", "日木", 1),
        ];
        for (a, b, want) in rows {
            assert_eq!(distance(a, b), want, "{a} {b}");
        }
    }

    #[test]
    fn suggestions() {
        let names = ["api", "review", "web-2", "API-docs"];
        let rows = [
            ("apj", Some("api")),
            ("ap", Some("api")),
            ("Api", Some("api")),
            ("rewiew", Some("review")),
            ("reveiw", Some("review")),
            ("web2", Some("web-2")),
            ("api-doc", Some("API-docs")),
            ("zzz", None),
            ("billing", None),
            ("api", None),
            ("", None),
        ];
        for (typed, want) in rows {
            assert_eq!(closest(typed, names), want, "{typed}");
        }
    }
}
