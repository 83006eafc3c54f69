//! Fuzz target: arbitrary bytes through the tsv reader (see `targets::tsv`).
#![no_main]

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::tsv(data));
