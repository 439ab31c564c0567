#![no_main]
// NETCONF framing (base:1.0 end-of-message and base:1.1 chunked): mgmt::fuzzing::framing.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mgmt::fuzzing::framing(data);
});
