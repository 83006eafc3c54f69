//! The library's `Filter` trait: a model file and a store's snapshot classify a raw
//! message alike.

use rosenblatt::incremental::Filter;
use rosenblatt::input::Document;
use rosenblatt::store::Store;
use rosenblatt::{Model, TrainConfig};

#[test]
fn a_model_and_its_store_classify_a_message_through_the_trait_as_the_model_does() {
    let docs = [
        Document::labelled("spam", "cheap meds, buy now"),
        Document::labelled("ham", "lunch at noon tomorrow"),
        Document::labelled("spam", "buy cheap watches now"),
        Document::labelled("ham", "the meeting moved to noon"),
    ];
    let model = Model::fit(&docs, &TrainConfig::spam_filter()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    Store::create(&path, &model).unwrap();
    let store = Store::open_read_only(&path).unwrap();
    let snapshot = store.snapshot().unwrap();
    for raw in [
        &b"From: a@example.org\nSubject: meds\n\ncheap, buy now\n"[..],
        &b"Subject: lunch\n\nnoon tomorrow?\n"[..],
    ] {
        let own = model.classify_mail(raw).unwrap();
        let through = Filter::classify_mail(&model, raw).unwrap();
        assert_eq!((&own.label, own.score), (&through.label, through.score));
        let stored = Filter::classify_mail(&snapshot, raw).unwrap();
        assert_eq!((&own.label, own.score), (&stored.label, stored.score));
        assert_eq!(
            Filter::probability(&model, own.score),
            Filter::probability(&snapshot, stored.score)
        );
    }
}
