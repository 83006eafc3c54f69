//! Fuzz target: arbitrary bytes as a peer's side of a cluster's join (see
//! `targets::cluster`).
#![no_main]

#[path = "../targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::cluster(data));
