//! One test per flag rule: each bad combination is parsed as the command line would be
//! and must be refused by [`plan`](super::plan) with its sentence — no file is opened
//! (the paths named do not exist) — and good combinations give the plan they describe.

use super::*;

/// The plan for `rosenblatt ARGS…`, or its error as the command line prints it.
fn plan_of(args: &str) -> std::result::Result<Plan, String> {
    let argv = std::iter::once("rosenblatt").chain(args.split_whitespace());
    let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
    plan(cli.command).map_err(|e| names::message(&e))
}

#[test]
fn every_flag_rule_is_refused_with_its_sentence() {
    let t = "train -o m in.tsv";
    let cases: Vec<(String, &str)> = [
        // train: experiments
        (
            format!("{t} --holdout 1.5"),
            "--holdout must be a fraction between 0 and 1",
        ),
        (
            format!("{t} --holdout 0"),
            "--holdout must be a fraction between 0 and 1",
        ),
        // negative numbers reach the rules instead of being taken for flags
        (
            format!("{t} --holdout -1"),
            "--holdout must be a fraction between 0 and 1, got -1",
        ),
        (
            format!("{t} --learner perceptron --eta -1"),
            "(--eta) must be a positive number, got -1",
        ),
        (
            format!("{t} --learner pa --pa-c -2"),
            "(--pa-c) must be a positive number, got -2",
        ),
        (
            format!("{t} --learner logistic --l2 -1"),
            "(--l2) must be a number ≥ 0, got -1",
        ),
        (
            format!("{t} --learner pa --positive-weight -1"),
            "(--positive-weight) must be a positive number, got -1",
        ),
        (format!("{t} --cv 1"), "--cv needs at least 2 folds"),
        // train: vocabulary
        (format!("{t} --min-df 0"), "(--min-df)"),
        (format!("{t} --max-features 0"), "(--max-features)"),
        // train: inputs
        (
            format!("{t} --split train"),
            "--split applies to --format reuters only",
        ),
        (
            "eval --online index --spam s".into(),
            "--online reads its messages, and their classes, from the index",
        ),
        (
            "eval -m m --spam s --ham h --threshold 5".into(),
            "a saved model decides where it was trained to",
        ),
        (
            "train -o m --spam s --ham h --positive ham".into(),
            "a spam filter's positive class is spam",
        ),
        (
            "train -o m --spam s".into(),
            "a spam filter learns from both",
        ),
        (
            "train -o m --ham h".into(),
            "a spam filter learns from both",
        ),
        (
            "train -o m a.svm b.tsv".into(),
            "some inputs are SVMlight vectors and some",
        ),
        (
            "train -o m a.svm --min-df 2".into(),
            "SVMlight rows have none",
        ),
        (
            "train -o m a.svm --keep-case".into(),
            "SVMlight rows have none",
        ),
        (
            "train -o m a --format svmlight --max-features 9".into(),
            "SVMlight rows have none",
        ),
        (
            "train -o m a.svm --ngrams 2".into(),
            "SVMlight rows have none",
        ),
        (
            "train -o m a.svm --hash-bits 18".into(),
            "SVMlight rows have none",
        ),
        (
            "train -o m a --ngrams 0".into(),
            "--ngrams must be from 1 (words only) to 8, got 0",
        ),
        (
            "vectorize -o v a --ngrams 9".into(),
            "--ngrams must be from 1 (words only) to 8, got 9",
        ),
        (
            "train -o m a --hash-bits 29".into(),
            "--hash-bits must be 0 (a vocabulary of words) or from 1 to 28 (2^B feature ids), \
             got 29",
        ),
        (
            "vectorize -o v a --hash-bits 40".into(),
            "or from 1 to 28 (2^B feature ids), got 40",
        ),
        (
            "train -o m a --hash-bits 18 --min-df 2".into(),
            "--hash-bits keeps no words (every hashed id stays): give one or the other",
        ),
        // SVMlight feature ids
        (
            "train -o m a.svm --max-feature-id 0".into(),
            "--max-feature-id must be at least 1",
        ),
        (
            format!("{t} --max-feature-id 9"),
            "--max-feature-id applies to SVMlight input only",
        ),
        (
            "train -o m --spam s --ham h --max-feature-id 9".into(),
            "--max-feature-id applies to SVMlight input only",
        ),
        (
            "train -o m a.svm --max-feature-id 4294967296".into(),
            "4294967296",
        ),
        (
            "eval -m m a.svm --max-feature-id 0".into(),
            "--max-feature-id must be at least 1",
        ),
        (
            "eval -m m a.tsv --format tsv --max-feature-id 9".into(),
            "--max-feature-id applies to SVMlight input only",
        ),
        (
            "eval --online index --max-feature-id 9".into(),
            "--max-feature-id applies to SVMlight input only",
        ),
        (
            "eval -m m --spam s --ham h --max-feature-id 9".into(),
            "--max-feature-id applies to SVMlight input only",
        ),
        (
            "classify -m m --input-format text --max-feature-id 9 a".into(),
            "--max-feature-id applies to SVMlight input only",
        ),
        (
            "classify -m m --max-feature-id 0 a.svm".into(),
            "--max-feature-id must be at least 1",
        ),
        (
            "bench --max-feature-id 9".into(),
            "--max-feature-id applies to SVMlight input only",
        ),
        (
            "bench corpus.tsv --max-feature-id 9".into(),
            "--max-feature-id applies to SVMlight input only",
        ),
        // train: schedule
        (
            format!("{t} --rounds 5"),
            "--rounds and --patience apply to --mode random only",
        ),
        (
            format!("{t} --patience 5"),
            "--rounds and --patience apply to --mode random only",
        ),
        (
            format!("{t} --learner perceptron --mode random --rounds 0"),
            "(--rounds) must be at least 1",
        ),
        (
            format!("{t} --learner perceptron --mode random --no-shuffle"),
            "does not apply to --mode random",
        ),
        (
            format!("{t} --learner pa --mode online"),
            "--mode does not apply to --learner pa: perceptron and kernel-perceptron read it",
        ),
        (
            format!("{t} --eta 0.5"),
            "--eta does not apply to --learner pa: perceptron, margin-perceptron, logistic and softmax read it",
        ),
        (
            format!("{t} --learner perceptron --eta 0"),
            "(--eta) must be a positive number, got 0",
        ),
        // train: learner flags
        (
            format!("{t} --learner logistic --average"),
            "--average does not apply to --learner logistic: margin-perceptron and pa read it",
        ),
        (
            format!("{t} --learner winnow --no-average"),
            "--no-average does not apply to --learner winnow",
        ),
        (format!("{t} --average --no-average"), "cannot be used with"),
        (
            format!("{t} --learner perceptron --pa-c 2"),
            "--pa-c does not apply to --learner perceptron: pa and svm read it",
        ),
        (format!("{t} --learner pa --pa-c=-1"), "(--pa-c) must be"),
        (
            format!("{t} --margin 1"),
            "--margin does not apply to --learner pa: margin-perceptron and winnow read it",
        ),
        (
            format!("{t} --alpha 2"),
            "--alpha does not apply to --learner pa: only --learner winnow reads it",
        ),
        (
            format!("{t} --early-stop 0.1"),
            "--early-stop does not apply to --learner pa: only --learner logistic reads it",
        ),
        (
            format!("{t} --learner centroid --no-shuffle"),
            "--no-shuffle does not apply to --learner centroid",
        ),
        (
            format!("{t} --learner centroid --epochs 3"),
            "--epochs does not apply to --learner centroid",
        ),
        (
            format!("{t} --learner softmax --solver batch"),
            "(--solver) must be sgd or minibatch for softmax regression, got batch",
        ),
        (
            format!("{t} --learner perceptron --positive-weight 2"),
            "--positive-weight does not apply to --learner perceptron",
        ),
        (
            format!("{t} --learner averaged-perceptron --no-average"),
            "--no-average does not apply to --learner averaged-perceptron",
        ),
        (
            format!("{t} --learner pa --bias r2"),
            "(--bias) must be none or augmented for pa",
        ),
        (
            format!("{t} --learner logistic --batch-size 8"),
            "--batch-size applies to --solver minibatch only",
        ),
        (
            format!("{t} --learner logistic --early-stop-patience 2"),
            "--early-stop-patience applies to --early-stop only",
        ),
        // train: kernel flags
        (
            format!("{t} --kernel rbf"),
            "--kernel does not apply to --learner pa: only --learner kernel-perceptron reads it",
        ),
        (
            format!("{t} --memory 1G"),
            "--memory does not apply to --learner pa",
        ),
        (
            format!("{t} --force"),
            "--force does not apply to --learner pa",
        ),
        (
            format!("{t} --learner kernel-perceptron --degree 3"),
            "--degree and --coef0 apply to --kernel poly only",
        ),
        (
            format!("{t} --learner kernel-perceptron --kernel poly --gamma 1"),
            "--gamma applies to --kernel rbf only",
        ),
        (
            format!("{t} --learner kernel-perceptron --eta 2"),
            "--eta does not apply to --learner kernel-perceptron",
        ),
        // classify
        (
            "classify -m m in.tsv --batch 0".into(),
            "--batch must be at least 1",
        ),
        (
            "classify -m m --split test a.sgm".into(),
            "--split applies to --format reuters",
        ),
        (
            "classify -m m --passthrough a.eml b.eml".into(),
            "--passthrough writes back one",
        ),
        (
            "classify -m m --passthrough missing.eml".into(),
            "--passthrough writes back one",
        ),
        (
            "classify -m m --input-format svmlight --unsure=-1:1 a".into(),
            "the spam-filter options apply to mail models",
        ),
        (
            "classify -m m --input-format svmlight".into(),
            "classify reads SVMlight vectors from files",
        ),
        // learn
        (
            "learn -m m --spam --lock-timeout -1".into(),
            "--lock-timeout must be a number of seconds, 0 or more, got -1",
        ),
        (
            "learn -m m --spam --lock-timeout inf".into(),
            "--lock-timeout must be a number of seconds, 0 or more, got inf",
        ),
        // eval
        (
            "eval -m m --split test a.tsv".into(),
            "--split applies to --format reuters only",
        ),
        // bench
        (
            "bench --threads 0".into(),
            "--threads needs thread counts of at least 1",
        ),
        ("bench --epochs 0".into(), "--epochs must be at least 1"),
        (
            "bench --learner softmax".into(),
            "invalid value 'softmax' for '--learner <LEARNER>'",
        ),
        (
            "bench --rows 0".into(),
            "--rows, --features and --nnz must be at least 1",
        ),
        // vectorize
        (
            "vectorize -o v in.tsv --batch 0".into(),
            "--batch must be at least 1",
        ),
        ("vectorize -o v in.tsv --min-df 0".into(), "(--min-df)"),
        (
            "vectorize -o - in.tsv".into(),
            "-o -: vectorize writes three files (OUT, OUT.vocab and OUT.classes), so -o takes \
             a file name, not standard output",
        ),
        (
            "vectorize -o v a --format svmlight".into(),
            "SVMlight input is already vectors",
        ),
        (
            "vectorize -o v a.sgm --split train".into(),
            "--split applies to --format reuters",
        ),
    ]
    .into_iter()
    .collect();
    for (args, says) in cases {
        match plan_of(&args) {
            Ok(p) => panic!("`{args}` was accepted: {p:?}"),
            Err(e) => assert!(e.contains(says), "`{args}`: {e:?} does not say {says:?}"),
        }
    }
}

#[test]
fn good_combinations_become_their_plans() {
    let Ok(Plan::Train(p)) = plan_of("train -o m a.svm --holdout 0.2 --cv 3") else {
        panic!("a train plan expected");
    };
    assert!(matches!(p.source, Source::Svmlight(_, None)));
    assert_eq!((p.holdout, p.cv, p.seed), (Some(0.2), Some(3), 42));
    let Ok(Plan::Train(p)) = plan_of("train -o m a.svm --max-feature-id 4294967295") else {
        panic!("a train plan expected");
    };
    assert!(matches!(p.source, Source::Svmlight(_, Some(u32::MAX))));
    let Ok(Plan::Eval(p)) = plan_of("eval -m m a.svm --max-feature-id 7") else {
        panic!("an eval plan expected");
    };
    let EvalTask::Documents { documents, .. } = p.task else {
        panic!("documents expected")
    };
    assert_eq!(documents.max_feature_id, Some(7));
    let Ok(Plan::Bench(p)) = plan_of("bench a.svm --max-feature-id 7") else {
        panic!("a bench plan expected");
    };
    assert!(matches!(p.data, BenchData::Svmlight(_, Some(7))));
    let Ok(Plan::Train(p)) =
        plan_of("train -o m --spam s --ham h --learner perceptron --mode random")
    else {
        panic!("a train plan expected");
    };
    assert!(matches!(p.source, Source::Mail(_)));
    assert!(p.config.analyzer.source().mail_rules().is_some());
    assert_eq!(p.source.names(), ["spam:s", "ham:h"]);
    let Ok(Plan::Classify(p)) = plan_of("classify -m m --unsure=-1:1") else {
        panic!("a classify plan expected");
    };
    assert!(p.filter());
    assert_eq!(p.documents.paths, [std::path::PathBuf::from("-")]);
    let Ok(Plan::Eval(p)) = plan_of("eval --online index") else {
        panic!("an eval plan expected");
    };
    assert!(matches!(p.task, EvalTask::Online { model: None, .. }));
    let Ok(Plan::Bench(p)) = plan_of("bench --learner winnow,centroid") else {
        panic!("a bench plan expected");
    };
    assert_eq!(p.learners.len(), 2);
    assert!(matches!(p.data, BenchData::Synthetic { rows: 200_000, .. }));
    let Ok(Plan::Learn(p)) = plan_of("learn -m m --ham") else {
        panic!("a learn plan expected");
    };
    assert_eq!(p.class, "ham");
}

#[test]
fn failures_of_classify_and_learn_exit_with_3() {
    let code = |args: &str| {
        let argv = std::iter::once("rosenblatt").chain(args.split_whitespace());
        Cli::try_parse_from(argv).unwrap().command.error_code()
    };
    assert_eq!(code("classify -m m"), 3);
    assert_eq!(code("learn -m m --spam"), 3);
    assert_eq!(code("train -o m in.tsv"), 1);
}

#[test]
fn train_with_no_options_is_the_library_default() {
    use rosenblatt::text::{Analyzer, Source as TextSource};
    use rosenblatt::training::TrainConfig;
    let lib = TrainConfig::default();
    let Ok(Plan::Train(p)) = plan_of("train -o m docs") else {
        panic!("a train plan expected");
    };
    let cli = p.config;
    assert_eq!(cli.learner, lib.learner);
    assert_eq!(cli.geometry, lib.geometry);
    assert_eq!(cli.analyzer, lib.analyzer);
    assert_eq!(cli.vocab, lib.vocab);
    assert_eq!(cli.positive, lib.positive);
    // The spam filter: its own pa (20 epochs, last weights) over binary unit-length rows,
    // reading mail, deciding at P(spam) > 0.9; the flags change that pa.
    let filter = TrainConfig::spam_filter();
    let Ok(Plan::Train(p)) = plan_of("train -o m --spam s --ham h") else {
        panic!("a train plan expected");
    };
    assert_eq!(p.config.learner, filter.learner);
    assert_eq!(filter.learner.name(), lib.learner.name());
    assert_ne!(filter.learner, lib.learner);
    assert_eq!(p.config.threshold, filter.threshold);
    assert_eq!(p.config.threshold, Some(rosenblatt::learn::SPAM_ODDS));
    let Ok(Plan::Train(avg)) = plan_of("train -o m --spam s --ham h --average --epochs 7") else {
        panic!("a train plan expected");
    };
    assert_eq!(
        avg.config.learner, lib.learner,
        "the text default's pa again"
    );
    let Ok(Plan::Train(t)) = plan_of("train -o m --spam s --ham h --threshold 0") else {
        panic!("a train plan expected");
    };
    assert_eq!(t.config.threshold, Some(0.0));
    assert_eq!(cli.threshold, None, "text decides at the score's sign");
    assert_eq!(p.config.geometry, filter.geometry);
    assert_eq!(p.config.analyzer, filter.analyzer);
    assert_eq!(p.config.vocab, filter.vocab);
    assert_eq!(
        filter.analyzer,
        Analyzer::standard(TextSource::mail(), true)
    );
}

#[test]
fn the_command_line_is_consistent() {
    use clap::CommandFactory;
    Cli::command().debug_assert();
}

#[test]
fn every_flag_of_a_long_help_is_under_a_heading() {
    use clap::CommandFactory;
    let headings = [
        "Input",
        "Features",
        "Learner",
        "Evaluation",
        "Mail",
        "Cluster",
        "Output",
        "Listen",
        "Learning",
        "Limits",
        "Decision",
        "Page",
    ];
    // `learn`, `completions` and `man` take a handful of flags each: one list.
    let short = ["learn", "completions", "man"];
    let cli = Cli::command();
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        for arg in sub.get_arguments() {
            let heading = arg.get_help_heading();
            if short.contains(&name) {
                assert_eq!(heading, None, "{name} {}", arg.get_id());
            } else {
                assert!(
                    heading.is_some_and(|h| headings.contains(&h)),
                    "{name} {}: {heading:?}",
                    arg.get_id()
                );
            }
        }
    }
}

#[test]
fn man_accepts_every_subcommand() {
    use clap::CommandFactory;
    let cli = Cli::command();
    let names: Vec<&str> = cli.get_subcommands().map(|s| s.get_name()).collect();
    assert_eq!(names, man::SUBCOMMANDS);
    for name in names {
        let Ok(Plan::Man(p)) = plan_of(&format!("man {name}")) else {
            panic!("a man plan expected for {name}");
        };
        assert_eq!(p.subcommand.as_deref(), Some(name));
    }
    let Ok(Plan::Man(p)) = plan_of("man") else {
        panic!("a man plan expected");
    };
    assert_eq!(p.subcommand, None);
    assert!(plan_of("man nosuch").is_err());
}

#[test]
fn completions_name_their_shell() {
    let Ok(Plan::Completions(p)) = plan_of("completions fish") else {
        panic!("a completions plan expected");
    };
    assert_eq!(p.shell, clap_complete::Shell::Fish);
    assert_eq!(p.command.get_name(), "rosenblatt");
    assert!(plan_of("completions tcsh").is_err());
    assert!(plan_of("completions").is_err());
}

#[test]
fn classify_and_learn_parse_alone_as_the_whole_parser_parses_them() {
    let lines: [&[&str]; 6] = [
        &["rosenblatt", "classify", "-m", "f.store", "--passthrough"],
        &[
            "rosenblatt",
            "classify",
            "-m",
            "m",
            "a",
            "b",
            "--format",
            "jsonl",
            "--unsure=-1:1",
        ],
        &[
            "rosenblatt",
            "classify",
            "-m",
            "m",
            "--max-document-bytes",
            "1M",
            "-",
        ],
        &["rosenblatt", "learn", "-m", "f.store", "--spam", "x.eml"],
        &[
            "rosenblatt",
            "learn",
            "--ham",
            "-m",
            "m",
            "--json",
            "--lock-timeout",
            "2",
        ],
        &["rosenblatt", "learn", "-m", "m"],
    ];
    for argv in lines {
        let args: Vec<std::ffi::OsString> = argv.iter().map(Into::into).collect();
        let alone = Cli::parse_from_args(args.clone()).map(|c| format!("{c:?}"));
        let whole = Cli::try_parse_from(args).map(|c| format!("{c:?}"));
        match (alone, whole) {
            (Ok(a), Ok(w)) => assert_eq!(a, w, "{argv:?}"),
            (Err(a), Err(w)) => assert_eq!(a.to_string(), w.to_string(), "{argv:?}"),
            (a, w) => panic!("{argv:?}: {a:?} against {w:?}"),
        }
    }
}
