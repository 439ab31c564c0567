#![no_main]
// mgmt's XML parser: mgmt::fuzzing::xml.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mgmt::fuzzing::xml(data);
});
