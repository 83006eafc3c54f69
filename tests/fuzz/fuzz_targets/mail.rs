//! Fuzz target: arbitrary bytes through the mail reader (see `targets::mail`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::mail(data));
