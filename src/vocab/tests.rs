//! The vocabulary's ids, document frequencies, pruning and serialized forms.

use super::*;

fn counts(docs: &[&[&str]]) -> DfCounts {
    let mut c = DfCounts::default();
    for d in docs {
        c.start_document();
        for w in *d {
            c.add(w);
        }
    }
    c
}

#[test]
fn df_counts_once_per_document_and_prunes() {
    let c = counts(&[
        &["free", "free", "money"],
        &["free", "call"],
        &["call", "now"],
    ]);
    let v = Vocabulary::from_counts(
        c,
        &VocabConfig {
            min_df: 2,
            max_features: None,
            singletons_from: None,
        },
    );
    assert_eq!(v.len(), 2);
    assert_eq!(v.word(0), "call"); // df 2, sorted by word among ties
    assert_eq!(v.word(1), "free");
    assert_eq!(v.df(v.get("free").unwrap()), 2);
    assert_eq!(v.get("money"), None);
    assert_eq!(v.documents(), 3);
}

#[test]
fn words_of_one_document_go_from_a_thousand_documents_on() {
    let cfg = VocabConfig::default();
    assert_eq!((cfg.min_df_for(999), cfg.min_df_for(1000)), (1, 2));
    let given = VocabConfig {
        min_df: 3,
        ..VocabConfig::default()
    };
    assert_eq!((given.min_df_for(10), given.min_df_for(5000)), (3, 3));
    assert_eq!(VocabConfig::every_word().min_df_for(1 << 40), 1);
    // 1,000 documents: "common" in all, "rare" in one, "pair" in two.
    let mut docs: Vec<Vec<&str>> = vec![vec!["common"]; 1000];
    docs[0].push("rare");
    docs[1].push("pair");
    docs[2].push("pair");
    let refs: Vec<&[&str]> = docs.iter().map(Vec::as_slice).collect();
    let v = Vocabulary::from_counts(counts(&refs), &cfg);
    let words: Vec<&str> = (0..v.len() as u32).map(|j| v.word(j)).collect();
    assert_eq!(words, ["common", "pair"]);
    // One document fewer: every word stays.
    let v = Vocabulary::from_counts(counts(&refs[..999]), &cfg);
    assert_eq!(v.len(), 3);
}

#[test]
fn merge_equals_single_count() {
    let a = counts(&[&["a", "b"], &["b"]]);
    let b = counts(&[&["b", "c"]]);
    let all = counts(&[&["a", "b"], &["b"], &["b", "c"]]);
    let cfg = VocabConfig {
        min_df: 1,
        max_features: Some(2),
        singletons_from: None,
    };
    let m = Vocabulary::from_counts(a.merge(b), &cfg);
    let s = Vocabulary::from_counts(all, &cfg);
    assert_eq!(
        m.table.words().collect::<Vec<_>>(),
        s.table.words().collect::<Vec<_>>()
    );
    assert_eq!(m.df, vec![3, 1]);
}

#[test]
fn add_document_keeps_ids_and_appends_new_words() {
    let mut v = Vocabulary::from_counts(
        counts(&[&["free", "call"], &["free"]]),
        &VocabConfig::default(),
    );
    assert_eq!((v.word(0), v.word(1)), ("free", "call"));
    let ids = v.add_document(["win", "free", "win", "cash"]);
    assert_eq!(ids, vec![0, 2, 3]);
    assert_eq!((v.word(2), v.word(3)), ("win", "cash"));
    assert_eq!((v.df(0), v.df(1), v.df(2)), (3, 1, 1));
    assert_eq!(v.get("cash"), Some(3));
    assert_eq!((v.len(), v.documents()), (4, 3));
}

#[test]
fn a_hashed_vocabulary_counts_df_per_id_and_names_ids() {
    let h = Hashing::new(4).unwrap();
    // "free" → 10 (see the hashing step's known ids); the others are whatever the
    // hash gives, the same in every build.
    let (free, call, money) = (h.id("free"), h.id("call"), h.id("money"));
    assert_eq!(free, 10);
    let mut c = DfCounts::new(Some(h));
    for d in [&["free", "free", "money"][..], &["free", "call"]] {
        c.start_document();
        for w in d {
            c.add(w);
        }
    }
    let mut v = Vocabulary::from_counts(c, &VocabConfig::default());
    assert_eq!((v.len(), v.documents(), v.hashing()), (16, 2, Some(h)));
    assert_eq!(v.get("free"), Some(10));
    assert_eq!(v.get("never seen"), Some(h.id("never seen")));
    let mut expect = [0u32; 16];
    for ids in [vec![free, money], vec![free, call]] {
        let mut ids = ids;
        ids.sort_unstable();
        ids.dedup();
        for j in ids {
            expect[j as usize] += 1;
        }
    }
    assert_eq!((0..16).map(|j| v.df(j)).collect::<Vec<_>>(), expect);
    assert_eq!((v.word(10), v.name(10).as_ref()), ("", "#10"));
    assert_eq!(v.describe(), "2^4 hashed ids");
    // Learning a document adds no id and counts it.
    let ids = v.add_document(["free", "brand new word"]);
    let mut want = vec![10, h.id("brand new word")];
    want.sort_unstable();
    want.dedup();
    assert_eq!(ids, want);
    assert_eq!((v.len(), v.documents(), v.df(10)), (16, 3, expect[10] + 1));
}

#[test]
fn a_stored_hashed_vocabulary_reads_back_and_a_bad_one_is_refused() {
    let cfg = bincode::config::standard();
    let mut v = Vocabulary::hashed(Hashing::new(3).unwrap());
    v.add_document(["a", "b"]);
    let bytes = bincode::serde::encode_to_vec(&v, cfg).unwrap();
    let (back, _): (Vocabulary, _) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
    assert_eq!(back.hashing(), v.hashing());
    assert_eq!(back.df, v.df);
    assert_eq!(back.documents(), 1);
    let words = Vocabulary::from_parts(vec!["a".into()], vec![1], 1);
    let bytes = bincode::serde::encode_to_vec(&words, cfg).unwrap();
    let (back, _): (Vocabulary, _) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
    assert_eq!((back.hashing(), back.len(), back.word(0)), (None, 1, "a"));
    let bad = VocabRepr {
        words: vec![],
        df: vec![0; 6],
        documents: 0,
    };
    let bytes = bincode::serde::encode_to_vec(&bad, cfg).unwrap();
    let err = bincode::serde::decode_from_slice::<Vocabulary, _>(&bytes, cfg).unwrap_err();
    assert!(err.to_string().contains("no hashed space"), "{err}");
}

#[test]
fn both_kinds_read_back_as_format_10_stores_them() {
    let cfg = bincode::config::standard();
    let _raw = crate::raw::RawArrays::on(crate::raw::Layout::Packed);
    let mut hashed = Vocabulary::hashed(Hashing::new(4).unwrap());
    hashed.add_document(["a", "b"]);
    let words = Vocabulary::from_parts(vec!["a".into(), "bé".into()], vec![3, 1], 4);
    for v in [hashed, words, Vocabulary::default()] {
        let bytes = bincode::serde::encode_to_vec(&v, cfg).unwrap();
        let (back, n): (Vocabulary, _) = bincode::serde::decode_from_slice(&bytes, cfg).unwrap();
        assert_eq!(n, bytes.len());
        assert_eq!(
            (back.hashing(), &back.df, back.documents()),
            (v.hashing(), &v.df, v.documents())
        );
        for j in 0..v.len() as u32 {
            assert_eq!(back.name(j), v.name(j));
            assert_eq!(back.get(&v.name(j)), v.get(&v.name(j)));
        }
    }
    // Document frequencies that are not one per word are refused.
    let words = Vocabulary::from_parts(vec!["a".into()], vec![1], 1);
    let mut bytes = bincode::serde::encode_to_vec(&words, cfg).unwrap();
    let last = bytes.len() - 6; // the df's byte length (4), before the df and documents
    assert_eq!(bytes[last], 4);
    bytes[last] = 0;
    bytes.drain(last + 1..last + 5);
    let err = bincode::serde::decode_from_slice::<Vocabulary, _>(&bytes, cfg).unwrap_err();
    assert!(err.to_string().contains("1 words but 0 document"), "{err}");
}
