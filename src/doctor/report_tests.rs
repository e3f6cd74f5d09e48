//! Table tests of the doctor's report: statuses, counts, the exit code and the text grouping.

use super::*;
use pretty_assertions::assert_eq;

fn found(status: Status) -> Finding {
    Finding {
        check: Check::Index,
        status,
        subject: "index.db".into(),
        detail: "d".into(),
    }
}

fn view(statuses: &[Status]) -> DoctorView {
    DoctorView::new(
        "/d".into(),
        statuses.iter().map(|s| found(*s)).collect(),
        vec![],
        vec![],
    )
}

#[test]
fn the_exit_code_is_1_only_while_a_fault_is_left() {
    use Status::*;
    /// Findings → ok, exit code, (faults, fixed, notes).
    type Row<'a> = (&'a [Status], bool, i32, (usize, usize, usize));
    let rows: &[Row] = &[
        (&[], true, 0, (0, 0, 0)),
        (&[Ok, Ok], true, 0, (0, 0, 0)),
        (&[Ok, Note, Note], true, 0, (0, 0, 2)),
        (&[Fixed, Note], true, 0, (0, 1, 1)),
        (&[Fault], false, 1, (1, 0, 0)),
        (&[Fixed, Fault, Note], false, 1, (1, 1, 1)),
    ];
    for (statuses, ok, code, (faults, fixed, notes)) in rows {
        let v = view(statuses);
        assert_eq!(
            (v.ok, v.exit_code(), v.faults, v.fixed, v.notes),
            (*ok, *code, *faults, *fixed, *notes),
            "{statuses:?}"
        );
    }
}

#[test]
fn the_summary_says_what_is_left_and_what_to_do() {
    use Status::*;
    let rows: &[(&[Status], bool, &str)] = &[
        (&[Ok], false, "doctor: all is well: 0 faults, 0 notes"),
        (&[Note], true, "doctor: all is well: 0 faults, 1 note"),
        (&[Fixed, Fixed], true, "doctor: all is well: 0 faults, 2 fixed, 0 notes"),
        (
            &[Fault, Fault],
            false,
            "doctor: something is wrong: 2 faults, 0 notes (run `baton doctor --fix` to repair what it can)",
        ),
        (
            &[Fault, Fixed],
            true,
            "doctor: something is wrong: 1 fault, 1 fixed, 0 notes (the lines marked fault say what to do)",
        ),
    ];
    for (statuses, fix, want) in rows {
        assert_eq!(summary(&view(statuses), *fix), *want, "{statuses:?}");
    }
}

#[test]
fn sizes_read_as_people_write_them() {
    for (bytes, want) in [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.0 KiB"),
        (1536, "1.5 KiB"),
        (5 * 1024 * 1024, "5.0 MiB"),
    ] {
        assert_eq!(size(bytes), want);
    }
}

#[test]
fn text_groups_findings_by_check() {
    let perms = Finding {
        check: Check::Permissions,
        status: Status::Ok,
        subject: "/d".into(),
        detail: "4 entries checked".into(),
    };
    let disk = DiskUse {
        name: "api".into(),
        data_bytes: 2048,
        worktree_bytes: Some(1024 * 1024),
    };
    let v = DoctorView::new(
        "/d".into(),
        vec![perms, found(Status::Fault)],
        vec![disk],
        vec![],
    );
    assert_eq!(
        text(&v, false),
        "permissions\n  ok     /d: 4 entries checked\nindex\n  fault  index.db: d\ndisk\n  api: data 2.0 KiB, worktree 1.0 MiB\ndoctor: something is wrong: 1 fault, 0 notes (run `baton doctor --fix` to repair what it can)\n"
    );
}
