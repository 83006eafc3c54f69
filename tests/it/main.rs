//! Integration tests: one binary, a module per theme.

mod analyzer;
mod bounds;
mod char_grams;
mod cluster;
mod cluster_scoring;
mod common;
mod core_cli;
mod distributed;
mod experiment;
mod faults;
mod fuzz_seeds;
mod hostile;
mod kernel;
mod learners;
mod mail;
mod mail_fields;
mod mail_header_block;
mod model_format;
mod ngrams;
mod online_rules;
mod order;
mod plots;
mod properties;
mod seed_examples;
mod svmlight;
mod tune;
