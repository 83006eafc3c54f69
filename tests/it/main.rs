//! Integration tests: one binary, a module per theme.

mod common;
mod core_cli;
mod experiment;
mod kernel;
mod learners;
mod mail;
mod order;
mod properties;
mod seed_examples;
mod svmlight;
