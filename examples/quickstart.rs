//! The library in ten lines, as the README shows it: train a spam filter on four
//! documents, classify a string, save the model, load it back and classify again.
//! `cargo run --example quickstart` writes `spam.model` in the current folder; `cargo
//! test` runs it in a temporary one.

use rosenblatt::{Document, Model, TrainConfig};

fn main() -> rosenblatt::Result<()> {
    let docs = [
        Document::labelled("spam", "cheap meds, buy now"),
        Document::labelled("ham", "lunch at noon tomorrow"),
        Document::labelled("spam", "buy cheap watches now"),
        Document::labelled("ham", "the meeting moved to noon"),
    ];
    let model = Model::fit(&docs, &TrainConfig::default())?;
    println!("{:?}", model.classify("buy cheap now")?); // Decision { label: "spam", score: … }
    model.save("spam.model")?;
    assert_eq!(
        Model::load("spam.model")?.classify("noon lunch")?.label,
        "ham"
    );
    Ok(())
}

#[test]
fn the_readme_program_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    main().unwrap();
    assert!(dir.path().join("spam.model").is_file());
}
