//! tshark, an independent decoder, reads the frames pfcd emits with the values we put in them.

mod common;

use common::{external_tool, tshark_fields, tshark_number, write_pcap, Scratch};
use dataplane::wire::{MacAddr, PauseFrame, PfcFrame};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

const SA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

#[test]
fn tshark_decodes_pfc_and_pause_frames() {
    let Some(tshark) = external_tool("/usr/bin/tshark", "tshark") else { return };

    // The acceptance vector first, then a few hundred generated frames.
    let mut pfc = vec![PfcFrame::pause(SA, 0b0001_1000, 0xffff)];
    let mut runner = TestRunner::deterministic();
    let strategy = (any::<[u8; 6]>(), any::<u8>(), any::<[u16; 8]>());
    for _ in 0..300 {
        let (src, enable, time) = strategy.new_tree(&mut runner).expect("value").current();
        // tshark checks the source is an individual address; keep the I/G bit clear.
        let src = MacAddr([src[0] & 0xfe, src[1], src[2], src[3], src[4], src[5]]);
        pfc.push(PfcFrame { src, enable, time, ..PfcFrame::pause(SA, 0, 0) });
    }
    let pauses: Vec<PauseFrame> =
        [0u16, 1, 0x1234, 0xffff].iter().map(|t| PauseFrame::new(SA, *t)).collect();

    let scratch = Scratch::new("tshark-macc");
    let pcap = scratch.path("macc.pcap");
    let frames: Vec<Vec<u8>> =
        pfc.iter().map(|f| f.to_vec()).chain(pauses.iter().map(|f| f.to_vec())).collect();
    write_pcap(&pcap, &frames);

    let mut fields = vec!["eth.src", "macc.opcode", "macc.cbfc.enbv", "macc.pause_time"];
    let pause_time_fields: Vec<String> =
        (0..8).map(|n| format!("macc.cbfc.pause_time.c{n}")).collect();
    fields.extend(pause_time_fields.iter().map(String::as_str));
    let rows = tshark_fields(&tshark, &pcap, &fields);
    assert_eq!(rows.len(), frames.len(), "tshark saw every frame");

    for (frame, row) in pfc.iter().zip(&rows) {
        assert_eq!(row[0], frame.src.to_string().replace('-', ":"));
        assert_eq!(tshark_number(&row[1]), 0x0101, "opcode of {frame:?}");
        assert_eq!(tshark_number(&row[2]), u64::from(frame.enable), "enable vector of {frame:?}");
        assert_eq!(row[3], "", "no PAUSE time in a PFC frame");
        for n in 0..8 {
            assert_eq!(
                tshark_number(&row[4 + n]),
                u64::from(frame.time[n]),
                "time[{n}] of {frame:?}"
            );
        }
    }
    for (frame, row) in pauses.iter().zip(&rows[pfc.len()..]) {
        assert_eq!(tshark_number(&row[1]), 0x0001);
        assert_eq!(tshark_number(&row[3]), u64::from(frame.pause_time));
    }
}
