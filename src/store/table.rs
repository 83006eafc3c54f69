//! The features table in its two layouts: words as byte keys (table `words`), or hashed
//! ids as native 4-byte integers compared as integers (table `ids`: LMDB's integer keys,
//! cheaper to search than bytes and iterated in id order).

use heed::types::Bytes;
use heed::{Database, Env, IntegerComparator, RoTxn, RwTxn};

/// The features table of one store.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Table {
    /// Keyed by word.
    Words(Database<Bytes, Bytes>),
    /// Keyed by hashed id.
    Ids(Database<Bytes, Bytes, IntegerComparator>),
}

/// The name of the words table.
const WORDS: &str = "words";
/// The name of the ids table.
const IDS: &str = "ids";

impl Table {
    /// Creates the table of a hashed space (`hashed`) or of a vocabulary of words.
    pub(crate) fn create(env: &Env, txn: &mut RwTxn, hashed: bool) -> heed::Result<Table> {
        let mut options = env.database_options().types::<Bytes, Bytes>();
        Ok(if hashed {
            Table::Ids(
                options
                    .key_comparator::<IntegerComparator>()
                    .name(IDS)
                    .create(txn)?,
            )
        } else {
            Table::Words(options.name(WORDS).create(txn)?)
        })
    }

    /// The store's table, `None` when it has neither (no store of ours).
    pub(crate) fn open(env: &Env, txn: &RoTxn) -> heed::Result<Option<Table>> {
        let options = || env.database_options().types::<Bytes, Bytes>();
        if let Some(db) = options().name(WORDS).open(txn)? {
            return Ok(Some(Table::Words(db)));
        }
        let ids = options()
            .key_comparator::<IntegerComparator>()
            .name(IDS)
            .open(txn)?;
        Ok(ids.map(Table::Ids))
    }

    /// The value of `key`.
    pub(crate) fn get<'t>(&self, txn: &'t RoTxn, key: &[u8]) -> heed::Result<Option<&'t [u8]>> {
        match self {
            Table::Words(db) => db.get(txn, key),
            Table::Ids(db) => db.get(txn, key),
        }
    }

    /// Sets the value of `key`.
    pub(crate) fn put(&self, txn: &mut RwTxn, key: &[u8], value: &[u8]) -> heed::Result<()> {
        match self {
            Table::Words(db) => db.put(txn, key, value),
            Table::Ids(db) => db.put(txn, key, value),
        }
    }

    /// Calls `f` with every entry in key order, stopping at its first error; LMDB's
    /// errors become crate errors through `lmdb`.
    pub(crate) fn each(
        &self,
        txn: &RoTxn,
        lmdb: impl Fn(heed::Error) -> crate::Error,
        mut f: impl FnMut(&[u8], &[u8]) -> crate::Result<()>,
    ) -> crate::Result<()> {
        match self {
            Table::Words(db) => {
                for entry in db.iter(txn).map_err(&lmdb)? {
                    let (k, v) = entry.map_err(&lmdb)?;
                    f(k, v)?;
                }
            }
            Table::Ids(db) => {
                for entry in db.iter(txn).map_err(&lmdb)? {
                    let (k, v) = entry.map_err(&lmdb)?;
                    f(k, v)?;
                }
            }
        }
        Ok(())
    }

    /// How many entries.
    #[cfg(test)]
    pub(crate) fn len(&self, txn: &RoTxn) -> heed::Result<u64> {
        match self {
            Table::Words(db) => db.len(txn),
            Table::Ids(db) => db.len(txn),
        }
    }
}
