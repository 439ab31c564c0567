#![no_main]
use dataplane::wire::{MacControl, PauseFrame, PfcFrame};
use libfuzzer_sys::fuzz_target;

// Whatever parses must re-emit to bytes that parse to the same value.
fuzz_target!(|data: &[u8]| {
    if let Ok(f) = MacControl::parse(data) {
        assert_eq!(MacControl::parse(&f.to_vec()), Ok(f));
    }
    let _ = PfcFrame::parse(data);
    let _ = PauseFrame::parse(data);
});
