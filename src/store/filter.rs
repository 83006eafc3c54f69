//! Classifying and learning on a store, one message's features at a time: the entries of
//! its tokens are read, laid out in id order as a model of those features alone, and
//! scored or stepped by the same code as a whole model (so the sums run in the same order
//! and the results are the same bit for bit); only those entries are written back.

use super::cache::RecordCache;
use super::header::Header;
use super::record::{Record, id_key, word_key};
use super::resident::Resident;
use super::writer::{self, WriterLock};
use super::{Store, lmdb_error};
use crate::features::Geometry;
use crate::incremental::{DocTokens, label_of};
use crate::input::Document;
use crate::learn::{ClassDecision, Classifier, LinearModel};
use crate::model::{Explanation, hashed_name, hashed_names};
use crate::text::{Analyzer, word_hash};
use crate::{Error, Result, RowRef};

/// The most tokens one transaction of a bulk learn takes (messages are not split): about
/// thirty mail messages, whose pages a transaction copies once each.
pub(crate) const TXN_TOKENS: usize = 8_192;

/// A read transaction on a store: every message it classifies sees the same committed
/// state, whatever `learn` commits meanwhile (and no `learn` waits for it). LMDB gives a
/// thread one transaction at a time: drop it before [`Store::learn`] in the same thread.
pub struct Snapshot<'s> {
    store: &'s Store,
    txn: heed::RoTxn<'s, heed::WithTls>,
    /// Keeps this process's maps where the transaction reads them.
    _maps: super::MapGuard,
    header: std::sync::Arc<Header>,
    /// The store's map, unmapped every so many lookups.
    pub(super) resident: Resident,
}

impl std::fmt::Debug for Snapshot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("store", &self.store.path)
            .field("learned", &self.header.meta.learned)
            .finish()
    }
}

/// What one `learn` did to a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLearned {
    /// Messages learned.
    pub messages: usize,
    /// Messages the rule took a step on.
    pub updates: u64,
    /// Words added to the vocabulary.
    pub new_words: u64,
    /// Messages the filter has learned since training, these included.
    pub learned: u64,
}

/// One feature of a message: its record and (in a vocabulary of words) its word, borrowed
/// from the message's tokens.
#[derive(Clone, Copy)]
struct Entry<'t> {
    record: Record,
    word: Option<&'t str>,
}

impl Entry<'_> {
    /// The feature's key in the store.
    fn key(&self) -> std::borrow::Cow<'_, [u8]> {
        match self.word {
            Some(w) => word_key(w),
            None => std::borrow::Cow::Owned(id_key(self.record.id).to_vec()),
        }
    }
}

/// One message's features in id order: known ones first, then the words a step adds
/// (with the next ids).
struct Features<'t> {
    entries: Vec<Entry<'t>>,
    /// Words of a vocabulary of words with no entry yet, in the tokens' order (sorted
    /// when learning).
    new_words: Vec<&'t str>,
}

impl<'t> Features<'t> {
    /// The message's entries as of `txn`.
    fn read(
        store: &Store,
        txn: &heed::RoTxn,
        h: &Header,
        tokens: &'t DocTokens,
        resident: &Resident,
        cache: Option<&RecordCache>,
    ) -> Result<Features<'t>> {
        let _watch = store.watch();
        let mut entries = Vec::with_capacity(tokens.len());
        let mut new_words = Vec::new();
        let mut lookups = 0;
        let mut remembered = cache.map(|c| c.reader(txn.id()));
        // Every key's line in the memory of records is read at once, before any key is
        // looked up; a word that is its own key keeps the hash it was gathered with.
        if let Some(c) = &remembered {
            match tokens {
                DocTokens::Words(words) => c.touch(words.hashes()),
                DocTokens::Hashed(ids) => c.touch(ids.iter().map(|&id| word_hash(&id_key(id)))),
            }
        }
        // The record under `key` (of hash `hash`): remembered, or read from the store (and
        // noted).
        let mut get = |hash: u64, key: &[u8]| -> Result<Option<Record>> {
            if let Some(found) = remembered.as_ref().and_then(|c| c.find(hash, key)) {
                return Ok(found);
            }
            lookups += 1;
            if lookups % Resident::EVERY == 0 {
                resident.release();
            }
            let found = match store
                .features
                .get(txn, key)
                .map_err(|e| lmdb_error(&store.path, e))?
            {
                None => None,
                Some(v) => {
                    let (r, _) =
                        Record::decode(v).ok_or_else(|| store.damaged(key, "is not a record"))?;
                    if let Some(why) = r.fault(h.ids()) {
                        return Err(store.damaged(key, &why));
                    }
                    Some(r)
                }
            };
            if let Some(c) = remembered.as_mut() {
                c.read(key, found);
            }
            Ok(found)
        };
        match tokens {
            DocTokens::Hashed(ids) => {
                for &id in ids.iter() {
                    let key = id_key(id);
                    let record = get(word_hash(&key), &key)?
                        .unwrap_or_else(|| Record::absent(id, h.absent_weight()));
                    if record.id != id {
                        return Err(store.damaged(&key, "is not the key of its id"));
                    }
                    entries.push(Entry { record, word: None });
                }
            }
            DocTokens::Words(words) => {
                for (word, hash) in words.iter().zip(words.hashes()) {
                    let key = word_key(word);
                    let hash = match &key {
                        std::borrow::Cow::Borrowed(_) => hash,
                        std::borrow::Cow::Owned(k) => word_hash(k),
                    };
                    match get(hash, &key)? {
                        Some(record) => entries.push(Entry {
                            record,
                            word: Some(word),
                        }),
                        None => new_words.push(word),
                    }
                }
                entries = in_id_order(entries);
                if let Some(pair) = entries
                    .windows(2)
                    .find(|p| p[0].record.id == p[1].record.id)
                {
                    let why = format!("shares id {} with another word", pair[1].record.id);
                    return Err(store.damaged(&pair[1].key(), &why));
                }
            }
        }
        if let Some(c) = remembered {
            c.done();
        }
        Ok(Features { entries, new_words })
    }

    /// The linear model of these features alone (feature k is the k-th record) and the
    /// geometry it reads them in.
    fn local(&self, h: &Header) -> (LinearModel, Geometry) {
        let m = LinearModel {
            w: self.entries.iter().map(|e| e.record.w).collect(),
            bias: h.bias,
        };
        let weights = match h.spec.weighting {
            crate::features::Weighting::Binary => Vec::new(),
            crate::features::Weighting::Idf | crate::features::Weighting::Nb { .. } => {
                self.entries.iter().map(|e| e.record.fw).collect()
            }
        };
        (m, Geometry::from_parts(h.spec, weights, h.unseen))
    }

    /// The row of all these features in the local model's ids.
    fn row(&self) -> Vec<u32> {
        (0..self.entries.len() as u32).collect()
    }

    /// w·x + b, as the whole model computes it.
    fn score(&self, h: &Header) -> f32 {
        let (m, g) = self.local(h);
        m.score(g.row(RowRef::binary(&self.row())))
    }
}

/// `entries` in id order, sorted as (id, place) words: moving a record and its word at
/// each step of the sort cost a thirtieth of a verdict.
fn in_id_order(entries: Vec<Entry<'_>>) -> Vec<Entry<'_>> {
    let mut order: Vec<u64> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| u64::from(e.record.id) << 32 | i as u64)
        .collect();
    order.sort_unstable();
    order.iter().map(|&k| entries[k as u32 as usize]).collect()
}

impl Store {
    /// A read transaction with the header as of now: classify any number of messages
    /// against it.
    pub fn snapshot(&self) -> Result<Snapshot<'_>> {
        let _watch = self.watch();
        let (txn, maps) = super::read_txn(&self.env).map_err(|e| lmdb_error(&self.path, e))?;
        let header = self.shared_header(&txn)?;
        Ok(Snapshot {
            store: self,
            txn,
            _maps: maps,
            header,
            resident: if self.keep_mapped.load(std::sync::atomic::Ordering::Relaxed) {
                Resident::default()
            } else {
                Resident::find(&self.path.join(super::DATA_FILE))
            },
        })
    }

    /// Learns `docs` as members of `class` by the filter's update rule: exactly what
    /// [`crate::incremental::learn_document`] does to the model, document after document.
    /// Messages are committed in transactions of at most 8,192 tokens (a
    /// message's own transaction when it holds more), so a bulk learn copies a bounded
    /// set of pages at a time and the pages freed by one transaction are reused by the
    /// next; other learners wait for the writer's lock between them (at most the store's
    /// lock timeout), readers never wait. An error stops the run at a transaction: it
    /// names how many messages were learned before it.
    pub fn learn(&self, docs: &[Document], class: &str) -> Result<StoreLearned> {
        // Reader slots of processes killed since the store was opened would keep old
        // pages from being reused.
        self.env
            .clear_stale_readers()
            .map_err(|e| lmdb_error(&self.path, e))?;
        // Tokenized before any transaction, which then holds the writer's lock for the
        // lookups and the steps alone.
        let tokens: Vec<DocTokens> = docs
            .iter()
            .map(|d| DocTokens::sorted(&self.analyzer, d))
            .collect();
        let mut done = StoreLearned {
            messages: 0,
            updates: 0,
            new_words: 0,
            learned: 0,
        };
        let mut rest = &tokens[..];
        while !rest.is_empty() {
            let mut count = 0;
            let take = rest
                .iter()
                .take_while(|t| {
                    count += t.len();
                    count <= TXN_TOKENS
                })
                .count()
                .max(1);
            let (batch, after) = rest.split_at(take);
            let l = self
                .learn_batch(batch, class)
                .map_err(|e| partly_learned(e, done.messages, docs.len()))?;
            done = StoreLearned {
                messages: done.messages + l.messages,
                updates: done.updates + l.updates,
                new_words: done.new_words + l.new_words,
                learned: l.learned,
            };
            rest = after;
        }
        Ok(done)
    }

    /// One transaction of [`Store::learn`], under the writer's lock, in a map grown to
    /// hold what it may write.
    fn learn_batch(&self, tokens: &[DocTokens], class: &str) -> Result<StoreLearned> {
        let lmdb = |e| lmdb_error(&self.path, e);
        let data = self.path.join(super::DATA_FILE);
        let _writer = WriterLock::take(&self.path, &data, self.lock_timeout, self.lock_file)?;
        let _watch = self.watch();
        // A transaction copies each page it changes once: at most one leaf page per token
        // and no more than the tree holds, with the upper pages and splits on top. Most
        // messages change few (the rule steps on some), so half of that is the first
        // guess; a transaction that finds the map full runs again in a larger one.
        let count: usize = tokens.iter().map(DocTokens::len).sum();
        let pages = self.env.info().last_page_number + 1;
        let mut needed = (count.min(pages) / 2 + count / 64 + 64) * 4096;
        loop {
            let room = super::make_room(&self.env, needed).map_err(lmdb)?;
            match self.learn_txn(tokens, class) {
                Err(e) if super::is_full(&e) && room => needed = needed.saturating_mul(2),
                r => return r,
            }
        }
    }

    /// The transaction of [`Store::learn`]; dropped (so aborted) on any error.
    fn learn_txn(&self, tokens: &[DocTokens], class: &str) -> Result<StoreLearned> {
        let lmdb = |e| lmdb_error(&self.path, e);
        let _maps = super::hold_maps();
        let mut txn = self.env.write_txn().map_err(lmdb)?;
        // LMDB starts a writer from the last commit its lock file records: a lock file made
        // anew while others wrote (lock.mdb removed) records an older one, and this
        // transaction would undo their commits. The data file's own newest commit decides.
        if txn.id() != self.env.info().last_txn_id + 1 {
            return Err(writer::replaced_lock_file(&self.path));
        }
        let mut h = self.header(&txn)?;
        let y = label_of(&h.classes, class)?;
        let (words_before, mut updates) = (h.features, 0);
        for t in tokens {
            updates += u64::from(self.learn_one(&mut txn, &mut h, t, y)?);
        }
        self.put_header(&mut txn, &h)?;
        txn.commit().map_err(lmdb)?;
        Ok(StoreLearned {
            messages: tokens.len(),
            updates,
            new_words: if h.analyzer.hashing().is_some() {
                0
            } else {
                h.features - words_before
            },
            learned: h.meta.learned,
        })
    }

    /// One document's tokens learned in `txn`; whether the rule took a step.
    fn learn_one(
        &self,
        txn: &mut heed::RwTxn,
        h: &mut Header,
        tokens: &DocTokens,
        y: f32,
    ) -> Result<bool> {
        let mut f = Features::read(self, txn, h, tokens, &Resident::default(), None)?;
        let score = f.score(h);
        h.meta.learned += 1;
        let mut state = h.online.take().unwrap_or_default();
        if !state.steps_at(y * score) {
            state.skip();
            h.online = Some(state);
            return Ok(false);
        }
        // New words take the next ids in sorted order, after every known one.
        for word in std::mem::take(&mut f.new_words) {
            let id = u32::try_from(h.features)
                .map_err(|_| self.damaged(word.as_bytes(), "would need an id past 2^32"))?;
            h.features += 1;
            f.entries.push(Entry {
                record: Record::absent(id, h.absent_weight()),
                word: Some(word),
            });
        }
        for e in &mut f.entries {
            e.record.df += 1;
        }
        h.documents += 1;
        let n = h.ids();
        if state.rule.adaptive() {
            h.sums = h.sums.max(n);
        }
        let (mut m, g) = f.local(h);
        state.sq_grads = f.entries.iter().map(|e| e.record.sq).collect();
        let updated = state.step(&mut m, g.row(RowRef::binary(&f.row())), y, score);
        for (k, e) in f.entries.iter_mut().enumerate() {
            e.record.w = m.w[k];
            if u64::from(e.record.id) < h.sums {
                e.record.sq = state.sq_grads[k];
            }
        }
        h.bias = m.bias;
        state.sq_grads = Default::default();
        h.online = Some(state);
        h.meta.report.updates += u64::from(updated);
        for e in &f.entries {
            self.features
                .put(txn, &e.key(), &e.record.encode(e.word))
                .map_err(|err| lmdb_error(&self.path, err))?;
        }
        Ok(updated)
    }
}

/// `e`, which stopped a learn of `total` messages after `n` of them were committed, saying
/// so when some were.
fn partly_learned(e: Error, n: usize, total: usize) -> Error {
    if n == 0 {
        return e;
    }
    let learned = format!("the first {n} of {total} messages were learned");
    match e {
        Error::Model { path, message } => Error::Model {
            path,
            message: format!("{message} ({learned})"),
        },
        Error::Io { path, error } => Error::io(
            path,
            std::io::Error::new(error.kind(), format!("{error} ({learned})")),
        ),
        e => e,
    }
}

impl Snapshot<'_> {
    /// How messages are read and tokenized (its source reads mail for a mail filter).
    pub fn analyzer(&self) -> &Analyzer {
        &self.header.analyzer
    }

    /// The two classes; `classes()[1]` is the positive one.
    pub fn classes(&self) -> &[String] {
        &self.header.classes
    }

    /// What the filter was trained on and has learned since (`learned`).
    pub fn meta(&self) -> &crate::model::Metadata {
        &self.header.meta
    }

    /// How many feature ids the filter's entries may take: its words so far, or 2^B in
    /// a hashed space.
    pub fn feature_ids(&self) -> u64 {
        self.header.ids()
    }

    /// P(`classes()[1]`) for a score, as [`crate::Model::probability`] gives it: the
    /// batch filter's calibration, or a logistic filter's own log-odds.
    pub fn probability(&self, score: f32) -> Option<f32> {
        let h = &self.header;
        crate::learn::probability(h.calibration.as_ref(), h.logistic, score)
    }

    /// The decision for `doc`, the same as the model's (`crate::Model::decide` on its
    /// row): its score w·x + b and the class it is above or below the threshold.
    pub fn decide(&self, doc: &Document) -> Result<ClassDecision> {
        let h = &self.header;
        let tokens = DocTokens::of(&h.analyzer, doc);
        let f = self.features(&tokens)?;
        let score = f.score(h);
        Ok(ClassDecision {
            class: usize::from(score > h.threshold),
            score,
        })
    }
}

impl Snapshot<'_> {
    /// The entries of a message's `tokens` as of this snapshot.
    fn features<'t>(&self, tokens: &'t DocTokens) -> Result<Features<'t>> {
        Features::read(
            self.store,
            &self.txn,
            &self.header,
            tokens,
            &self.resident,
            self.store.record_cache(),
        )
    }

    /// Why `doc` gets its verdict, as [`crate::Model::explain`] gives it for the model
    /// the store was made from: the message's entries, each record's weight times the
    /// row's value under the store's geometry, and the bias.
    pub fn explain(&self, doc: &Document) -> Result<Explanation> {
        self.explain_strongest(doc, usize::MAX)
    }

    /// [`Snapshot::explain`] with its `n` strongest features alone (a verdict's
    /// symbols): only those that can be among them are named.
    pub fn explain_strongest(&self, doc: &Document, n: usize) -> Result<Explanation> {
        let h = &self.header;
        let tokens = DocTokens::of(&h.analyzer, doc);
        let f = self.features(&tokens)?;
        let (m, g) = f.local(h);
        let ids = f.row();
        let row = g.row(RowRef::binary(&ids));
        let parts: Vec<(f32, f32)> = row
            .iter()
            .map(|(k, value)| (m.w[k as usize], value))
            .collect();
        let hashed = hashed_names(&h.analyzer, doc);
        let name = |i: usize| {
            let e = &f.entries[i];
            match (&e.word, &hashed) {
                (Some(w), _) => w.to_string(),
                (None, Some(names)) => hashed_name(names, e.record.id),
                (None, None) => format!("#{}", e.record.id),
            }
        };
        let score = m.score(row);
        let class = usize::from(score > h.threshold);
        Ok(Explanation::strongest(
            class, score, m.bias, &parts, n, name,
        ))
    }
}

impl crate::incremental::Filter for Snapshot<'_> {
    fn analyzer(&self) -> &Analyzer {
        Snapshot::analyzer(self)
    }

    fn classes(&self) -> &[String] {
        Snapshot::classes(self)
    }

    fn probability(&self, score: f32) -> Option<f32> {
        Snapshot::probability(self, score)
    }

    fn decide_documents(&self, docs: &[Document]) -> Result<Vec<ClassDecision>> {
        docs.iter().map(|d| self.decide(d)).collect()
    }

    fn threshold(&self) -> f32 {
        self.header.threshold
    }

    fn explain(&self, doc: &Document) -> Result<Explanation> {
        Snapshot::explain(self, doc)
    }

    fn explain_strongest(&self, doc: &Document, n: usize) -> Result<Explanation> {
        Snapshot::explain_strongest(self, doc, n)
    }
}
