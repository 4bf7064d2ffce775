#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| shogun_lab_fuzz::run(shogun_lab::fuzz::Target::Merge, data));
