#![no_main]
use dataplane::wire::Hmpdu;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = Hmpdu::parse(data) {
        assert_eq!(Hmpdu::parse(&p.to_vec()), Ok(p));
    }
});
