//! libyang's refusals as rpc-errors: the error-tag, error-app-tag, error-path and error-info
//! RFC 7950 prescribes for each constraint (§8.3.1, §8.3.2, §15), and the node named in the
//! message for clients that show only the message.
//!
//! libyang words its refusals in English and names the nodes in them; where its error carries
//! no data path, or the path is not the node RFC 7950 wants, the path and the error-info are
//! read from the message and the schema.

use crate::protocol::error::{ErrorInfo, ErrorPath, ErrorTag, ErrorType, RpcError};
use crate::yang::data::{DataPath, Step};
use crate::yang::model::{Kind, Model, SNode};
use crate::yang::path_text;
use crate::yang::schema::{Schema, SchemaError};
use netconf_proto::xml::Element;

/// The message libyang gives a node whose `when` is false (`LY_VCODE_NOWHEN`).
pub(crate) fn is_when_false(message: &str) -> bool {
    message.starts_with("When condition") && message.contains("not satisfied")
}

/// An rpc-error for a schema (libyang) refusal, with the offending node's path.
pub fn schema_error(schema: &Schema, e: &SchemaError) -> RpcError {
    let model = schema.model();
    let SchemaError::Invalid { message, path, app_tag, .. } = e else {
        return RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_message(e.to_string());
    };
    let lower = message.to_lowercase();
    let tag = match app_tag.as_deref() {
        Some("too-many-elements" | "too-few-elements" | "must-violation" | "data-not-unique") => {
            ErrorTag::OperationFailed
        }
        Some("instance-required" | "missing-choice") => ErrorTag::DataMissing,
        Some(tag) if path.as_deref().is_some_and(|p| schema.must_app_tag(p, tag)) => {
            ErrorTag::OperationFailed
        }
        // RFC 7950 §8.3.2: a node whose `when` is false is unknown-element.
        _ if is_when_false(message) => ErrorTag::UnknownElement,
        // RFC 7950 §8.3.1: data for two cases of one choice is bad-element.
        _ if message.starts_with("Data for both cases") => ErrorTag::BadElement,
        _ if lower.starts_with("invalid") => ErrorTag::InvalidValue,
        _ if lower.contains("mandatory") => ErrorTag::MissingElement,
        _ if lower.contains("duplicate") => ErrorTag::BadElement,
        _ if lower.contains("not found as a child") || lower.contains("unknown element") => {
            ErrorTag::UnknownElement
        }
        _ if lower.contains("must condition") || lower.contains("unique data") => {
            ErrorTag::OperationFailed
        }
        _ => ErrorTag::InvalidValue,
    };
    let mut data_path = path.as_deref().and_then(|p| DataPath::parse_json(model, p));
    // RFC 7950 §15.2: too-many-elements names the list, not the entry libyang counted last.
    if app_tag.as_deref() == Some("too-many-elements") {
        if let Some(last) = data_path.as_mut().and_then(|p| p.0.last_mut()) {
            last.keys.clear();
            last.value = None;
        }
    }
    let path = data_path.map(|p| p.to_xpath());
    // The message names the node too: many clients (Ansible among them) show only the
    // message, and "invalid identityref" says nothing of which of fifty interfaces it is.
    let at = path.as_ref().map(|(xpath, _)| format!(" (at {xpath})")).unwrap_or_default();
    let mut err = RpcError::new(tag, ErrorType::Application).with_message(format!(
        "{}{at}; correct the configuration and send it again.",
        message.trim_end().trim_end_matches('.')
    ));
    err.app_tag = app_tag.clone();
    if let Some((xpath, ns)) = path {
        err = err.with_path(xpath, ns);
    }
    match (app_tag.as_deref(), tag) {
        (Some("data-not-unique"), _) => {
            for p in non_unique(model, message) {
                err = err.with_info(ErrorInfo::NonUnique(p));
            }
        }
        (Some("missing-choice"), _) => {
            if let Some(choice) = quoted(message).first() {
                err = err.with_info(ErrorInfo::MissingChoice(choice.to_string()));
            }
        }
        (_, ErrorTag::BadElement) => {
            // "Data for both cases "a" and "b" exist.": the second case's data came last.
            if let Some(case) = quoted(message).last() {
                err = err.with_info(ErrorInfo::BadElement(case.to_string()));
            }
        }
        _ => {}
    }
    err
}

/// The texts between double quotes in a libyang message, in order.
fn quoted(message: &str) -> Vec<&str> {
    message.split('"').skip(1).step_by(2).collect()
}

/// RFC 7950 §15.1's `<non-unique>` items for libyang's "Unique data leaf(s) "a b" not
/// satisfied in "/m:list[k='1']" and "/m:list[k='2']"": each unique leaf of both entries.
fn non_unique(model: &Model, message: &str) -> Vec<ErrorPath> {
    let Some(rest) = message.strip_prefix("Unique data leaf(s) \"") else { return Vec::new() };
    let Some((leaves, rest)) = rest.split_once("\" not satisfied in \"") else {
        return Vec::new();
    };
    let rest = rest.trim_end().trim_end_matches('.').trim_end_matches('"');
    let Some((first, second)) = rest.split_once("\" and \"") else { return Vec::new() };
    let mut out = Vec::new();
    for entry in [first, second] {
        let Some(path) = DataPath::parse_json(model, entry) else { continue };
        let Some(list) = schema_node(model, &path) else { continue };
        for leaf in leaves.split_whitespace() {
            if let Some(steps) = descend(model, list, leaf) {
                let mut p = path.clone();
                p.0.extend(steps);
                let (xpath, namespaces) = p.to_xpath();
                out.push(ErrorPath { xpath, namespaces });
            }
        }
    }
    out
}

/// The schema node a data path ends at.
fn schema_node<'m>(model: &'m Model, path: &DataPath) -> Option<&'m SNode> {
    let mut s: Option<&SNode> = None;
    for step in &path.0 {
        s = Some(model.child_of(s, &step.ns, &step.name)?);
    }
    s
}

/// The data steps of `relative`, a schema path below `from` as libyang logs it (`a/m:b`,
/// choice and case names included, which name no data node and are left out).
fn descend(model: &Model, from: &SNode, relative: &str) -> Option<Vec<Step>> {
    let mut at = from;
    let mut ns = from.namespace.clone();
    let mut steps = Vec::new();
    for part in relative.split('/').filter(|p| !p.is_empty()) {
        let name = match part.split_once(':') {
            Some((module, name)) => {
                ns = model.module_by_name(module)?.namespace.clone();
                name
            }
            None => part,
        };
        if let Some(child) = at.child(&ns, name) {
            steps.push(Step::named(child));
            at = child;
        }
    }
    (!steps.is_empty()).then_some(steps)
}

/// Whether [`locate`] has something to find for `e`.
pub(crate) fn needs_tree(e: &SchemaError) -> bool {
    matches!(e, SchemaError::Invalid { path: None, app_tag: Some(t), schema_path: Some(_), .. }
        if t == "too-few-elements")
}

/// Gives a refusal libyang reported with a schema path only the data path RFC 7950 wants,
/// found in `root` (the configuration refused): for too-few-elements (§15.3) the list under
/// the first entry of its parent that holds fewer than `min-elements` entries.
pub(crate) fn locate(model: &Model, e: &mut SchemaError, root: &Element) {
    if !needs_tree(e) {
        return;
    }
    let SchemaError::Invalid { path, schema_path: Some(schema_path), .. } = e else { return };
    let Some(parts) = path_text::split(schema_path) else { return };
    // The schema nodes down to the list (choice and case names name none).
    let mut chain: Vec<&SNode> = Vec::new();
    let mut ns = String::new();
    for part in parts {
        if let Some(q) = &part.qualifier {
            match model.module_by_name(q) {
                Some(m) => ns = m.namespace.clone(),
                None => return,
            }
        }
        if let Some(s) = model.child_of(chain.last().copied(), &ns, &part.name) {
            chain.push(s);
        }
    }
    let Some((list, parents)) = chain.split_last() else { return };
    if !list.is_multi() {
        return;
    }
    let mut found = None;
    find_short(list, parents, root, &mut Vec::new(), &mut found);
    if let Some(mut p) = found {
        p.0.push(Step::named(list));
        *path = Some(p.to_json_path());
    }
}

/// Depth-first, the first instance path of `parents` (below `e`, at `at`) holding fewer than
/// `list.min_elements` entries of `list`. A non-presence container that is absent counts as
/// present and empty, as libyang validates it.
fn find_short(
    list: &SNode,
    parents: &[&SNode],
    e: &Element,
    at: &mut Vec<Step>,
    found: &mut Option<DataPath>,
) {
    if found.is_some() {
        return;
    }
    let Some((first, rest)) = parents.split_first() else {
        let n = e.elements().filter(|c| c.is(&list.namespace, &list.name)).count();
        if n < list.min_elements.max(1) as usize {
            *found = Some(DataPath(at.clone()));
        }
        return;
    };
    let mut any = false;
    for c in e.elements().filter(|c| c.is(&first.namespace, &first.name)) {
        any = true;
        at.push(Step::of(c, first));
        find_short(list, rest, c, at, found);
        at.pop();
    }
    if !any && first.kind == Kind::Container && !first.presence {
        at.push(Step::named(first));
        find_short(list, rest, &Element::default(), at, found);
        at.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::schema::test_support::{interfaces_schema, IF};

    #[test]
    fn quoted_texts_are_read_in_order() {
        assert_eq!(quoted("Data for both cases \"a\" and \"b\" exist."), ["a", "b"]);
        assert!(quoted("no quotes").is_empty());
    }

    #[test]
    fn non_unique_names_each_leaf_of_both_entries() {
        let s = interfaces_schema();
        let msg = "Unique data leaf(s) \"description\" not satisfied in \
                   \"/ietf-interfaces:interfaces/interface[name='a']\" and \
                   \"/ietf-interfaces:interfaces/interface[name='b']\".";
        let items = non_unique(s.model(), msg);
        let paths: Vec<&str> = items.iter().map(|p| p.xpath.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/if:interfaces/if:interface[if:name='a']/if:description",
                "/if:interfaces/if:interface[if:name='b']/if:description"
            ]
        );
        assert_eq!(items[0].namespaces, [("if".to_string(), IF.to_string())]);
    }

    #[test]
    fn when_messages_are_recognised() {
        assert!(is_when_false("When condition \"../mode = 'routed'\" not satisfied."));
        assert!(!is_when_false("Must condition \"x\" not satisfied."));
    }
}
