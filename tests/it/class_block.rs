//! A multi-class model scores a few documents class by class and many through its class
//! block (every class of a row in one pass, built when first worth it): the two give the
//! same labels and the same scores, bit for bit.

use crate::common::{bin, stdout_of};
use std::path::Path;

/// Four topics of 40 documents each, their words drawn in a fixed, varied order.
fn corpus(dir: &Path) {
    let topics = [
        ("cars", ["engine", "wheel", "brake", "road", "fuel"]),
        ("fruit", ["apple", "pear", "juice", "ripe", "peel"]),
        ("pets", ["dog", "cat", "leash", "fur", "purr"]),
        ("ships", ["hull", "sail", "port", "deck", "anchor"]),
    ];
    let shared = ["the", "new", "small", "red", "fast", "old"];
    for (t, (class, words)) in topics.iter().enumerate() {
        std::fs::create_dir_all(dir.join(class)).unwrap();
        for i in 0..40usize {
            let mut text = Vec::new();
            for j in 0..(3 + (i * 7 + t) % 5) {
                text.push(words[(i + j * 3) % words.len()]);
                text.push(shared[(i * 5 + j + t) % shared.len()]);
            }
            // Some documents borrow a word of the next topic, so that scores are close.
            if i % 4 == 0 {
                text.push(topics[(t + 1) % topics.len()].1[i % 5]);
            }
            std::fs::write(dir.join(class).join(format!("{i}.txt")), text.join(" ")).unwrap();
        }
    }
}

#[test]
fn a_few_documents_and_many_get_the_same_labels_and_scores() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    corpus(&data);
    let few = dir.path().join("few");
    std::fs::create_dir_all(&few).unwrap();
    for name in [
        "cars/3.txt",
        "fruit/8.txt",
        "pets/12.txt",
        "ships/0.txt",
        "ships/9.txt",
    ] {
        let to = few.join(name.replace('/', "-"));
        std::fs::copy(data.join(name), to).unwrap();
    }
    for learner in ["pa", "softmax", "logistic"] {
        let model = dir.path().join(format!("{learner}.model"));
        bin()
            .args(["train", "--learner", learner, "-o"])
            .arg(&model)
            .arg(&data)
            .assert()
            .success();
        let classify = |input: &Path| {
            stdout_of(
                bin()
                    .args(["classify", "--format", "jsonl", "-m"])
                    .arg(&model)
                    .arg(input),
            )
        };
        // 160 documents: past the rows worth building the block for.
        let many = classify(&data);
        let few_lines = classify(&few);
        assert_eq!(few_lines.lines().count(), 5);
        for line in few_lines.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let file = Path::new(v["id"].as_str().unwrap()).file_name().unwrap();
            let (class, name) = file.to_str().unwrap().split_once('-').unwrap();
            let twin = many
                .lines()
                .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
                .find(|w| {
                    w["id"]
                        .as_str()
                        .unwrap()
                        .ends_with(&format!("{class}/{name}"))
                })
                .unwrap();
            for key in ["label", "labels", "score", "scores"] {
                assert_eq!(v[key], twin[key], "{learner}: {key} of {class}/{name}");
            }
        }
    }
}
