//! Reading and writing SVMlight files: known lines, errors with their line, round trips.

use super::*;

fn parse(s: &str) -> Result<SvmData> {
    parse_svmlight(s.as_bytes(), Path::new("t.svm"))
}

#[test]
fn binary_file_with_blank_lines_and_comments() {
    let d = parse("+1 3:1 1:1 # first\n\n# only a comment\n-1 2:1 qid:4\n-1\n").unwrap();
    assert_eq!(d.labels, ["1", "-1", "-1"]);
    assert_eq!(d.lines, [1, 4, 5]);
    let Rows::Binary(m) = &d.rows else {
        panic!("expected binary rows")
    };
    assert_eq!(m.row(0).ids, &[0, 2]);
    assert_eq!(m.row(1).ids, &[1]);
    assert!(m.row(2).ids.is_empty());
    assert_eq!(m.cols(), 3);
}

#[test]
fn real_values_and_round_trip() {
    let d = parse("2 1:0.5 4:-2\n0 2:1\n").unwrap();
    let Rows::Real(m) = &d.rows else {
        panic!("expected real rows")
    };
    assert_eq!(m.row(0).vals.unwrap(), &[0.5, -2.0]);
    let mut out = Vec::new();
    write_svmlight(m, &d.labels, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "2 1:0.5 4:-2\n0 2:1\n");
}

#[test]
fn classes_sort_numerically_with_the_positive_last() {
    let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        classes_of_labels(&l(&["1", "-1", "1"]), None).unwrap(),
        ["-1", "1"]
    );
    assert_eq!(
        classes_of_labels(&l(&["1", "-1"]), Some("-1")).unwrap(),
        ["1", "-1"]
    );
    assert_eq!(
        classes_of_labels(&l(&["10", "2", "1"]), None).unwrap(),
        ["1", "2", "10"]
    );
    assert_eq!(
        classes_of_labels(&l(&["b", "a", "10"]), None).unwrap(),
        ["10", "a", "b"]
    );
    assert!(classes_of_labels(&l(&["1", "1"]), None).is_err());
    assert!(classes_of_labels(&l(&["1", "2"]), Some("3")).is_err());
    assert_eq!(class_labels(&l(&["ham", "spam"])), ["-1", "+1"]);
    assert_eq!(class_labels(&l(&["3", "7", "10"])), ["3", "7", "10"]);
    // Classes whose names read as the same number keep apart.
    assert_eq!(class_labels(&l(&["01", "1", "2"])), ["1", "2", "3"]);
    assert_eq!(class_labels(&l(&["1", "1.0", "2"])), ["1", "2", "3"]);
    assert_eq!(class_labels(&l(&["acq", "crude", "earn"])), ["1", "2", "3"]);
}

#[test]
fn select_and_join_keep_rows_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.svm"), dir.path().join("b.svm"));
    std::fs::write(&a, "1 1:1 3:1\n-1 2:1\n").unwrap();
    std::fs::write(&b, "1 5:0.5\n").unwrap();
    let (d, ids) = read_svmlight_files(&[a.clone(), b.clone()]).unwrap();
    assert_eq!(d.labels, ["1", "-1", "1"]);
    assert_eq!(ids[2], format!("{}:1", b.display()));
    let Rows::Real(m) = &d.rows else {
        panic!("a real file makes the join real")
    };
    assert_eq!(m.cols(), 5);
    assert_eq!(m.row(0).ids, &[0, 2]);
    assert_eq!(m.row(0).vals.unwrap(), &[1.0, 1.0]);
    assert_eq!(m.row(2).ids, &[4]);
    let Rows::Real(s) = d.rows.select(&[2, 0]) else {
        panic!()
    };
    assert_eq!(s.row(0).vals.unwrap(), &[0.5]);
    assert_eq!(s.row(1).ids, &[0, 2]);
    let (d, _) = read_svmlight_files(&[a.clone(), a]).unwrap();
    let Rows::Binary(m) = &d.rows else { panic!() };
    assert_eq!((m.rows(), m.nnz(), m.row(2).ids), (4, 6, &[0u32, 2][..]));
}

#[test]
fn bad_lines_name_the_line() {
    for (text, msg) in [
        ("1 1:1\n1 0:1\n", ":2: bad feature id \"0\""),
        ("1 1:1\n1 a:1\n", ":2: bad feature id"),
        ("1 1:x\n", ":1: bad value"),
        ("1 2:1 2:1\n", ":1: feature id 2 appears twice"),
        ("1:1 2:1\n", ":1: expected a label first"),
        ("1 7\n", ":1: expected id:value"),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.starts_with("t.svm") && e.contains(msg), "{text:?}: {e}");
    }
}

#[test]
fn ids_above_the_limit_name_it_and_the_flag() {
    let e = parse("+1 1:1\n-1 3:1\n+1 16777217:1\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("t.svm:3: feature id 16777217 is above the limit of 16777216 features")
            && e.contains("--max-feature-id N"),
        "{e}"
    );
    let d = parse("+1 16777216:1\n").unwrap();
    assert_eq!(d.rows.n_cols(), 1 << 24);
    let d = parse_svmlight_limited(b"1 4294967295:1\n", Path::new("t.svm"), u32::MAX).unwrap();
    assert_eq!(d.rows.n_cols(), u32::MAX as usize);
    let e = parse_svmlight_limited(b"1 3:1\n", Path::new("t.svm"), 2)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(":1: feature id 3 is above the limit of 2 features"),
        "{e}"
    );
}

#[test]
fn ids_beyond_32_bits_say_so() {
    for id in ["4294967296", "99999999999999999999999"] {
        let e = parse_svmlight_limited(
            format!("1 {id}:1\n").as_bytes(),
            Path::new("t.svm"),
            u32::MAX,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(&format!(":1: feature id {id} is beyond the largest id"))
                && e.contains("4294967295 (2^32 - 1)"),
            "{e}"
        );
    }
}
