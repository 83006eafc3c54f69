//! A model written as a store, and a store read back as the same model: the two forms of
//! one filter, bit for bit.

use super::header::Header;
use super::record::{Record, id_key, key_id, key_word, word_key};
use super::{Store, lmdb_error, open_env};
use crate::features::Geometry;
use crate::learn::{AnyModel, LinearModel, OnlineState};
use crate::model::{FeatureSpace, Model, ModelParts, Predictor};
use crate::vocab::Vocabulary;
use crate::{Error, Result};
use heed::types::Bytes;
use std::path::{Path, PathBuf};

/// The linear model of a two-class text model, and whether it is logistic; the sentence
/// saying why a model cannot be a store otherwise.
fn linear(model: &Model) -> std::result::Result<(&LinearModel, bool), &'static str> {
    if let FeatureSpace::Indexed { .. } = model.features() {
        return Err("a store holds text models; this one was trained on feature vectors");
    }
    if model.term_counts().counted() {
        return Err(
            "a store reads a message's words once each; this model was trained on \
             term counts (--term-counts sublinear)",
        );
    }
    match model.predictor() {
        Predictor::Binary(AnyModel::Linear(m)) => Ok((m, false)),
        Predictor::Binary(AnyModel::Logistic(m)) => Ok((m, true)),
        _ => Err(
            "a store holds two-class linear models (the perceptron, averaged or margin \
             perceptron, pa, logistic, an online filter); this one is not",
        ),
    }
}

impl Store {
    /// Why `model` cannot be kept as a store, or `None` when it can: a caller names the
    /// model's own file with it before [`Store::create`] names the store's.
    pub fn refusal(model: &Model) -> Option<&'static str> {
        linear(model).err()
    }
}

/// The header of `model`: all of it but its per-feature values.
fn header_of(model: &Model, m: &LinearModel, logistic: bool) -> Header {
    let online = model.online().clone().map(|o| OnlineState {
        sq_grads: Default::default(),
        ..o
    });
    Header {
        analyzer: model.analyzer().clone(),
        spec: model.geometry().spec,
        unseen: model.geometry().unseen(),
        classes: model.classes().to_vec(),
        logistic,
        bias: m.bias,
        meta: model.meta().clone(),
        online,
        sums: model
            .online()
            .as_ref()
            .map_or(0, |o| o.sq_grads.len() as u64),
        threshold: model.threshold(),
        documents: model.vocab().documents(),
        features: model.vocab().len() as u64,
        calibration: model.calibration().copied(),
    }
}

/// A folder beside `path` to build the store in before it is renamed into place.
fn temporary(path: &Path) -> Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| Error::model(path, "a store needs a folder name"))?;
    let mut tmp = name.to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    Ok(path.with_file_name(tmp))
}

impl Store {
    /// Writes `model` as a new store at `path` and opens it. The store is built in a
    /// folder beside `path` and renamed into place, so `path` holds a whole store or
    /// nothing; an existing `path` is refused, and so is a model that is not a two-class
    /// linear text model.
    pub fn create(path: impl AsRef<Path>, model: &Model) -> Result<Store> {
        let path = path.as_ref();
        let (m, logistic) = linear(model).map_err(|why| Error::model(path, why))?;
        if path.symlink_metadata().is_ok() {
            return Err(Error::model(
                path,
                "already exists; a store is created new (remove it or choose another name)",
            ));
        }
        let tmp = temporary(path)?;
        // Folders of converts killed before their rename.
        if let (Some(dir), Some(name)) = (tmp.parent(), path.file_name()) {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            crate::atomic::remove_stale(dir, &format!("{}.tmp-", name.to_string_lossy()), "");
        }
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
        }
        std::fs::create_dir(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let written = write(&tmp, path, model, m, header_of(model, m, logistic));
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))?;
        Store::open(path)
    }

    /// The store as a model, the same bit for bit as the one it was created from after
    /// the same messages learned; checked as a loaded model file is.
    pub fn to_model(&self) -> Result<Model> {
        let _watch = self.watch();
        let lmdb = |e| lmdb_error(&self.path, e);
        let (txn, maps) = super::read_txn(&self.env).map_err(lmdb)?;
        let h = self.header(&txn)?;
        let hashing = h.analyzer.hashing();
        let n = match hashing {
            Some(b) => b.ids(),
            None => usize::try_from(h.features).unwrap_or(usize::MAX),
        };
        let sums = usize::try_from(h.sums).unwrap_or(usize::MAX);
        if n > crate::model::MAX_MODEL_BYTES as usize / 4 || sums > n {
            return Err(Error::model(
                &self.path,
                format!("damaged store: its header claims {n} features and {sums} sums"),
            ));
        }
        let idf = h.spec.weighting != crate::features::Weighting::Binary;
        let mut w = vec![0.0; n];
        let mut df = vec![0; n];
        let mut sq = vec![0.0; sums];
        let mut fw = if idf { vec![h.unseen; n] } else { Vec::new() };
        let mut words: Vec<Option<Box<str>>> = vec![None; if hashing.is_some() { 0 } else { n }];
        self.features.each(&txn, lmdb, |key, value| {
            let (r, tail) = Record::decode(value)
                .ok_or_else(|| self.damaged(key, "is not a feature record"))?;
            if let Some(why) = r.fault(n as u64) {
                return Err(self.damaged(key, &why));
            }
            let j = r.id as usize;
            if hashing.is_some() {
                if key_id(key) != Some(r.id) || !tail.is_empty() {
                    return Err(self.damaged(key, "is not the key of its id"));
                }
            } else {
                let word = key_word(key, tail).ok_or_else(|| self.damaged(key, "is no word"))?;
                if words[j].replace(word.into()).is_some() {
                    return Err(self.damaged(key, &format!("shares id {j} with another word")));
                }
            }
            (w[j], df[j]) = (r.w, r.df);
            if let Some(s) = sq.get_mut(j) {
                *s = r.sq;
            }
            if idf {
                fw[j] = r.fw;
            }
            Ok(())
        })?;
        // The transaction ends before its guard.
        drop(txn);
        drop(maps);
        let vocab = match hashing {
            Some(b) => Vocabulary::from_hashed_df(b, df.into(), h.documents),
            None => {
                let words: Option<Vec<Box<str>>> = words.into_iter().collect();
                let words = words.ok_or_else(|| {
                    Error::model(&self.path, "damaged store: some word ids have no entry")
                })?;
                Vocabulary::from_stored(words, df, h.documents)
                    .map_err(|m| Error::model(&self.path, format!("damaged store: {m}")))?
            }
        };
        let lm = LinearModel {
            w: w.into(),
            bias: h.bias,
        };
        Model::new(ModelParts {
            analyzer: h.analyzer,
            vocab,
            features: FeatureSpace::Text,
            geometry: Geometry::from_parts(h.spec, fw, h.unseen),
            classes: h.classes,
            predictor: Predictor::Binary(if h.logistic {
                AnyModel::Logistic(lm)
            } else {
                AnyModel::Linear(lm)
            }),
            meta: h.meta,
            online: h.online.map(|o| OnlineState {
                sq_grads: sq.into(),
                ..o
            }),
            threshold: h.threshold,
            calibration: h.calibration,
            term_counts: Default::default(),
            class_calibration: None,
        })
        .map_err(|e| Error::model(&self.path, format!("damaged store: {e}")))
    }
}

/// Writes the header and every feature of `model` into a new environment at `dir`,
/// flushed to the disk before it returns; errors name the store being made, `name`.
fn write(dir: &Path, name: &Path, model: &Model, m: &LinearModel, header: Header) -> Result<()> {
    let lmdb = |e| lmdb_error(name, e);
    let vocab = model.vocab();
    let sums = model
        .online()
        .as_ref()
        .map(|o| &o.sq_grads[..])
        .unwrap_or_default();
    let g = model.geometry();
    let records: Vec<Record> = (0..m.w.len())
        .map(|j| Record {
            id: j as u32,
            w: m.w[j],
            df: vocab.df(j as u32),
            sq: sums.get(j).copied().unwrap_or(0.0),
            fw: g.weight(j as u32),
        })
        // A hashed space keeps only the ids something reached.
        .filter(|r| vocab.hashing().is_none() || !r.is_absent(header.absent_weight()))
        .collect();
    // An entry is 34 bytes with LMDB's node and pointer, in pages about 3/4 full; a
    // larger map is tried when that is short (long words, the header).
    let mut needed = records.len() * 48 + (1 << 20);
    let env = open_env(dir, super::Access::Write, Some(super::first_map(needed)))?;
    loop {
        let room = super::make_room(&env, needed).map_err(lmdb)?;
        match fill(&env, name, vocab, &records, &header) {
            Err(e) if super::is_full(&e) && room => needed = needed.saturating_mul(2),
            r => break r?,
        }
    }
    env.force_sync().map_err(lmdb)?;
    env.prepare_for_closing().wait();
    Ok(())
}

/// Writes the header and `records` in one transaction.
fn fill(
    env: &heed::Env,
    name: &Path,
    vocab: &Vocabulary,
    records: &[Record],
    header: &Header,
) -> Result<()> {
    let lmdb = |e| lmdb_error(name, e);
    let _maps = super::hold_maps();
    let mut txn = env.write_txn().map_err(lmdb)?;
    let meta = env
        .create_database::<Bytes, Bytes>(&mut txn, Some("meta"))
        .map_err(lmdb)?;
    let features =
        super::table::Table::create(env, &mut txn, vocab.hashing().is_some()).map_err(lmdb)?;
    meta.put(&mut txn, super::HEADER_KEY, &header.encode()?)
        .map_err(lmdb)?;
    for r in records {
        if vocab.hashing().is_some() {
            features
                .put(&mut txn, &id_key(r.id), &r.encode(None))
                .map_err(lmdb)?;
        } else {
            let word = vocab.word(r.id);
            features
                .put(&mut txn, &word_key(word), &r.encode(Some(word)))
                .map_err(lmdb)?;
        }
    }
    txn.commit().map_err(lmdb)
}
