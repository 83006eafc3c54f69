//! Fuzz target: arbitrary bytes through the reuters reader (see `targets::reuters`).
#![no_main]

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::reuters(data));
