//! Writes every ModApte document of the shipped Reuters-21578 corpus (title + body) to its
//! own file, `OUT/<newid>.txt`, so that batch classification of a folder of Reuters-sized
//! documents can be timed:
//!
//! ```sh
//! cargo run --release --example reuters_files -- /tmp/reuters-docs
//! rosenblatt classify -m reuters.model /tmp/reuters-docs > /dev/null
//! ```

use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: reuters_files OUT_DIR")?,
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/reuters21578");
    let corpus = rosenblatt::input::read_reuters(&root, None)?;
    std::fs::create_dir_all(&out)?;
    let mut bytes = 0;
    for d in &corpus.docs {
        std::fs::write(out.join(format!("{}.txt", d.id)), &d.text)?;
        bytes += d.text.len();
    }
    println!(
        "{} documents, {} bytes, in {}",
        corpus.docs.len(),
        bytes,
        out.display()
    );
    Ok(())
}
