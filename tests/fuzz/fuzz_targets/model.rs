//! Fuzz target: arbitrary bytes through the model reader (see `targets::model`).
#![no_main]

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::model(data));
