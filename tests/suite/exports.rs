//! `baton export` and `baton import` end to end: the zip and its manifest, then the terminal
//! carried to a SECOND world (another HOME, BATON_HOME, CODEX_HOME and checkout path) where the
//! next send resumes the same provider session in the new checkout, told that checkout; the
//! refusals (a tampered archive, a name or id taken, bad input) that change nothing.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::common::*;

/// Every member of zip `path`, by name.
pub(super) fn members(path: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let name = f.name().unwrap().into_owned();
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes).unwrap();
        out.insert(name, bytes);
    }
    out
}

/// A zip holding `files` (in that order), as a hand-made or changed archive.
pub(super) fn write_zip(path: &Path, files: &[(String, Vec<u8>)]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in files {
        zip.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

pub(super) fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn journal(w: &World, name: &str) -> Vec<u8> {
    let id = w.show(name)["id"].as_str().unwrap().to_string();
    std::fs::read(w.data().join("terminals").join(id).join("journal.jsonl")).unwrap()
}

fn session_of(w: &World, name: &str) -> String {
    let show = w.show(name);
    show["sessions"].as_array().unwrap().last().unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The manifest checked against the zip's bytes: every listed file is there with its size and
/// digest, and nothing else is.
fn checked_manifest(zip: &Path) -> (Value, BTreeMap<String, Vec<u8>>) {
    let files = members(zip);
    let manifest: Value = serde_json::from_slice(&files["manifest.json"]).unwrap();
    let listed = manifest["files"].as_array().unwrap();
    assert_eq!(listed.len() + 1, files.len(), "{manifest:#}");
    for f in listed {
        let bytes = &files[f["path"].as_str().unwrap()];
        assert_eq!(f["size"].as_u64().unwrap(), bytes.len() as u64, "{f}");
        assert_eq!(f["sha256"].as_str().unwrap(), sha256(bytes), "{f}");
    }
    (manifest, files)
}

/// A clone of `repo` (all its branches' commits) at a path of world `w2`.
fn clone_into(w2: &World, repo: &Path, name: &str) -> PathBuf {
    let dir = w2.tmp.path().join("work").join(name);
    git(
        w2,
        w2.tmp.path(),
        &["clone", "-q", repo.to_str().unwrap(), dir.to_str().unwrap()],
    );
    dir.canonicalize().unwrap()
}

/// `baton import ZIP --dir CLONE --json` in world `w2`, CLONE a fresh clone of `repo` there.
fn import_clone(w2: &World, repo: &Path, zip: &str, clone: &str) -> Value {
    let clone = clone_into(w2, repo, clone);
    w2.json(&["import", zip, "--dir", clone.to_str().unwrap()])
}

/// A terminal `name` on `provider` in a repository of `w`, with two turns.
fn two_turns(w: &World, name: &str, provider: &str) -> PathBuf {
    let repo = repo(w, name);
    w.ok(&[
        "new",
        name,
        "--dir",
        repo.to_str().unwrap(),
        "--provider",
        provider,
    ]);
    w.send(name, "first: add notes [[write:notes.txt]]");
    w.send(name, "second: read them");
    repo
}

/// The text of every developer message block of a Codex rollout.
fn developer_texts(rollout: &str) -> Vec<String> {
    rollout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "response_item" && v["payload"]["role"] == "developer")
        .flat_map(|v| {
            v["payload"]["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|b| b["text"].as_str().map(String::from))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn a_claude_terminal_moves_to_another_machine_and_resumes_its_session_in_the_new_checkout() {
    let w = World::new();
    let repo = two_turns(&w, "api", "claude");
    let sid = session_of(&w, "api");
    let old_dir = w.show("api")["dir"].as_str().unwrap().to_string();
    let before = journal(&w, "api");

    let exp = w.json(&["export", "api"]);
    let zip = PathBuf::from(exp["path"].as_str().unwrap());
    let pattern = regex::Regex::new(r"/exports/api-\d{8}T\d{6}Z\.zip$").unwrap();
    assert!(pattern.is_match(zip.to_str().unwrap()), "{exp}");
    assert!(zip.starts_with(w.data().join("exports")));
    assert_eq!(mode(&zip), 0o600);
    assert_eq!(mode(&w.data().join("exports")), 0o700);
    assert_eq!(exp["name"], "api");
    assert_eq!(exp["warnings"], serde_json::json!([]));
    let (manifest, files) = checked_manifest(&zip);
    assert_eq!(exp["files"].as_u64().unwrap() as usize, files.len() - 1);
    assert_eq!(
        files["baton/journal.jsonl"], before,
        "the journal byte for byte"
    );
    let turns = files
        .keys()
        .filter(|k| k.starts_with("baton/turns/"))
        .count();
    assert_eq!(turns, 2);
    let session_file = files
        .keys()
        .find(|k| k.starts_with("claude/projects/") && k.ends_with(&format!("/{sid}.jsonl")))
        .expect("the session file is in the zip")
        .clone();
    assert_eq!(manifest["terminal"]["name"], "api");
    assert_eq!(manifest["terminal"]["provider"], "claude");
    assert_eq!(manifest["checkout"]["branch"], "baton/api");
    assert_eq!(manifest["sessions"][0]["session_id"], sid.as_str());
    assert_eq!(manifest["sessions"][0]["file"], session_file.as_str());
    assert_eq!(manifest["missing"], serde_json::json!([]));

    // A second export in the same second gets a suffix; a taken name is never replaced.
    let out = w.project("out");
    let now = chrono::Utc::now();
    for s in 0..30 {
        let stamp = (now + chrono::Duration::seconds(s)).format("%Y%m%dT%H%M%SZ");
        std::fs::write(out.join(format!("api-{stamp}.zip")), "taken").unwrap();
    }
    let second = w.json(&["export", "api", "--out", out.to_str().unwrap()]);
    let second = second["path"].as_str().unwrap();
    assert!(second.ends_with("-1.zip"), "{second}");
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        31,
        "no temporary file left"
    );
    assert_eq!(journal(&w, "api"), before, "exporting changes nothing");

    // The other machine: its own HOME, data and CODEX_HOME, a clone at another path.
    let w2 = World::new();
    let imp = import_clone(&w2, &repo, zip.to_str().unwrap(), "elsewhere");
    assert_eq!(imp["name"], "api");
    assert_eq!(imp["from"], "api");
    assert_eq!(imp["terminal_id"], w.show("api")["id"]);
    assert_eq!(imp["mode"], "worktree");
    assert_eq!(imp["branch"], "baton/api");
    let new_dir = PathBuf::from(imp["dir"].as_str().unwrap());
    assert_ne!(new_dir.to_str().unwrap(), old_dir);
    assert!(
        new_dir.join("notes.txt").exists(),
        "the worktree is at the exported head"
    );
    let placed = PathBuf::from(imp["sessions"][0]["placed"].as_str().unwrap());
    assert!(placed.starts_with(w2.home().join(".claude").join("projects")));
    assert_eq!(mode(&placed), 0o600);

    let show = w2.show("api");
    assert_eq!(show["dir"], imp["dir"]);
    assert_eq!(
        show["conversation"]["id"],
        w.show("api")["conversation"]["id"]
    );
    let log = w2.json(&["log", "api"]);
    let prompts: Vec<&str> = log["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["prompt"].as_str().unwrap())
        .collect();
    assert_eq!(
        prompts,
        ["first: add notes [[write:notes.txt]]", "second: read them"]
    );
    assert!(w2.ok(&["ls"]).contains("api"));

    // The next send resumes the same session, in the new checkout, told that checkout (also
    // in the session file, whose kept system prompt 2.1.332 sends on resume).
    w2.send("api", "third, on the other machine");
    let inv = w2.last_invocation();
    assert_eq!(flag(&inv["argv"], "--resume"), Some(sid.as_str()));
    assert_eq!(
        inv["cwd"].as_str().map(PathBuf::from),
        Some(new_dir.clone())
    );
    let system = system_text(&inv).unwrap();
    assert!(system.contains(new_dir.to_str().unwrap()), "{system}");
    assert!(!system.contains(&format!("{old_dir}.")), "{system}");
    let show = w2.show("api");
    assert_eq!(show["conversation"]["number"], 1, "no fresh conversation");
    assert_eq!(session_of(&w2, "api"), sid);
    let kept = std::fs::read_to_string(&placed).unwrap();
    let snapshots: Vec<Value> = kept
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["attachment"]["type"] == "prompt_snapshot")
        .collect();
    assert!(!snapshots.is_empty());
    for s in snapshots {
        let text = s["attachment"]["systemPrompt"].to_string();
        assert!(text.contains(new_dir.to_str().unwrap()), "{text}");
    }
    assert!(kept.contains("third, on the other machine"));

    // The index rebuilds from the imported journal to the same.
    let snapshot = |w: &World| (w.json(&["ls"]), w.json(&["log", "api"]), w.show("api"));
    let indexed = snapshot(&w2);
    w2.json(&["reindex"]);
    assert_eq!(snapshot(&w2), indexed);

    // Importing it again is refused, under any name.
    refused(&w2, &["import", zip.to_str().unwrap()], "already imported");
    refused(
        &w2,
        &["import", zip.to_str().unwrap(), "--name", "api-b"],
        "already imported",
    );
}

#[test]
fn claude_2_1_197_finds_the_imported_session_in_the_new_checkouts_project_folder() {
    let mut w = World::new();
    w.env
        .push(("BATON_SHIM_CLAUDE_VERSION".into(), "2.1.197".into()));
    let repo = two_turns(&w, "api", "claude");
    let sid = session_of(&w, "api");
    let zip = w.json(&["export", "api"])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let mut w2 = World::new();
    w2.env
        .push(("BATON_SHIM_CLAUDE_VERSION".into(), "2.1.197".into()));
    import_clone(&w2, &repo, &zip, "clone");
    let (_, err) = w2.send("api", "third");
    assert!(!err.contains("fresh session"), "{err}");
    assert_eq!(
        flag(&w2.last_invocation()["argv"], "--resume"),
        Some(sid.as_str())
    );
    assert_eq!(session_of(&w2, "api"), sid);
}

#[test]
fn an_export_taken_the_moment_a_2_1_197_turn_ended_holds_that_turn() {
    // 2.1.197 writes a turn to its session file after its result line (3-75 ms on the real
    // CLI), warm or exiting: an export right after the send waits for it.
    for cold in [false, true] {
        let mut w = World::new();
        w.env
            .push(("BATON_SHIM_CLAUDE_VERSION".into(), "2.1.197".into()));
        w.env
            .push(("BATON_SHIM_LATE_WRITE_MS".into(), "400".into()));
        if cold {
            w.cold();
        }
        two_turns(&w, "api", "claude");
        let zip = w.json(&["export", "api"])["path"]
            .as_str()
            .unwrap()
            .to_string();
        let sid = session_of(&w, "api");
        let (_, files) = checked_manifest(Path::new(&zip));
        let session = files
            .iter()
            .find(|(k, _)| k.ends_with(&format!("/{sid}.jsonl")))
            .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
            .unwrap_or_else(|| panic!("cold {cold}: no session file in the zip"));
        assert!(
            session.contains("second: read them"),
            "cold {cold}: the second turn is not in the exported session"
        );
        let answers = session
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["type"] == "assistant")
            .count();
        assert_eq!(answers, 2, "cold {cold}: {session}");
    }
}

#[test]
fn a_codex_terminal_moves_and_resumes_its_thread_told_the_new_checkout() {
    let w = World::new();
    w.exec_only();
    let repo = two_turns(&w, "cx", "codex");
    let thread = session_of(&w, "cx");
    let old_dir = w.show("cx")["dir"].as_str().unwrap().to_string();
    let exp = w.json(&["export", "cx"]);
    let zip = PathBuf::from(exp["path"].as_str().unwrap());
    let (_, files) = checked_manifest(&zip);
    let rollout = files
        .keys()
        .find(|k| k.starts_with("codex/sessions/") && k.ends_with(&format!("-{thread}.jsonl")))
        .expect("the rollout is in the zip")
        .clone();
    // The archive keeps the exported bytes verbatim.
    let exported = String::from_utf8(files[&rollout].clone()).unwrap();
    assert!(developer_texts(&exported)
        .iter()
        .any(|t| t.contains(&old_dir)));

    let w2 = World::new();
    w2.exec_only();
    let imp = import_clone(&w2, &repo, zip.to_str().unwrap(), "other-place");
    let new_dir = PathBuf::from(imp["dir"].as_str().unwrap());
    let placed = PathBuf::from(imp["sessions"][0]["placed"].as_str().unwrap());
    assert_eq!(
        placed,
        w2.codex_home()
            .join(rollout.strip_prefix("codex/").unwrap())
    );
    w2.send("cx", "third, elsewhere");
    let inv = w2.last_invocation();
    let argv = inv["argv"].to_string();
    assert!(argv.contains(&format!("\"resume\",\"{thread}\"")), "{argv}");
    assert_eq!(
        inv["cwd"].as_str().map(PathBuf::from),
        Some(new_dir.clone())
    );
    assert_eq!(session_of(&w2, "cx"), thread);
    let text = std::fs::read_to_string(&placed).unwrap();
    let dev = developer_texts(&text);
    let baton_text = dev
        .iter()
        .find(|t| t.contains("running inside baton"))
        .expect("baton's developer message");
    assert!(
        baton_text.contains(new_dir.to_str().unwrap()),
        "{baton_text}"
    );
    assert!(!baton_text.contains(&format!("{old_dir}.")), "{baton_text}");
    assert!(text.contains("third, elsewhere"));
    assert_eq!(
        w2.json(&["log", "cx"])["turns"].as_array().unwrap().len(),
        3
    );
}

/// A thread a switch started keeps the conversation's text plus the rules it lacked: the
/// import re-points that text too, the rules word for word.
#[test]
fn a_codex_thread_started_by_a_switch_moves_told_the_new_checkout() {
    let w = World::new();
    let repo = two_turns(&w, "cx", "claude");
    w.ok(&["instructions", "cx", "add", "Keep it short."]);
    let out = w.run(&["send", "cx", "--provider", "codex", "on codex"]);
    assert!(out.status.success(), "{}", text(&out));
    let exp = w.json(&["export", "cx"]);
    let w2 = World::new();
    let imp = import_clone(&w2, &repo, exp["path"].as_str().unwrap(), "other-place");
    let new_dir = imp["dir"].as_str().unwrap().to_string();
    let placed = imp["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["placed"].as_str())
        .find(|p| p.ends_with(&format!("-{}.jsonl", session_of(&w, "cx"))))
        .expect("the rollout is placed")
        .to_string();
    let dev = developer_texts(&std::fs::read_to_string(placed).unwrap());
    let baton_text = dev
        .iter()
        .find(|t| t.contains("running inside baton"))
        .expect("baton's developer message");
    assert!(baton_text.contains(&format!("{new_dir}.")), "{baton_text}");
    assert!(baton_text.ends_with("\n- Keep it short."), "{baton_text}");
}

#[test]
fn a_damaged_or_changed_archive_is_refused_naming_the_file_and_nothing_is_written() {
    let w = World::new();
    two_turns(&w, "api", "claude");
    let zip = PathBuf::from(w.json(&["export", "api"])["path"].as_str().unwrap());
    let files = members(&zip);
    let manifest: Value = serde_json::from_slice(&files["manifest.json"]).unwrap();
    let ordered = |files: &BTreeMap<String, Vec<u8>>| -> Vec<(String, Vec<u8>)> {
        files.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    let w2 = World::new();
    let bad = w2.project("bad");
    let case = |name: &str, files: Vec<(String, Vec<u8>)>| -> PathBuf {
        let p = bad.join(format!("{name}.zip"));
        write_zip(&p, &files);
        p
    };

    let mut flipped = files.clone();
    let journal = flipped.get_mut("baton/journal.jsonl").unwrap();
    journal[10] ^= 0x01;
    let mut edited = manifest.clone();
    let sha = edited["files"][1]["sha256"]
        .as_str()
        .unwrap()
        .replace('a', "b");
    let sha = if sha == edited["files"][1]["sha256"] {
        sha.replace('0', "1")
    } else {
        sha
    };
    edited["files"][1]["sha256"] = sha.into();
    let second = edited["files"][1]["path"].as_str().unwrap().to_string();
    let mut digest_edited = files.clone();
    digest_edited.insert("manifest.json".into(), serde_json::to_vec(&edited).unwrap());
    let mut extra = ordered(&files);
    extra.push(("baton/turns/extra.jsonl".into(), b"{}\n".to_vec()));
    let mut escaping = ordered(&files);
    escaping.push(("../../home/.bashrc".into(), b"echo hi\n".to_vec()));
    let mut no_manifest = files.clone();
    no_manifest.remove("manifest.json");
    let mut short = files.clone();
    short.remove("baton/journal.jsonl");
    let mut unsafe_listed = manifest.clone();
    unsafe_listed["files"][0]["path"] = "/etc/baton/journal.jsonl".into();
    let mut listed_unsafe = files.clone();
    listed_unsafe.insert(
        "manifest.json".into(),
        serde_json::to_vec(&unsafe_listed).unwrap(),
    );

    // A whole archive (digests and sizes right) whose journal titles a conversation with a
    // direction-changing character, which `baton rename` refuses.
    let mut titled = files.clone();
    let mut resealed = manifest.clone();
    let line = "{\"at\":\"2026-12-01T00:00:00.000Z\",\"type\":\"conversation_titled\",\"conversation_id\":\"c\",\"title\":\"evil\u{202e}txt.exe\"}\n";
    titled
        .get_mut("baton/journal.jsonl")
        .unwrap()
        .extend_from_slice(line.as_bytes());
    let sealed = &titled["baton/journal.jsonl"];
    for f in resealed["files"].as_array_mut().unwrap() {
        if f["path"] == "baton/journal.jsonl" {
            f["sha256"] = sha256(sealed).into();
            f["size"] = sealed.len().into();
        }
    }
    titled.insert(
        "manifest.json".into(),
        serde_json::to_vec(&resealed).unwrap(),
    );

    let cases = [
        (
            case("titled", ordered(&titled)),
            "holds a title baton does not accept".to_string(),
        ),
        (
            case("flipped", ordered(&flipped)),
            "baton/journal.jsonl does not match its SHA-256".to_string(),
        ),
        (
            case("digest", ordered(&digest_edited)),
            format!("{second} does not match its SHA-256"),
        ),
        (
            case("extra", extra),
            "baton/turns/extra.jsonl, which manifest.json does not list".into(),
        ),
        (case("escaping", escaping), "../../home/.bashrc".into()),
        (
            case("no-manifest", ordered(&no_manifest)),
            "no manifest.json".into(),
        ),
        (
            case("short", ordered(&short)),
            "baton/journal.jsonl is listed in manifest.json but not in the archive".into(),
        ),
        (
            case("unsafe", ordered(&listed_unsafe)),
            "/etc/baton/journal.jsonl".into(),
        ),
    ];
    for (zip, needle) in &cases {
        refused(&w2, &["import", zip.to_str().unwrap()], needle);
    }
    let not_zip = bad.join("notes.txt");
    std::fs::write(&not_zip, "not a zip").unwrap();
    refused(
        &w2,
        &["import", not_zip.to_str().unwrap()],
        "is not a zip archive",
    );
    refused(
        &w2,
        &["import", bad.join("gone.zip").to_str().unwrap()],
        "cannot open",
    );
    refused(
        &w2,
        &["import", zip.to_str().unwrap(), "--name", "a/b"],
        "invalid terminal name",
    );
    refused(
        &w2,
        &[
            "import",
            zip.to_str().unwrap(),
            "--dir",
            bad.join("nowhere").to_str().unwrap(),
        ],
        "--dir",
    );
    // Nothing was written: no terminal, no CLI file, no checkout.
    assert_eq!(w2.json(&["ls"]), serde_json::json!([]));
    assert!(!w2.home().join(".claude").exists());
    let terminals = w2.data().join("terminals");
    assert_eq!(std::fs::read_dir(&terminals).unwrap().count(), 0);
    assert!(!w2.data().join("imported").exists());
    assert!(!w2.data().join("worktrees").exists());
}

#[test]
fn a_taken_name_needs_another_and_a_folder_terminal_opens_without_a_repository() {
    let w = World::new();
    two_turns(&w, "api", "claude");
    let zip = w.json(&["export", "api"])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let w2 = World::new();
    w2.new_terminal("api", "claude");
    refused(&w2, &["import", &zip], "--name");
    assert_eq!(w2.json(&["ls"]).as_array().unwrap().len(), 1);

    // No repository at hand: a plain folder terminal in a fresh folder, and it says so.
    let imp = w2.json(&["import", &zip, "--name", "api-b"]);
    assert_eq!(imp["name"], "api-b");
    assert_eq!(imp["mode"], "folder");
    assert_eq!(imp["branch"], Value::Null);
    let notes = imp["notes"].to_string();
    assert!(notes.contains("plain folder"), "{notes}");
    let dir = PathBuf::from(imp["dir"].as_str().unwrap());
    assert!(dir.is_dir() && dir.starts_with(w2.data().join("imported")));
    assert_eq!(w2.show("api-b")["dir"], imp["dir"]);
    // A plain folder given as --dir is used as it is.
    let w3 = World::new();
    let plain = w3.project("plain");
    let imp = w3.json(&["import", &zip, "--dir", plain.to_str().unwrap()]);
    assert_eq!(imp["mode"], "folder");
    assert_eq!(PathBuf::from(imp["dir"].as_str().unwrap()), plain);
    assert!(imp["notes"].to_string().contains("not a git repository"));
    let sid = session_of(&w, "api");
    w3.send("api", "third, in the folder");
    assert_eq!(
        flag(&w3.last_invocation()["argv"], "--resume"),
        Some(sid.as_str())
    );
}

#[test]
fn a_session_file_missing_at_export_is_a_warning_and_the_import_starts_a_fresh_session() {
    let w = World::new();
    w.new_terminal("api", "claude");
    w.send("api", "first");
    w.send("api", "second");
    let sid = session_of(&w, "api");
    for f in read_dir_files(&w.home().join(".claude").join("projects")) {
        if f.to_string_lossy().ends_with(&format!("{sid}.jsonl")) {
            std::fs::remove_file(f).unwrap();
        }
    }
    let out = w.run(&["export", "api"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("warning: claude session"), "{stdout}");
    let zip = stdout.lines().next().unwrap().to_string();
    let (manifest, _) = checked_manifest(Path::new(&zip));
    assert_eq!(manifest["missing"].as_array().unwrap().len(), 1);
    assert_eq!(manifest["sessions"][0]["file"], Value::Null);

    let w2 = World::new();
    let imp = w2.json(&["import", &zip]);
    assert_eq!(imp["sessions"][0]["placed"], Value::Null);
    let conversation = w2.show("api")["conversation"]["id"].clone();
    let (_, err) = w2.send("api", "third");
    assert!(err.contains("new session (the old one is gone)"), "{err}");
    let inv = w2.last_invocation();
    assert_eq!(flag(&inv["argv"], "--resume"), None);
    assert_ne!(session_of(&w2, "api"), sid);
    assert_eq!(w2.show("api")["conversation"]["id"], conversation);
}

#[test]
fn an_export_while_a_turn_runs_is_consistent_and_imports_it_interrupted_with_its_input_withdrawn() {
    let w = World::new();
    w.new_terminal("t", "claude");
    w.send("t", "first");
    let client = w.spawn(&["send", "t", "long job [[hang]]"]);
    w.wait_for("the turn to run", || {
        w.show("t")["state"] == "running" && w.invocations().len() == 2
    });
    w.ok(&["send", "t", "queued behind it", "--detach"]);
    let before = journal(&w, "t");
    let zip = w.json(&["export", "t"])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, files) = checked_manifest(Path::new(&zip));
    let exported = &files["baton/journal.jsonl"];
    assert!(exported.ends_with(b"\n"));
    for line in String::from_utf8_lossy(exported).lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert!(before.starts_with(exported) || exported.starts_with(&before));
    w.ok(&["interrupt", "t"]);
    let _ = client.wait_with_output();

    let w2 = World::new();
    let imp = w2.json(&["import", &zip]);
    let notes = imp["notes"].to_string();
    assert!(notes.contains("turn 2 was still running"), "{notes}");
    assert!(notes.contains("queued behind it"), "{notes}");
    let log = w2.json(&["log", "t"]);
    let turns = log["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[1]["status"], "interrupted");
    assert_eq!(w2.show("t")["queued"], 0);
    // Nothing ran by itself, even after a server restart.
    w2.ok(&["server", "stop"]);
    w2.ok(&["server", "start"]);
    assert_eq!(w2.json(&["log", "t"])["turns"].as_array().unwrap().len(), 2);
    assert!(w2.invocations().is_empty());
    w2.send("t", "carry on");
    assert_eq!(w2.json(&["log", "t"])["turns"].as_array().unwrap().len(), 3);
}

#[test]
fn export_refuses_an_unknown_terminal_a_missing_out_folder_and_missing_baton_data() {
    let w = World::new();
    refused(&w, &["export", "nope"], "no terminal named");
    w.new_terminal("api", "claude");
    let gone = w.tmp.path().join("gone");
    refused(
        &w,
        &["export", "api", "--out", gone.to_str().unwrap()],
        "--out",
    );
    assert!(!gone.exists());
    assert!(!w.data().join("exports").exists());

    // Baton's own data missing: the export fails and leaves no zip behind.
    w.send("api", "first");
    let id = w.show("api")["id"].as_str().unwrap().to_string();
    let turns = w.data().join("terminals").join(&id).join("turns");
    for f in read_dir_files(&turns) {
        std::fs::remove_file(f).unwrap();
    }
    let before = journal(&w, "api");
    let out = w.run(&["export", "api"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("turn 1's raw stream") && err.contains("missing"),
        "{err}"
    );
    assert_eq!(
        read_dir_files(&w.data().join("exports")),
        Vec::<PathBuf>::new()
    );
    assert_eq!(journal(&w, "api"), before);
}

#[test]
fn a_codex_forks_export_carries_the_rollout_its_thread_builds_on() {
    let w = World::new();
    w.exec_only();
    let repo = two_turns(&w, "cx", "codex");
    let original = session_of(&w, "cx");
    w.json(&["fork", "cx", "cx-2"]);
    w.send("cx-2", "in the fork");
    let fork = session_of(&w, "cx-2");
    let zip = w.json(&["export", "cx-2"])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let (manifest, _) = checked_manifest(Path::new(&zip));
    let ids: Vec<&str> = manifest["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&fork.as_str()) && ids.contains(&original.as_str()),
        "{ids:?}"
    );

    let w2 = World::new();
    w2.exec_only();
    let imp = import_clone(&w2, &repo, &zip, "clone");
    for s in imp["sessions"].as_array().unwrap() {
        assert!(Path::new(s["placed"].as_str().unwrap()).is_file(), "{s}");
    }
    w2.send("cx-2", "still in the fork");
    let argv = w2.last_invocation()["argv"].to_string();
    assert!(argv.contains(&format!("\"resume\",\"{fork}\"")), "{argv}");
}

#[test]
fn a_codex_original_and_its_fork_both_move_the_original_first() {
    let w = World::new();
    w.exec_only();
    let repo = two_turns(&w, "cx", "codex");
    let original = session_of(&w, "cx");
    w.json(&["fork", "cx", "cx-2"]);
    w.send("cx-2", "in the fork");
    w.send("cx", "in the original, after the fork");
    let export = |name: &str| {
        w.json(&["export", name])["path"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (zip, zip_fork) = (export("cx"), export("cx-2"));

    // The original first: its rollout is re-pointed at its new checkout; the fork's import
    // keeps that rollout as the base it builds on, and says so.
    let w2 = World::new();
    w2.exec_only();
    import_clone(&w2, &repo, &zip, "clone");
    let imp = w2.json(&["import", &zip_fork]);
    let notes = imp["notes"].to_string();
    assert!(
        notes.contains(&format!("thread {original}")) && notes.contains("kept as it is"),
        "{imp}"
    );
    w2.send("cx-2", "still in the fork");
    let fork = session_of(&w2, "cx-2");
    let argv = w2.last_invocation()["argv"].to_string();
    assert!(argv.contains(&format!("\"resume\",\"{fork}\"")), "{argv}");
    w2.send("cx", "still in the original");
    let argv = w2.last_invocation()["argv"].to_string();
    assert!(
        argv.contains(&format!("\"resume\",\"{original}\"")),
        "{argv}"
    );

    // The fork first: the original's import is refused, saying what to do, and changes nothing.
    let w3 = World::new();
    w3.json(&["import", &zip_fork]);
    let before = read_dir_files(&w3.codex_home());
    refused(&w3, &["import", &zip], "must be imported before its forks");
    assert_eq!(read_dir_files(&w3.codex_home()), before);
    assert_eq!(w3.json(&["ls"]).as_array().unwrap().len(), 1);
}

#[test]
fn a_terminal_moved_twice_still_resumes_its_session_and_an_archived_one_is_shown() {
    let w = World::new();
    let repo = two_turns(&w, "api", "claude");
    let sid = session_of(&w, "api");
    w.ok(&["archive", "api"]);
    let zip = w.json(&["export", "api"])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let w2 = World::new();
    let imp = import_clone(&w2, &repo, &zip, "second");
    assert!(imp["notes"].to_string().contains("was archived"), "{imp}");
    assert_eq!(w2.json(&["ls"]).as_array().unwrap().len(), 1);
    w2.send("api", "third, on the second machine [[write:second.txt]]");
    let zip2 = w2.json(&["export", "api"])["path"]
        .as_str()
        .unwrap()
        .to_string();

    let w3 = World::new();
    let imp = import_clone(&w3, &repo, &zip2, "third");
    // The second machine's commit never reached this clone: it starts at the exported branch
    // as the clone has it (turn 1's file is there), and says so.
    let notes = imp["notes"].to_string();
    assert!(
        notes.contains("is not in") && notes.contains("origin/baton/api"),
        "{notes}"
    );
    let dir = imp["dir"].as_str().unwrap().to_string();
    assert!(Path::new(&dir).join("notes.txt").exists());
    w3.send("api", "fourth, on the third machine");
    let inv = w3.last_invocation();
    assert_eq!(flag(&inv["argv"], "--resume"), Some(sid.as_str()));
    assert_eq!(inv["cwd"].as_str(), Some(dir.as_str()));
    let system = system_text(&inv).unwrap();
    assert!(system.contains(&format!("{dir}.")), "{system}");
    assert_eq!(system.matches("carried over").count(), 1, "{system}");
    let show = w3.show("api");
    assert_eq!(show["conversation"]["number"], 1);
    assert_eq!(show["turns"], 4);

    // A repository that has neither the commit nor the branch: its HEAD, and a note.
    let w4 = World::new();
    let other = super::common::repo(&w4, "unrelated");
    let imp = w4.json(&["import", &zip2, "--dir", other.to_str().unwrap()]);
    let notes = imp["notes"].to_string();
    assert!(notes.contains("nor the branch baton/api"), "{notes}");
    assert!(notes.contains("HEAD"), "{notes}");
    assert_eq!(imp["branch"], "baton/api");
}

#[test]
fn exports_taken_while_a_turn_streams_hold_only_whole_lines() {
    let mut w = World::new();
    w.env.push(("BATON_SHIM_DELAY_MS".into(), "30".into()));
    w.new_terminal("t", "claude");
    w.ok(&["send", "t", "stream a while [[calls:4]]", "--detach"]);
    w.wait_for("the turn to run", || w.show("t")["state"] == "running");
    let mut taken = 0;
    while w.show("t")["state"] == "running" || taken == 0 {
        let zip = w.json(&["export", "t"])["path"]
            .as_str()
            .unwrap()
            .to_string();
        let (_, files) = checked_manifest(Path::new(&zip));
        for (name, bytes) in files.iter().filter(|(n, _)| n.ends_with(".jsonl")) {
            assert!(bytes.is_empty() || bytes.ends_with(b"\n"), "{name}");
            for line in String::from_utf8_lossy(bytes).lines() {
                serde_json::from_str::<Value>(line)
                    .unwrap_or_else(|e| panic!("{name}: {e}: {line}"));
            }
        }
        taken += 1;
    }
    assert!(taken >= 1);
}

#[test]
fn a_claude_fork_that_never_ran_forks_its_originals_session_on_the_new_machine() {
    let w = World::new();
    let repo = two_turns(&w, "api", "claude");
    let original = session_of(&w, "api");
    w.json(&["fork", "api", "api-2"]);
    let zip = w.json(&["export", "api-2"])["path"]
        .as_str()
        .unwrap()
        .to_string();
    let w2 = World::new();
    let imp = import_clone(&w2, &repo, &zip, "clone");
    assert_eq!(imp["sessions"][0]["session_id"], original.as_str(), "{imp}");
    let new_dir = imp["dir"].as_str().unwrap().to_string();
    w2.send("api-2", "first in the fork, elsewhere");
    let inv = w2.last_invocation();
    assert_eq!(flag(&inv["argv"], "--resume"), Some(original.as_str()));
    assert!(has_arg(&inv["argv"], "--fork-session"), "{inv}");
    assert_eq!(inv["cwd"].as_str(), Some(new_dir.as_str()));
    let forked = session_of(&w2, "api-2");
    let file = read_dir_files(&w2.home().join(".claude").join("projects"))
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(&format!("{forked}.jsonl")))
        .expect("the fork's session file");
    let text = std::fs::read_to_string(file).unwrap();
    assert!(
        text.contains("first: add notes"),
        "the fork keeps the history"
    );
    let snapshots: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"prompt_snapshot\""))
        .collect();
    assert!(!snapshots.is_empty(), "{text}");
    for line in snapshots {
        assert!(line.contains(&new_dir), "{line}");
    }
}
