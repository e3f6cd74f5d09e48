//! The dependency arrows ARCHITECTURE.md draws, checked on the source: the crate's top-level
//! modules form no cycle, none has an edge the code map says must never exist, and the server's
//! own modules depend on each other one way. Test code is left out (it may use anything).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every non-test `.rs` file below `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            // `tui/testing/`, `props/`: the tests' own.
            if !p.ends_with("testing") && !p.ends_with("props") {
                out.extend(sources(&p));
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let test_only = name.ends_with("_tests.rs")
                || ["testutil.rs", "standin.rs"].contains(&name.as_str());
            if !test_only {
                out.push(p);
            }
        }
    }
    out
}

/// The file's text without its inline test module and without comments.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(i) => &text[..i],
        None => &text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names that follow `prefix` in `text` (`crate::` → `store`, `engine`…).
fn names_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// The top-level module a file of `src/` belongs to.
fn top_module(path: &Path) -> String {
    let rel = path.strip_prefix(SRC).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

fn crate_graph() -> Graph {
    let mut g = Graph::new();
    for f in sources(Path::new(SRC)) {
        let m = top_module(&f);
        if m == "lib" || m == "main" {
            continue;
        }
        let deps = names_after(&code(&f), "crate::");
        let entry = g.entry(m.clone()).or_default();
        entry.extend(deps.into_iter().filter(|d| *d != m));
    }
    g
}

/// The server's modules (`read`, `turn`, `shell`…) and what each refers to among them.
fn server_graph() -> Graph {
    let server = Path::new(SRC).join("server");
    let mut g = Graph::new();
    for f in sources(&server) {
        let rel = f.strip_prefix(&server).unwrap();
        let parts: Vec<String> = rel
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .collect();
        if parts == ["mod"] {
            continue; // the module that declares them all
        }
        let m = parts[0].clone();
        // How many `super::` lead from this file to the server module itself.
        let depth = if parts.last().is_some_and(|p| p == "mod") {
            parts.len() - 1
        } else {
            parts.len()
        };
        let text = code(&f);
        let mut deps = names_after(&text, "crate::server::");
        deps.extend(names_after(&text, &"super::".repeat(depth)));
        deps.retain(|d| *d != m && *d != "super");
        g.entry(m).or_default().extend(deps);
    }
    g
}

/// A cycle in `g`, if there is one, as the path around it.
fn cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        n: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == n) {
            let mut c = path[i..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        path.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(g, d, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys()
        .find_map(|n| visit(g, n, &mut Vec::new(), &mut done))
}

#[test]
fn the_crates_modules_depend_on_each_other_one_way() {
    let g = crate_graph();
    assert!(g.contains_key("server") && g.contains_key("words"), "{g:?}");
    assert_eq!(cycle(&g), None, "a cycle between top-level modules: {g:#?}");
}

#[test]
fn no_module_has_an_edge_the_code_map_forbids() {
    let never: &[(&str, &[&str])] = &[
        ("words", &["*"]),
        ("error", &["*"]),
        ("git", &["*"]),
        ("instructions", &["*"]),
        (
            "engine",
            &[
                "store",
                "server",
                "providers",
                "git",
                "client",
                "tui",
                "config",
                "paths",
            ],
        ),
        (
            "protocol",
            &[
                "server",
                "store",
                "engine",
                "providers",
                "client",
                "tui",
                "doctor",
            ],
        ),
        (
            "store",
            &["server", "client", "tui", "engine", "providers", "doctor"],
        ),
        ("providers", &["server", "store", "client", "tui", "doctor"]),
        (
            "client",
            &["server", "store", "engine", "providers", "tui", "doctor"],
        ),
        ("tui", &["server", "store", "engine", "providers", "doctor"]),
        // The command line's definitions: the multiplexer's `:` prompt parses with them.
        (
            "cli",
            &[
                "server",
                "store",
                "engine",
                "providers",
                "tui",
                "doctor",
                "demo",
            ],
        ),
        ("server", &["client", "tui", "doctor"]),
        // The web client reaches the server through its socket, as every client (and other
        // hosts through `client::hosts` alone: `web_uses_the_client_only_for_other_hosts`).
        (
            "web",
            &[
                "server",
                "store",
                "engine",
                "providers",
                "tui",
                "doctor",
                "cli",
            ],
        ),
        // Doctor runs in the client process and never starts a server (see its module docs).
        ("doctor", &["tui", "engine", "instructions", "demo"]),
    ];
    let g = crate_graph();
    let mut bad = Vec::new();
    for (from, targets) in never {
        for to in g.get(*from).into_iter().flatten() {
            if targets.contains(&"*") || targets.contains(&to.as_str()) {
                bad.push(format!("{from} -> {to}"));
            }
        }
    }
    assert_eq!(bad, Vec::<String>::new(), "edges ARCHITECTURE.md forbids");
}

#[test]
fn the_servers_modules_depend_on_each_other_one_way() {
    let g = server_graph();
    assert!(g.contains_key("turn") && g.contains_key("read"), "{g:?}");
    assert_eq!(cycle(&g), None, "a cycle inside src/server: {g:#?}");
}

#[test]
fn the_cycle_finder_finds_one() {
    let g: Graph = [("a", "b"), ("b", "c"), ("c", "a")]
        .iter()
        .map(|(a, b)| (a.to_string(), BTreeSet::from([b.to_string()])))
        .collect();
    assert_eq!(
        cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let mut acyclic = g.clone();
    acyclic.remove("c");
    assert_eq!(cycle(&acyclic), None);
}

#[test]
fn web_uses_the_client_only_for_other_hosts() {
    let mut used = BTreeSet::new();
    for f in sources(&Path::new(SRC).join("web")) {
        used.extend(names_after(&code(&f), "crate::client::"));
    }
    assert_eq!(used, BTreeSet::from(["hosts".to_string()]));
}

#[test]
fn doctor_uses_the_server_only_for_its_fence_probe() {
    let mut used = BTreeSet::new();
    for f in sources(&Path::new(SRC).join("doctor")) {
        used.extend(names_after(&code(&f), "crate::server::"));
    }
    assert_eq!(used, BTreeSet::from(["fence".to_string()]));
}
