//! Fuzz target: arbitrary bytes through the svmlight reader (see `targets::svmlight`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::svmlight(data));
