//! Fuzz target: arbitrary bytes as a spamd request head (see `targets::spamd`).
#![no_main]

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::spamd(data));
