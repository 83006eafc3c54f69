//! A one-pass vectorizer's rows sent to disk as they are made, for corpora whose rows do
//! not fit in memory: after each batch the rows' ids (provisional, numbered as words
//! first appeared) go to an unnamed temporary file and the document frequencies are
//! counted; [`StreamVectorizer::finish_spilled`] then reads them back a chunk of rows at
//! a time, renumbers and prunes each chunk as [`StreamVectorizer::finish`] renumbers the
//! whole matrix, and writes the final rows to a [`RowCacheWriter`]. Memory holds the
//! vocabulary, 8 bytes a row of offsets and one chunk; the rows equal `finish`'s.

use super::{StreamVectorizer, dedup_rows, kept_vocabulary, rank_words};
use super::{renumber_parallel, renumber_pruning};
use crate::features::RowCacheWriter;
use crate::features::row_cache::le_bytes;
use crate::vocab::{VocabConfig, Vocabulary};
use crate::{Error, Result};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Rows renumbered at a time when the spilled rows are read back.
const CHUNK_ROWS: usize = 4096;

/// Where a vectorizer's provisional rows wait on disk.
#[derive(Debug)]
pub(crate) struct Spill {
    path: PathBuf,
    out: BufWriter<File>,
    /// Documents each provisional id occurs in.
    df: Vec<u32>,
    _remove: Remove,
}

impl Spill {
    /// A temporary file in `dir`, removed from the folder at once (it lives until closed)
    /// where the system allows, else when dropped.
    pub(crate) fn create(dir: &Path) -> Result<Spill> {
        let path = dir.join(format!(".rows.{}.spill.tmp", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        if cfg!(unix) {
            let _ = std::fs::remove_file(&path);
        }
        Ok(Spill {
            path: path.clone(),
            out: BufWriter::with_capacity(1 << 20, file),
            df: Vec::new(),
            _remove: Remove(path),
        })
    }

    fn write(&mut self, ids: &[u32]) -> Result<()> {
        for &j in ids {
            let j = j as usize;
            if j >= self.df.len() {
                self.df.resize(j + 1, 0);
            }
            self.df[j] += 1;
        }
        self.out
            .write_all(&le_bytes(ids))
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// Removes the temporary file where it could not be removed while open.
#[derive(Debug)]
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        if !cfg!(unix) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

impl StreamVectorizer {
    /// Sends the rows made since the last call to `spill` and frees their ids.
    pub(crate) fn spill(&mut self, spill: &mut Spill) -> Result<()> {
        if self.counts.counted() {
            return Err(Error::Unsupported(
                "a row cache keeps binary rows: term counts (--term-counts sublinear) are \
                 kept in memory only, without --cache"
                    .into(),
            ));
        }
        spill.write(&self.indices)?;
        self.spilled += self.indices.len();
        self.indices = Vec::new();
        Ok(())
    }

    /// [`finish`](StreamVectorizer::finish) for rows sent to `spill`: the vocabulary, and
    /// the final rows written to a new cache file at `path` (to be committed by the
    /// caller with its payload).
    pub(crate) fn finish_spilled(
        mut self,
        mut spill: Spill,
        config: &VocabConfig,
        path: &Path,
    ) -> Result<(Vocabulary, RowCacheWriter)> {
        self.spill(&mut spill)?;
        let spill_path = spill.path.clone();
        let io = |e| Error::io(&spill_path, e);
        let mut file = spill.out.into_inner().map_err(|e| io(e.into_error()))?;
        file.rewind().map_err(io)?;
        let mut input = BufReader::with_capacity(1 << 20, file);
        let indptr = std::mem::take(&mut self.indptr);
        let docs = (indptr.len() - 1) as u64;
        let hashing = self.analyzer.hashing();
        let mut df = spill.df;
        df.resize(self.words.len(), 0);
        let (new_id, width, order) = match hashing {
            Some(h) => (self.words.words().map(|w| h.id(w)).collect(), h.ids(), None),
            None => {
                let (order, new_id) = rank_words(&self.words, &df, config, docs);
                (new_id, order.len(), Some(order))
            }
        };
        let mut out = RowCacheWriter::create(path, width)?;
        let mut hashed_df = vec![0u32; if hashing.is_some() { width } else { 0 }];
        let mut bytes = Vec::new();
        for lo in (0..indptr.len() - 1).step_by(CHUNK_ROWS) {
            let hi = (lo + CHUNK_ROWS).min(indptr.len() - 1);
            let mut local: Vec<usize> = indptr[lo..=hi].iter().map(|&p| p - indptr[lo]).collect();
            bytes.resize(4 * local[local.len() - 1], 0);
            input.read_exact(&mut bytes).map_err(io)?;
            let mut ids: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect();
            if hashing.is_some() {
                renumber_parallel(&local, &mut ids, &new_id);
                dedup_rows(&mut local, &mut ids);
                for &j in &ids {
                    hashed_df[j as usize] += 1;
                }
            } else if width == self.words.len() {
                renumber_parallel(&local, &mut ids, &new_id);
            } else {
                renumber_pruning(&mut local, &mut ids, &new_id);
            }
            out.push_rows(&local, &ids)?;
        }
        let vocab = match (hashing, order) {
            (Some(h), _) => Vocabulary::from_hashed_df(h, hashed_df.into(), docs),
            (None, Some(order)) => kept_vocabulary(self.words, &order, df, docs),
            (None, None) => unreachable!("a vocabulary without hashing has its order"),
        };
        Ok((vocab, out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::SparseRows;
    use crate::input::Document;
    use crate::text::{Analyzer, Step};

    fn docs() -> Vec<Document> {
        (0..700)
            .map(|i| {
                let text = format!("w{} w{} common x{} y{}", i % 7, i % 13, i % 101, i % 3);
                Document::new(i.to_string(), text, Some("a"))
            })
            .collect()
    }

    fn compare(analyzer: Analyzer, config: VocabConfig) {
        let docs = docs();
        let dir = tempfile::tempdir().unwrap();
        let (mut whole, mut spilled) = (
            StreamVectorizer::new(analyzer.clone()),
            StreamVectorizer::new(analyzer),
        );
        let mut spill = Spill::create(dir.path()).unwrap();
        for batch in docs.chunks(93) {
            whole.push(batch);
            spilled.push(batch);
            spilled.spill(&mut spill).unwrap();
        }
        let (vocab, x) = whole.finish(&config);
        let path = dir.path().join("rows.cache");
        let (cached_vocab, out) = spilled.finish_spilled(spill, &config, &path).unwrap();
        let cache = out.commit(b"").unwrap();
        assert_eq!(cached_vocab.len(), vocab.len());
        for id in 0..vocab.len() as u32 {
            assert_eq!(cached_vocab.word(id), vocab.word(id));
            assert_eq!(cached_vocab.df(id), vocab.df(id));
        }
        assert_eq!((cache.n_rows(), cache.n_cols()), (x.rows(), x.cols()));
        for i in 0..x.rows() {
            assert_eq!(cache.row(i).ids, SparseRows::row(&x, i).ids, "row {i}");
        }
    }

    #[test]
    fn spilled_rows_equal_the_rows_held_in_memory() {
        compare(Analyzer::default(), VocabConfig::default());
    }

    #[test]
    fn spilled_rows_are_pruned_as_in_memory() {
        let config = VocabConfig {
            min_df: 60,
            ..VocabConfig::default()
        };
        compare(Analyzer::default(), config);
    }

    #[test]
    fn spilled_rows_are_hashed_as_in_memory() {
        let a = Analyzer::builder(crate::text::Source::Text)
            .step(Step::Words)
            .step(Step::Lowercase)
            .step(Step::Hash(4))
            .build()
            .unwrap();
        compare(a, VocabConfig::default());
    }
}
