//! The fuzz targets' checks (`netconf_proto::fuzzing`, `mgmt::fuzzing`, run without limit by
//! `fuzz/`), run on every test
//! run for a bounded number of inputs: valid NETCONF messages, XML documents and edits,
//! mutated at random (bytes flipped, inserted, removed, cut), plus plain random bytes.

mod common;

use mgmt::fuzzing;
use netconf_proto::framing::{self, Framing};
use netconf_proto::fuzzing as proto_fuzzing;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const CASES: u32 = 3000;

fn seeds() -> Vec<Vec<u8>> {
    let mt = common::fixture::MT;
    let ifs = common::fixture::IF;
    [
        "<rpc message-id=\"1\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><get/></rpc>]]>]]>".to_string(),
        "\n#4\n<rpc\n#18\n message-id=\"2\"/>\n##\n".to_string(),
        format!("<config><settings xmlns=\"{mt}\"><mtu>9000</mtu><label>a&amp;b</label><tag>x</tag><tag>y</tag></settings></config>"),
        format!("<config><interfaces xmlns=\"{ifs}\"><interface><name>eth0</name><type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type><description>d</description></interface></interfaces></config>"),
        format!("<config xmlns:yang=\"urn:ietf:params:xml:ns:yang:1\"><rule xmlns=\"{mt}\" yang:insert=\"first\"><name>r</name><priority>7</priority><action>deny</action></rule></config>"),
        "<?xml version=\"1.0\"?><!-- c --><a xmlns=\"urn:x\" b=\"1\"><![CDATA[<x>]]>t&#x41;</a>".to_string(),
    ]
    .into_iter()
    .map(String::into_bytes)
    .collect()
}

/// A seed with up to three random byte edits (changed, inserted, removed, or the input cut
/// there), or random bytes.
fn inputs(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let mutated =
        (0..seeds.len(), prop::collection::vec((any::<u8>(), any::<u16>(), 0u8..8), 0..4))
            .prop_map(move |(i, edits)| {
                let mut s = seeds[i].clone();
                for (byte, at, how) in edits {
                    let at = usize::from(at) % (s.len() + 1);
                    match how {
                        0 if at < s.len() => s[at] = byte,
                        1 => s.insert(at, byte),
                        2 if at < s.len() => {
                            s.remove(at);
                        }
                        _ => s.truncate(at),
                    }
                }
                s
            });
    prop_oneof![4 => mutated, 1 => prop::collection::vec(any::<u8>(), 0..256)]
}

/// Runs `check` on [`CASES`] inputs; returns how many of them `check` found usable (parsed
/// far enough to be checked), so that a test can tell that its inputs reach the code.
fn run(name: &str, seeds: Vec<Vec<u8>>, check: impl Fn(&[u8]) -> bool) -> u32 {
    let mut runner =
        TestRunner::new(Config { cases: CASES, failure_persistence: None, ..Config::default() });
    let used = std::cell::Cell::new(0);
    runner
        .run(&inputs(seeds), |input| {
            if check(&input) {
                used.set(used.get() + 1);
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}: {} of {CASES} inputs checked in depth", used.get());
    used.get()
}

#[test]
fn framing_survives_mutated_and_random_input() {
    // Every seed framed both ways, and two messages back to back.
    let framed: Vec<Vec<u8>> = seeds()
        .iter()
        .flat_map(|m| {
            let eom = framing::encode(Framing::EndOfMessage, m).expect("frame");
            let chunked = framing::encode_chunked(m, 7).expect("frame");
            [eom.repeat(2), chunked.repeat(2)]
        })
        .collect();
    assert!(run("framing", framed, proto_fuzzing::framing) > CASES / 10);
}

#[test]
fn xml_parser_survives_mutated_and_random_input() {
    assert!(run("xml", seeds(), proto_fuzzing::xml) > CASES / 10);
}

#[test]
fn edits_into_libyang_survive_mutated_and_random_input() {
    let (_dir, engine) = common::test_engine(None, mgmt::protocol::sessions::Registry::new(4));
    let datastores = engine.datastores();
    assert!(
        run("edit-config", seeds(), |data| fuzzing::edit_config(datastores, data)) > CASES / 20
    );
}
