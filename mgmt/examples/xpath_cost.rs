//! How the XPath cost bound (`mgmt::yang::xpath_cost`) compares with libyang's time: each
//! expression is evaluated on ENTRIES interfaces (five nodes each) and its time divided by
//! its bound, which is what the limit (`Config::max_filter_cost`, node visits) is in time.
//!
//!   cargo run --release -p mgmt --example xpath_cost -- [ENTRIES]   (1000)
//!
//! Prints, per expression: the bound in node visits, the time, and nanoseconds per bound
//! visit. A bound far above the time is a loose bound (fine); what matters is the largest
//! ns/visit, which sets how long the most expensive admitted filter may run.

use std::time::Instant;

use mgmt::yang::schema::{ModuleSpec, Schema, SchemaError, WithDefaults};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const IF_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
const IANA_NS: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";

fn main() {
    let entries: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let schema = Schema::new(
        &[],
        &[ModuleSpec::new("ietf-interfaces", &[]), ModuleSpec::new("iana-if-type", &[])],
    )
    .expect("schema");
    let mut xml = format!("<interfaces xmlns=\"{IF_NS}\">");
    for i in 0..entries {
        xml.push_str(&format!(
            "<interface><name>eth{i}</name><description>port {i}</description><type xmlns:ianaift=\"{IANA_NS}\">ianaift:ethernetCsmacd</type><enabled>{}</enabled></interface>",
            i % 2 == 0
        ));
    }
    xml.push_str("</interfaces>");
    let i = "ietf-interfaces";
    let half = entries / 2;
    let exprs = [
        format!("/{i}:interfaces/{i}:interface[{i}:name='none']"),
        format!("/{i}:interfaces/{i}:interface[{i}:name='eth{half}']"),
        format!("/{i}:interfaces/{i}:interface[{i}:enabled='false']/{i}:name"),
        format!("//{i}:interface[contains({i}:description, '{half}')]"),
        "//*".to_string(),
        format!("//*[. = 'eth{half}']"),
        format!("//{i}:interface[{i}:name = //{i}:description]"),
        format!("//{i}:interface[count(//{i}:name) > 0]"),
        format!("//*[count(//*) > {}]", 10 * entries),
        format!("/{i}:interfaces/{i}:interface[following-sibling::{i}:interface/{i}:name = 'x']"),
    ];
    println!("{entries} interfaces; the first line (nothing selected) is about the data's parse");
    println!("alone, taken off the others' time for ns/visit");
    println!("{:>14} {:>10} {:>9}  expression", "bound", "ms", "ns/visit");
    let mut base = 0.0;
    for expr in &exprs {
        let bound = match schema.select_xpath(&xml, expr, WithDefaults::Explicit, false, 0) {
            Err(SchemaError::TooCostly { estimate, .. }) => estimate,
            other => panic!("{expr}: {other:?}"),
        };
        let t0 = Instant::now();
        schema
            .select_xpath(&xml, expr, WithDefaults::Explicit, false, u64::MAX)
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if base == 0.0 {
            base = ms;
        }
        let ns = (ms - base).max(0.0) * 1e6 / bound as f64;
        println!("{bound:>14} {ms:>10.2} {ns:>9.2}  {expr}");
    }
}
