//! An import never touches or hides what a data directory has, nor lets an archive name a
//! path: `--name` keeps the terminal that holds the exported name, an archive reusing ids of
//! terminals here or holding ids that are paths is refused, and an archive that unpacks past
//! the size limit is refused with nothing left behind (issue 39, faults 1, 4 and 7).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::common::*;
use super::exports::{members, sha256, write_zip};

/// Terminal `name` in world `w`, with one turn, exported: the zip's path.
fn exported(w: &World, name: &str) -> PathBuf {
    w.new_terminal(name, "claude");
    w.send(name, "first: add notes");
    PathBuf::from(w.json(&["export", name])["path"].as_str().unwrap())
}

/// The ids of `kind` (`turn_id`, `conversation_id`) a journal's `field_of` records hold.
fn ids_in(journal: &[u8], record: &str, field: &str) -> Vec<String> {
    String::from_utf8_lossy(journal)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == record)
        .map(|v| v[field].as_str().unwrap().to_string())
        .collect()
}

/// The names `ls` lists, sorted.
fn listed(w: &World) -> Vec<String> {
    let mut names = names_of(&w.json(&["ls"]));
    names.sort();
    names
}

fn journal_of(w: &World, name: &str) -> Vec<u8> {
    let id = w.show(name)["id"].as_str().unwrap().to_string();
    std::fs::read(w.data().join("terminals").join(id).join("journal.jsonl")).unwrap()
}

/// The archive `zip` with every `from` replaced by `to` in its journal and in its members'
/// names, the manifest resealed (sizes and digests of the changed members, renamed paths):
/// what someone crafting an archive does.
fn crafted(zip: &Path, out: &Path, from: &str, to: &str, drop_turns: bool) -> PathBuf {
    let edit = |journal: String| journal.replace(from, to);
    resealed(zip, out, edit, |p| p.replace(from, to), drop_turns)
}

/// The archive `zip` with its journal edited by `edit` and its members renamed by `rename`
/// (its turn streams left out with `drop_turns`), the manifest resealed.
fn resealed(
    zip: &Path,
    out: &Path,
    edit: impl Fn(String) -> String,
    rename: impl Fn(&str) -> String,
    drop_turns: bool,
) -> PathBuf {
    let files = members(zip);
    let mut manifest: Value = serde_json::from_slice(&files["manifest.json"]).unwrap();
    let mut changed: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (path, bytes) in &files {
        if path == "manifest.json" || (drop_turns && path.starts_with("baton/turns/")) {
            continue;
        }
        let bytes = if path == "baton/journal.jsonl" {
            edit(String::from_utf8_lossy(bytes).into_owned()).into_bytes()
        } else {
            bytes.clone()
        };
        changed.insert(rename(path), bytes);
    }
    let listed = manifest["files"].as_array_mut().unwrap();
    listed.retain(|f| !(drop_turns && f["kind"] == "turn"));
    for f in listed.iter_mut() {
        let path = rename(f["path"].as_str().unwrap());
        let bytes = &changed[&path];
        f["path"] = path.clone().into();
        f["size"] = bytes.len().into();
        f["sha256"] = sha256(bytes).into();
    }
    let mut all = vec![(
        "manifest.json".to_string(),
        serde_json::to_vec(&manifest).unwrap(),
    )];
    all.extend(changed);
    write_zip(out, &all);
    out.to_path_buf()
}

#[test]
fn import_name_keeps_the_terminal_that_has_the_exported_name() {
    let w = World::new();
    let zip = exported(&w, "api");
    let w2 = World::new();
    w2.new_terminal("api", "claude");
    let id = w2.show("api")["id"].clone();
    w2.ok(&["import", zip.to_str().unwrap(), "--name", "api2"]);
    assert_eq!(listed(&w2), ["api", "api2"]);
    assert_eq!(w2.show("api")["id"], id);
    w2.send("api", "still here");
    // A rebuild reads the journals in its own order: the same two terminals.
    w2.ok(&["reindex"]);
    assert_eq!(listed(&w2), ["api", "api2"]);
    assert_eq!(w2.show("api")["id"], id);
    assert_eq!(w2.show("api")["turns"], 1);
}

#[test]
fn an_archive_reusing_turn_or_conversation_ids_of_a_terminal_here_is_refused() {
    let w = World::new();
    let zip = exported(&w, "api");
    let theirs = members(&zip)["baton/journal.jsonl"].clone();
    let w2 = World::new();
    w2.new_terminal("web", "claude");
    w2.send("web", "web's own turn");
    let before = w2.show("web");
    let ours = journal_of(&w2, "web");
    let out = w2.project("crafted");
    for (record, field, word) in [
        ("turn_started", "turn_id", "turn"),
        ("conversation_opened", "conversation_id", "conversation"),
    ] {
        let from = &ids_in(&theirs, record, field)[0];
        let to = &ids_in(&ours, record, field)[0];
        let bad = crafted(&zip, &out.join(format!("{word}.zip")), from, to, false);
        refused(
            &w2,
            &["import", bad.to_str().unwrap(), "--name", "api2"],
            &format!("reuses the {word} id {to} that terminal web has here"),
        );
    }
    // A second creation, of web's id: the index would replace web's row with it.
    let web = before["id"].as_str().unwrap();
    let creation = ours.split(|b| *b == b'\n').next().unwrap();
    let creation = String::from_utf8_lossy(creation).into_owned();
    let bad = resealed(
        &zip,
        &out.join("terminal.zip"),
        |j| format!("{j}{creation}\n"),
        str::to_string,
        false,
    );
    refused(
        &w2,
        &["import", bad.to_str().unwrap(), "--name", "api2"],
        &format!("its journal creates terminal {web} besides"),
    );
    assert_eq!(listed(&w2), ["web"]);
    assert_eq!(w2.show("web"), before);
    assert_eq!(
        std::fs::read_dir(w2.data().join("terminals"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn an_archive_whose_journal_makes_a_turn_id_of_a_path_is_refused() {
    let w = World::new();
    let zip = exported(&w, "api");
    let journal = members(&zip)["baton/journal.jsonl"].clone();
    let turn = &ids_in(&journal, "turn_started", "turn_id")[0];
    let w2 = World::new();
    // The file a later export would have packed.
    std::fs::create_dir_all(w2.home().join(".claude")).unwrap();
    std::fs::write(w2.home().join(".claude/history.jsonl"), "secret\n").unwrap();
    let escape = "../../../../../.claude/history";
    let bad = crafted(
        &zip,
        &w2.project("crafted").join("bad.zip"),
        turn,
        escape,
        true,
    );
    refused(
        &w2,
        &["import", bad.to_str().unwrap()],
        "holds the turn id \"../../../../../.claude/history\"",
    );
    assert_eq!(w2.json(&["ls"]), serde_json::json!([]));
    assert_eq!(
        std::fs::read_dir(w2.data().join("terminals"))
            .unwrap()
            .count(),
        0
    );
}

/// Nothing of an import is left in world `w`: no terminal, no checkout, no unpacked member.
fn nothing_left(w: &World) {
    assert_eq!(w.json(&["ls"]), serde_json::json!([]));
    assert_eq!(
        std::fs::read_dir(w.data().join("terminals"))
            .unwrap()
            .count(),
        0
    );
    assert!(!w.data().join("imported").exists());
    let left: Vec<_> = std::fs::read_dir(w.data())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".import"))
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

#[test]
fn an_archive_that_unpacks_past_the_size_limit_is_refused_and_max_size_raises_it() {
    let w = World::new();
    let zip = exported(&w, "api");
    let mut files = members(&zip);
    let mut manifest: Value = serde_json::from_slice(&files["manifest.json"]).unwrap();
    // A 5 MiB turn stream, listed with its right size and digest, that deflates to a few KiB.
    let big = vec![b'\n'; 5 << 20];
    let path = "baton/turns/0199aaaa-0000-7000-8000-000000000001.jsonl";
    manifest["files"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "path": path, "kind": "turn", "size": big.len(), "sha256": sha256(&big),
        }));
    files.insert(path.into(), big);
    files.insert(
        "manifest.json".into(),
        serde_json::to_vec(&manifest).unwrap(),
    );
    let w2 = World::new();
    let bomb = w2.project("crafted").join("bomb.zip");
    write_zip(&bomb, &files.into_iter().collect::<Vec<_>>());
    assert!(std::fs::metadata(&bomb).unwrap().len() < 1 << 20);

    // What an import cut short by a server's death left: the next import clears it.
    let stale = w2.data().join(".import-1-0123");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("member-0"), "x").unwrap();

    let bomb = bomb.to_str().unwrap();
    refused(
        &w2,
        &["import", bomb, "--max-size", "4M"],
        "it unpacks to 6 MiB, more than the import limit of 4 MiB: pass --max-size 6M to import it",
    );
    nothing_left(&w2);
    // A member that is not what its manifest says, found while it is unpacked: nothing left.
    let mut bad = members(&zip);
    bad.insert(
        "baton/journal.jsonl".into(),
        b"{\"changed\":true}\n".to_vec(),
    );
    let bad_zip = w2.project("crafted").join("bad.zip");
    write_zip(&bad_zip, &bad.into_iter().collect::<Vec<_>>());
    refused(
        &w2,
        &["import", bad_zip.to_str().unwrap()],
        "journal.jsonl is",
    );
    nothing_left(&w2);

    let imp = w2.json(&["import", bomb, "--max-size", "6M"]);
    assert_eq!(imp["name"], "api");
    let turns = w2
        .data()
        .join("terminals")
        .join(imp["terminal_id"].as_str().unwrap())
        .join("turns");
    let kept = std::fs::metadata(turns.join("0199aaaa-0000-7000-8000-000000000001.jsonl"));
    assert_eq!(kept.unwrap().len(), 5 << 20);
}

#[test]
fn an_export_never_follows_a_turn_id_of_a_journal_out_of_its_folder() {
    let w = World::new();
    w.new_terminal("api", "claude");
    w.send("api", "first");
    let id = w.show("api")["id"].as_str().unwrap().to_string();
    let tdir = w.data().join("terminals").join(&id);
    // A journal an older import took as it was: a turn whose id climbs out of `turns/`.
    let escape = "../../../../../.claude/history";
    let outside = tdir
        .join("turns")
        .ancestors()
        .nth(5)
        .unwrap()
        .join(".claude");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("history.jsonl"), "secret\n").unwrap();
    let conversation = w.show("api")["conversation"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let line = serde_json::json!({
        "at": "2026-12-01T00:00:00.000Z", "type": "turn_started", "turn_id": escape,
        "number": 2, "conversation_id": conversation, "provider": "claude", "prompt": "x",
    });
    let mut journal = std::fs::OpenOptions::new()
        .append(true)
        .open(tdir.join("journal.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut journal, format!("{line}\n").as_bytes()).unwrap();
    w.ok(&["reindex"]);
    let zip = PathBuf::from(w.json(&["export", "api"])["path"].as_str().unwrap());
    let files = members(&zip);
    assert!(
        files.keys().all(|p| !p.contains("..")),
        "{:?}",
        files.keys()
    );
    assert!(files.values().all(|b| b.as_slice() != b"secret\n"));
}
