//! Fuzz target: arbitrary bytes through the tsv reader (see `targets::tsv`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::tsv(data));
