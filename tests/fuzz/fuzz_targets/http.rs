//! Fuzz target: arbitrary bytes as a client's stream to the daemon's HTTP listener (see
//! `targets::http`).
#![no_main]

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::http(data));
