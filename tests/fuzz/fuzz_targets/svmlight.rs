//! Fuzz target: arbitrary bytes through the svmlight reader (see `targets::svmlight`).
#![no_main]

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::svmlight(data));
