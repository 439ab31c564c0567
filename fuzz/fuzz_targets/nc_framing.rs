#![no_main]
// NETCONF framing (base:1.0 end-of-message and base:1.1 chunked): netconf_proto::fuzzing::framing.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    netconf_proto::fuzzing::framing(data);
});
