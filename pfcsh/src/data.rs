//! Reply data in the schema's terms: the XML inside `<data>` parsed into a libyang tree, and
//! printed as RFC 7951 JSON by libyang itself (the `--json` output and what the tables read),
//! so pfcsh writes no JSON by hand and every value keeps its YANG type's JSON form.

use quick_xml::events::Event;
use yang2::context::Context;
use yang2::data::{
    Data as _, DataFormat, DataParserFlags, DataPrinterFlags, DataTree, DataValidationFlags,
};

/// The XML inside a reply's `<data>`, each top-level element given the prefix declarations
/// of `<rpc-reply>` and `<data>` it relies on: a server may declare the prefixes of identity
/// values (`pfc:measurement`) once on an enclosing element, which the data alone would lose.
/// A prefix declared nowhere is read as the prefix a module of the schema chose for itself
/// (pfcd writes `pfc:measurement` without declaring `pfc`; DECISIONS.md, "pfcsh reads").
pub fn reply_data(reply: &netconf_client::Reply, ctx: &Context) -> String {
    let inner = reply.data().unwrap_or_default();
    let mut declared = enclosing_declarations(reply.raw());
    let mut modules: Vec<_> = ctx.modules(false).collect();
    modules.sort_by_key(|m| !m.is_implemented());
    for m in modules {
        let key = format!("xmlns:{}", m.prefix());
        if !declared.iter().any(|(k, _)| *k == key) {
            declared.push((key, m.namespace().to_string()));
        }
    }
    if declared.is_empty() {
        return inner.to_string();
    }
    let mut reader = quick_xml::Reader::from_str(inner);
    let mut depth = 0usize;
    let mut inserts = Vec::new();
    loop {
        let at = usize::try_from(reader.buffer_position()).unwrap_or(0);
        let (start, opens) = match reader.read_event() {
            Ok(Event::Start(s)) => (Some(s.into_owned()), true),
            Ok(Event::Empty(s)) => (Some(s.into_owned()), false),
            Ok(Event::End(_)) => {
                depth = depth.saturating_sub(1);
                continue;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => continue,
        };
        if let (Some(s), 0) = (start, depth) {
            let own: Vec<String> =
                s.attributes().flatten().map(|a| a.key.as_ref().to_string()).collect();
            let extra: String = declared
                .iter()
                .filter(|(k, _)| !own.contains(k))
                .map(|(k, v)| format!(" {k}=\"{v}\""))
                .collect();
            // The declarations go right after `<name`.
            let lt = inner[at..].find('<').map_or(at, |i| at + i);
            inserts.push((lt + 1 + s.name().as_ref().len(), extra));
        }
        if opens {
            depth += 1;
        }
    }
    let mut out = inner.to_string();
    for (offset, extra) in inserts.into_iter().rev() {
        if out.is_char_boundary(offset) {
            out.insert_str(offset, &extra);
        }
    }
    out
}

/// `xmlns:PREFIX` declarations on `<rpc-reply>` and `<data>` (the first two start tags).
fn enclosing_declarations(raw: &str) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_str(raw);
    let mut out = Vec::new();
    let mut seen = 0;
    while seen < 2 {
        match reader.read_event() {
            Ok(Event::Start(s)) | Ok(Event::Empty(s)) => {
                seen += 1;
                for a in s.attributes().flatten() {
                    let key = a.key.as_ref().to_string();
                    if key.starts_with("xmlns:") {
                        let value = a.value.to_string();
                        out.retain(|(k, _): &(String, String)| *k != key);
                        out.push((key, value));
                    }
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    out
}

/// Parses `xml` (any number of top-level elements; state data allowed) without validating it
/// as a whole datastore: a filtered reply is a part, not a datastore.
pub fn parse_xml<'a>(ctx: &'a Context, xml: &str) -> Result<DataTree<'a>, String> {
    if xml.trim().is_empty() {
        return Ok(DataTree::new(ctx));
    }
    let mut bytes = Vec::with_capacity(xml.len() + 1);
    bytes.extend_from_slice(xml.as_bytes());
    bytes.push(0);
    DataTree::parse_string(
        ctx,
        &bytes,
        DataFormat::XML,
        DataParserFlags::NO_VALIDATION | DataParserFlags::STRICT,
        DataValidationFlags::empty(),
    )
    .map_err(|e| format!("the server's data does not fit its own schema: {e}"))
}

/// RFC 7951 JSON of a tree, pretty-printed by libyang (`{}` for an empty tree).
pub fn to_json(tree: &DataTree<'_>) -> Result<String, String> {
    let text = tree
        .print_string(DataFormat::JSON, DataPrinterFlags::WITH_SIBLINGS)
        .map_err(|e| format!("libyang cannot print the data as JSON: {e}"))?;
    Ok(text.unwrap_or_else(|| "{\n}\n".to_string()))
}

/// `xml` as RFC 7951 JSON text.
pub fn xml_to_json(ctx: &Context, xml: &str) -> Result<String, String> {
    to_json(&parse_xml(ctx, xml)?)
}

/// `xml` as RFC 7951 JSON on one line (`--json` prints one JSON value a line).
pub fn json_line(ctx: &Context, xml: &str) -> Result<String, String> {
    let value = xml_to_value(ctx, xml)?;
    Ok(format!("{value}\n"))
}

/// `xml` as a JSON value, for the tables.
pub fn xml_to_value(ctx: &Context, xml: &str) -> Result<serde_json::Value, String> {
    let text = xml_to_json(ctx, xml)?;
    serde_json::from_str(&text).map_err(|e| format!("libyang's JSON does not parse: {e}"))
}

/// A member of a JSON object by its YANG name, whatever the module prefix RFC 7951 put on it
/// (`"ieee802-dot1q-pfc-bridge:pfc"` is found as `pfc`).
pub fn member<'v>(v: &'v serde_json::Value, name: &str) -> Option<&'v serde_json::Value> {
    let obj = v.as_object()?;
    obj.get(name).or_else(|| {
        obj.iter().find(|(k, _)| k.rsplit_once(':').is_some_and(|(_, n)| n == name)).map(|(_, v)| v)
    })
}

/// Follows `path` (names separated by `/`) through nested objects.
pub fn at<'v>(v: &'v serde_json::Value, path: &str) -> Option<&'v serde_json::Value> {
    path.split('/').try_fold(v, |v, name| member(v, name))
}

/// The entries of a list (an empty slice when absent).
pub fn list<'v>(v: &'v serde_json::Value, path: &str) -> &'v [serde_json::Value] {
    at(v, path).and_then(|l| l.as_array()).map(Vec::as_slice).unwrap_or_default()
}

/// A leaf as text: strings as they are (64-bit numbers are strings in RFC 7951), numbers and
/// booleans printed, identities without their module prefix.
pub fn text(v: &serde_json::Value, path: &str) -> Option<String> {
    match at(v, path)? {
        serde_json::Value::String(s) => Some(
            s.split_once(':')
                .filter(|(m, n)| is_identifier(m) && m.contains('-') && is_identifier(n))
                .map_or_else(|| s.clone(), |(_, n)| n.to_string()),
        ),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        serde_json::Value::Array(a) if a.len() == 1 && a[0].is_null() => Some(String::new()),
        other => Some(other.to_string()),
    }
}

/// A YANG identifier (RFC 7950 §6.2): what a module name or an identity's name is, and what a
/// timestamp or an address with colons never is.
fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A numeric leaf (RFC 7951 writes 64-bit integers as strings).
pub fn number(v: &serde_json::Value, path: &str) -> Option<f64> {
    match at(v, path)? {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// A boolean leaf.
pub fn flag(v: &serde_json::Value, path: &str) -> Option<bool> {
    at(v, path)?.as_bool()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_prefixes_are_carried_into_the_data() {
        let raw = r#"<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:pfc="urn:p" message-id="1"><data><a xmlns="urn:a"><s>pfc:x</s></a><b xmlns="urn:b" xmlns:pfc="urn:own"/></data></rpc-reply>"#;
        let reply = match netconf_client::parse_message(raw.to_string()).expect("parses") {
            netconf_client::Incoming::Reply(r) => r,
            netconf_client::Incoming::Notification(_) => panic!("a reply"),
        };
        let ctx = Context::new(yang2::context::ContextFlags::empty()).expect("ctx");
        let data = reply_data(&reply, &ctx);
        let (a, b) = data.split_once("<b ").expect("two elements");
        assert!(a.starts_with("<a xmlns:pfc=\"urn:p\""), "the reply's declaration: {a}");
        assert!(a.contains("xmlns:inet=\"urn:ietf:params:xml:ns:yang:ietf-inet-types\""), "{a}");
        assert!(a.ends_with("xmlns=\"urn:a\"><s>pfc:x</s></a>"), "{a}");
        assert_eq!(b.matches("xmlns:pfc=").count(), 1, "its own declaration only: {b}");
        assert!(b.contains("xmlns:pfc=\"urn:own\""), "{b}");
    }

    #[test]
    fn members_are_found_whatever_their_prefix() {
        let v: serde_json::Value = serde_json::json!({
            "ietf-interfaces:interfaces": {"interface": [{"name": "lab0",
              "ieee802-dot1q-bridge:bridge-port": {"ieee802-dot1q-pfc-bridge:pfc": {
                "pfc-requests": "12", "allowance-source": "ieee802-dot1q-pfc:measurement-result",
                "link-pause": false}}}]}});
        let ifs = list(&v, "interfaces/interface");
        assert_eq!(ifs.len(), 1);
        assert_eq!(text(&ifs[0], "name").as_deref(), Some("lab0"));
        assert_eq!(number(&ifs[0], "bridge-port/pfc/pfc-requests"), Some(12.0));
        assert_eq!(
            text(&ifs[0], "bridge-port/pfc/allowance-source").as_deref(),
            Some("measurement-result")
        );
        assert_eq!(flag(&ifs[0], "bridge-port/pfc/link-pause"), Some(false));
        let t = serde_json::json!({"time": "2026-11-29T10:04:05.5+00:00"});
        assert_eq!(text(&t, "time").as_deref(), Some("2026-11-29T10:04:05.5+00:00"));
        assert!(list(&v, "interfaces/nothing").is_empty());
    }
}
