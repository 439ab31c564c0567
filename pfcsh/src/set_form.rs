//! A configuration as `set` lines, the form `set` reads back: `show configuration` prints it
//! and `show | compare` diffs it.

use yang2::data::{DataNodeRef, DataTree};
use yang2::schema::SchemaNodeKind;

use crate::words::quote;

/// Every leaf (and leaf-list entry) of `tree` as `set PATH VALUE`, list entries with nothing
/// but their keys as `set PATH`, in the tree's order.
pub fn lines(tree: &DataTree<'_>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(first) = tree.reference() {
        for node in first.inclusive_siblings() {
            walk(&node, &mut Vec::new(), &mut out);
        }
    }
    out
}

fn walk(node: &DataNodeRef<'_, '_>, prefix: &mut Vec<String>, out: &mut Vec<String>) {
    let schema = node.schema();
    let depth = prefix.len();
    prefix.push(schema.name().to_string());
    match schema.kind() {
        SchemaNodeKind::Leaf | SchemaNodeKind::LeafList => {
            if !schema.is_list_key() {
                let value = node.value_canonical().unwrap_or_default();
                out.push(format!("set {} {}", prefix.join(" "), quote(&value)));
            }
        }
        _ => {
            if schema.kind() == SchemaNodeKind::List {
                for key in node.list_keys() {
                    prefix.push(quote(&key.value_canonical().unwrap_or_default()));
                }
            }
            let before = out.len();
            for child in node.children() {
                walk(&child, prefix, out);
            }
            // An entry or presence container with nothing else in it still exists.
            if out.len() == before
                && (schema.kind() == SchemaNodeKind::List || !schema.is_np_container())
            {
                out.push(format!("set {}", prefix.join(" ")));
            }
        }
    }
    prefix.truncate(depth);
}
