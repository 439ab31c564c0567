#![no_main]
use dataplane::wire::{EthernetHeader, Frame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = EthernetHeader::parse(data);
    let _ = Frame::parse(data);
});
