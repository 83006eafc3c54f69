//! Integration tests: one binary, a module per theme.

mod common;
mod core_cli;
mod properties;
mod seed_examples;
