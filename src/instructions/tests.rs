//! Table tests for the instruction pipeline: skipping, the verbatim gate, merging, quoted
//! material, sentence cuts and the model answer parsing.

#[test]
fn patterns_compile() {
    assert!(super::cues::all_compile().is_ok());
}
