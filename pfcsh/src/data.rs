//! Reply data in the schema's terms: the XML inside `<data>` parsed into a libyang tree, and
//! printed as RFC 7951 JSON by libyang itself (the `--json` output and what the tables read),
//! so pfcsh writes no JSON by hand and every value keeps its YANG type's JSON form.

use yang2::context::Context;
use yang2::data::{Data as _, DataFormat, DataParserFlags, DataPrinterFlags, DataTree, DataValidationFlags};

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
        serde_json::Value::String(s) => {
            Some(s.rsplit_once(':').filter(|(m, _)| m.contains('-') && !m.contains(' ')).map_or_else(|| s.clone(), |(_, n)| n.to_string()))
        }
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        serde_json::Value::Array(a) if a.len() == 1 && a[0].is_null() => Some(String::new()),
        other => Some(other.to_string()),
    }
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
    fn members_are_found_whatever_their_prefix() {
        let v: serde_json::Value = serde_json::json!({
            "ietf-interfaces:interfaces": {"interface": [{"name": "lab0",
              "ieee802-dot1q-bridge:bridge-port": {"ieee802-dot1q-pfc-bridge:pfc": {
                "pfc-requests": "12", "allowance-source": "ieee802-dot1q-pfc:measured",
                "link-pause": false}}}]}});
        let ifs = list(&v, "interfaces/interface");
        assert_eq!(ifs.len(), 1);
        assert_eq!(text(&ifs[0], "name").as_deref(), Some("lab0"));
        assert_eq!(number(&ifs[0], "bridge-port/pfc/pfc-requests"), Some(12.0));
        assert_eq!(text(&ifs[0], "bridge-port/pfc/allowance-source").as_deref(), Some("measured"));
        assert_eq!(flag(&ifs[0], "bridge-port/pfc/link-pause"), Some(false));
        assert!(list(&v, "interfaces/nothing").is_empty());
    }
}
