//! Rows written as SVMlight lines: 1-based ids, binary values as `:1`, real ones as
//! written by `Display`; the way out to LIBLINEAR, Vowpal Wabbit and scikit-learn.

use crate::features::SparseRows;
use std::io::Write;

/// Writes rows with their labels as SVMlight (1-based ids; binary values written as 1).
pub fn write_svmlight<X: SparseRows, W: Write>(
    x: &X,
    labels: &[String],
    out: &mut W,
) -> std::io::Result<()> {
    write_svmlight_with(x, |i| labels.get(i).map_or("0", String::as_str), out)
}

/// Writes rows as SVMlight, asking `label(i)` for row `i`'s label (so callers need not
/// hold one string per row).
pub fn write_svmlight_with<'a, X: SparseRows, W: Write>(
    x: &X,
    label: impl Fn(usize) -> &'a str,
    out: &mut W,
) -> std::io::Result<()> {
    let mut line: Vec<u8> = Vec::new();
    for i in 0..x.n_rows() {
        line.clear();
        line.extend_from_slice(label(i).as_bytes());
        let r = x.row(i);
        for (k, &j) in r.ids.iter().enumerate() {
            line.push(b' ');
            push_u64(&mut line, u64::from(j) + 1);
            if r.is_binary() {
                line.extend_from_slice(b":1");
            } else {
                use std::io::Write as _;
                let _ = write!(line, ":{}", r.value(k));
            }
        }
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[at..]);
}
