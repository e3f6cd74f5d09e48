//! The `lane` row (issue 44): `baton integrate` on a repository of [`COUNT`] terminals (each
//! branch one turn: a file of its own and one line of a shared file, two of them adding the
//! same path differently) against a plain loop of `git merge-tree --write-tree` merging each
//! branch onto the base, the check a script would run. The lane does more (every pair, the base,
//! the lane in order, the worktree's checkout): the figure is what that costs. Pairs alternate
//! which goes first; medians with their spread (the middle half) and the median of the ratios.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use super::ls::Spread;
use super::{alternating, row, World};

/// Terminals in the repository.
const COUNT: usize = 10;
/// Pairs timed.
const RUNS: usize = 21;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com")
        .output()
        .expect("git");
    // merge-tree exits 1 on a conflict: that is a figure, not a failure.
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "git {args:?}: {out:?}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The repository and its terminals' branches, each committed by one turn.
fn repository(w: &World) -> std::path::PathBuf {
    let repo = w.root.join("work").join("app");
    std::fs::create_dir_all(&repo).expect("repo dir");
    git(&repo, &["init", "-q", "-b", "main"]);
    let lines: String = (0..COUNT * 4).map(|i| format!("line {i}\n")).collect();
    std::fs::write(repo.join("shared.txt"), &lines).expect("shared");
    for i in 0..200 {
        std::fs::write(repo.join(format!("f{i}.txt")), format!("{i}\n")).expect("file");
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "initial"]);
    for i in 0..COUNT {
        let name = format!("t{i}");
        w.ok(&["new", &name, "--dir", &repo.display().to_string()]);
        let shown = w.json(&["show", &name]);
        let wt = Path::new(shown["checkout"]["worktree"].as_str().expect("a worktree"));
        let own = lines.replace(
            &format!("line {}\n", i * 4),
            &format!("line {} by t{i}\n", i * 4),
        );
        std::fs::write(wt.join("shared.txt"), own).expect("shared");
        std::fs::write(wt.join(format!("own{i}.txt")), "mine\n").expect("own");
        if i >= COUNT - 2 {
            std::fs::write(wt.join("both.txt"), format!("t{i}\n")).expect("both");
        }
        w.ok(&["send", &name, "work"]);
    }
    w.all_clis_exited();
    repo
}

fn timed(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64() * 1000.0
}

pub fn rows() -> Vec<[String; 4]> {
    let w = World::cold();
    let repo = repository(&w);
    let lane = || {
        let out = w
            .cmd(&["integrate", "t0", "--json"])
            .output()
            .expect("integrate");
        assert_eq!(out.status.code(), Some(1), "two conflict: {out:?}");
    };
    let plain = || {
        for i in 0..COUNT {
            git(
                &repo,
                &[
                    "merge-tree",
                    "--write-tree",
                    "--name-only",
                    "main",
                    &format!("baton/t{i}"),
                ],
            );
        }
    };
    lane();
    let (mut b, mut g, mut r) = (vec![], vec![], vec![]);
    for i in 0..RUNS {
        let (x, y) = alternating(i, || timed(lane), || timed(plain));
        b.push(x);
        g.push(y);
        r.push(x / y);
    }
    vec![row(
        &format!("`baton integrate`, {COUNT} terminals (every pair, the base, the lane in order, its checkout) / a loop of `git merge-tree --write-tree` of each branch onto the base, medians (middle half) and the median of the pairs' ratios"),
        Spread::of(b).ms(),
        Spread::of(g).ms(),
        Spread::of(r).ratio(),
    )]
}
