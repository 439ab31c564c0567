#![no_main]
// The NETCONF XML parser (netconf-proto's, the server's and the client's): netconf_proto::fuzzing::xml.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    netconf_proto::fuzzing::xml(data);
});
