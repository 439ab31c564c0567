//! `set`/`delete` paths on the schema. A path is the node names from the top, list keys
//! positional after the list's name, then the value:
//!
//! ```text
//! set interfaces interface lab0 bridge-port pfc pfc-enable p3 p4
//!     └ container └ list   └ key └ container … └ leaf     └ value (rest of the line)
//! ```
//!
//! Choices and cases are invisible (their members are named directly), a name that two
//! modules both put at one place is written `module:name`, and a value with spaces may also be
//! quoted. The walk over the schema serves both completion (what may come next) and the
//! edit-config XML of `set` and `delete`.

use yang2::context::Context;
use yang2::data::{Data as _, DataFormat, DataPrinterFlags, DataTree};
use yang2::schema::{DataValueType, SchemaNode, SchemaNodeKind};

/// One node of a path, with the key values given for a list.
#[derive(Clone)]
pub struct Step<'a> {
    pub node: SchemaNode<'a>,
    pub keys: Vec<String>,
}

/// What may come after the words walked so far.
#[derive(Clone)]
pub enum Next<'a> {
    /// A child node: one of these.
    Child(Vec<SchemaNode<'a>>),
    /// The `index`th key of the last step's list.
    Key(SchemaNode<'a>, usize),
    /// The value of this leaf or leaf-list (words already given for it are in `value`).
    Value(SchemaNode<'a>),
}

/// The words of a path on the schema.
#[derive(Clone)]
pub struct Walk<'a> {
    pub steps: Vec<Step<'a>>,
    pub value: Option<String>,
    pub next: Next<'a>,
}

/// The data children of `node` (or the top-level nodes of every implemented module),
/// choices and cases looked through, state nodes left out when `config_only`.
pub fn children<'a>(
    ctx: &'a Context,
    node: Option<&SchemaNode<'a>>,
    config_only: bool,
) -> Vec<SchemaNode<'a>> {
    let mut out = Vec::new();
    let direct: Vec<SchemaNode<'a>> = match node {
        Some(n) => n.children().collect(),
        None => ctx
            .modules(false)
            .filter(|m| m.is_implemented())
            .flat_map(|m| m.data().collect::<Vec<_>>())
            .collect(),
    };
    for c in direct {
        flatten(c, config_only, &mut out);
    }
    out
}

fn flatten<'a>(node: SchemaNode<'a>, config_only: bool, out: &mut Vec<SchemaNode<'a>>) {
    match node.kind() {
        SchemaNodeKind::Choice | SchemaNodeKind::Case => {
            for c in node.children() {
                flatten(c, config_only, out);
            }
        }
        SchemaNodeKind::Container
        | SchemaNodeKind::List
        | SchemaNodeKind::Leaf
        | SchemaNodeKind::LeafList
            if !config_only || node.is_config() =>
        {
            out.push(node);
        }
        _ => {}
    }
}

/// The name a user types for `node` among `siblings`: plain, or `module:name` when another
/// sibling has the same name.
pub fn display_name(node: &SchemaNode<'_>, siblings: &[SchemaNode<'_>]) -> String {
    let clash = siblings.iter().filter(|s| s.name() == node.name()).count() > 1;
    if clash {
        format!("{}:{}", node.module().name(), node.name())
    } else {
        node.name().to_string()
    }
}

fn matches(node: &SchemaNode<'_>, word: &str) -> bool {
    word == node.name()
        || word.split_once(':').is_some_and(|(m, n)| n == node.name() && m == node.module().name())
}

/// Walks `words` (the path and perhaps a value) over the schema.
pub fn walk<'a>(ctx: &'a Context, words: &[String], config_only: bool) -> Result<Walk<'a>, String> {
    let mut steps: Vec<Step<'a>> = Vec::new();
    let mut next = Next::Child(children(ctx, None, config_only));
    let mut value: Option<String> = None;
    for word in words {
        next = match next {
            Next::Child(candidates) => {
                let found: Vec<&SchemaNode<'a>> =
                    candidates.iter().filter(|c| matches(c, word)).collect();
                let node = match found.as_slice() {
                    [one] => (*one).clone(),
                    [] => return Err(unknown_word(word, &steps, &candidates)),
                    _ => {
                        return Err(format!(
                            "`{word}` is ambiguous here: write it as {}",
                            found
                                .iter()
                                .map(|n| format!("{}:{}", n.module().name(), n.name()))
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ))
                    }
                };
                steps.push(Step { node: node.clone(), keys: Vec::new() });
                match node.kind() {
                    SchemaNodeKind::List if node.list_keys().next().is_some() => Next::Key(node, 0),
                    SchemaNodeKind::Leaf | SchemaNodeKind::LeafList => Next::Value(node),
                    _ => Next::Child(children(ctx, Some(&node), config_only)),
                }
            }
            Next::Key(list, index) => {
                if let Some(step) = steps.last_mut() {
                    step.keys.push(word.clone());
                }
                if index + 1 < list.list_keys().count() {
                    Next::Key(list, index + 1)
                } else {
                    Next::Child(children(ctx, Some(&list), config_only))
                }
            }
            Next::Value(leaf) => {
                value = Some(match value.take() {
                    Some(v) => format!("{v} {word}"),
                    None => word.clone(),
                });
                Next::Value(leaf)
            }
        };
    }
    Ok(Walk { steps, value, next })
}

fn unknown_word(word: &str, steps: &[Step<'_>], candidates: &[SchemaNode<'_>]) -> String {
    let place = if steps.is_empty() {
        "at the top".to_string()
    } else {
        format!("under {}", words_of(steps))
    };
    let mut names: Vec<String> = candidates.iter().map(|c| display_name(c, candidates)).collect();
    names.sort();
    names.dedup();
    let shown = if names.len() > 8 {
        format!("{}, … ({} in all; press ? to list them)", names[..8].join(", "), names.len())
    } else {
        names.join(", ")
    };
    format!("there is no `{word}` {place}: expected one of {shown}")
}

/// The path as the user would type it.
pub fn words_of(steps: &[Step<'_>]) -> String {
    let mut out = Vec::new();
    for s in steps {
        out.push(s.node.name().to_string());
        out.extend(s.keys.iter().map(|k| crate::words::quote(k)));
    }
    out.join(" ")
}

/// The path as a libyang data path (`/ietf-interfaces:interfaces/interface[name='lab0']/…`).
pub fn xpath(steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    let mut module = String::new();
    for s in steps {
        out.push('/');
        let m = s.node.module().name().to_string();
        if m != module {
            out.push_str(&m);
            out.push(':');
            module = m;
        }
        out.push_str(s.node.name());
        for (key, value) in s.node.list_keys().zip(&s.keys) {
            let quoted =
                if value.contains('\'') { format!("\"{value}\"") } else { format!("'{value}'") };
            out.push_str(&format!("[{}={quoted}]", key.name()));
        }
    }
    out
}

/// Checks a walk is a complete path for `set`: every key given, a value for a leaf.
fn complete<'w>(walk: &'w Walk<'_>, verb: &str) -> Result<&'w [Step<'w>], String> {
    if walk.steps.is_empty() {
        return Err(format!("{verb} needs a path: press ? to see where it may start"));
    }
    match &walk.next {
        Next::Key(list, index) => Err(format!(
            "{} needs its key `{}` after `{}`",
            words_of(&walk.steps),
            list.list_keys().nth(*index).map(|k| k.name().to_string()).unwrap_or_default(),
            list.name()
        )),
        _ => Ok(&walk.steps),
    }
}

/// The `<config>` content of `set`: the path created, the value checked against the leaf's
/// type by libyang (which also writes identities with their namespace).
pub fn set_xml(ctx: &Context, walk: &Walk<'_>) -> Result<String, String> {
    let steps = complete(walk, "set")?;
    let last = &walk.steps[walk.steps.len() - 1].node;
    let is_term = matches!(last.kind(), SchemaNodeKind::Leaf | SchemaNodeKind::LeafList);
    let value = match (&walk.value, is_term) {
        (None, true) if leaf_base_type(last) != Some(DataValueType::Empty) => {
            return Err(format!(
                "{} needs a value: {}",
                words_of(steps),
                type_help(last).unwrap_or_else(|| "a value".into())
            ))
        }
        (Some(_), false) => {
            return Err(format!(
                "{} is a {}, not a leaf: it takes no value",
                words_of(steps),
                kind_name(last)
            ))
        }
        (v, _) => v.clone(),
    };
    let path = xpath(steps);
    if path.contains('\0') || value.as_deref().is_some_and(|v| v.contains('\0')) {
        return Err("a path or value cannot contain a NUL character".into());
    }
    let mut tree = DataTree::new(ctx);
    let created = tree.new_path(&path, value.as_deref(), false);
    if let Err(first) = created {
        // An identity may be given without its module: try the modules that define one.
        let retried = value.as_deref().filter(|v| !v.contains(':')).and_then(|v| {
            (leaf_base_type(last) == Some(DataValueType::IdentityRef)).then(|| {
                ctx.modules(false).find_map(|m| {
                    let mut t = DataTree::new(ctx);
                    t.new_path(&path, Some(&format!("{}:{v}", m.name())), false).ok()?;
                    Some(t)
                })
            })?
        });
        match retried {
            Some(t) => tree = t,
            None => {
                let hint = if leaf_base_type(last) == Some(DataValueType::Bits) {
                    value.as_deref().map(|v| bits_hint(ctx, &path, v)).unwrap_or_default()
                } else {
                    String::new()
                };
                return Err(format!(
                    "{} {}: {}{hint}",
                    words_of(steps),
                    value.as_deref().map(crate::words::quote).unwrap_or_default(),
                    first.msg.as_deref().unwrap_or("refused by the schema")
                ));
            }
        }
    }
    tree.print_string(DataFormat::XML, DataPrinterFlags::WITH_SIBLINGS | DataPrinterFlags::SHRINK)
        .map_err(|e| format!("libyang cannot print the edit: {e}"))
        .map(Option::unwrap_or_default)
}

/// For a bits value the schema refused: the bits named `p0`, `p1`, … that this leaf takes (a
/// priority set, which the tables print as `3,4`), and the value as it must be typed when the
/// operator wrote the numbers alone (`3 4` → `p3 p4`). Empty when the bits are named otherwise.
fn bits_hint(ctx: &Context, path: &str, value: &str) -> String {
    let accepts = |v: &str| DataTree::new(ctx).new_path(path, Some(v), false).is_ok();
    let named = priority_bits(ctx, path);
    if named.is_empty() {
        return String::new();
    }
    let numbers: Vec<&str> = value.split(|c: char| c == ',' || c.is_whitespace()).collect();
    let typed: Vec<String> =
        numbers.iter().filter(|n| !n.is_empty()).map(|n| format!("p{n}")).collect();
    let mut hint = format!(" (the bits are {})", named.join(" "));
    if !typed.is_empty() && accepts(&typed.join(" ")) {
        hint = format!("; priorities are named, write `{}`{hint}", typed.join(" "));
    }
    hint
}

/// The bits named `p0` … `p63` that the bits leaf at `path` accepts (priority sets: libyang
/// does not list a bits type's names, so each is tried).
pub fn priority_bits(ctx: &Context, path: &str) -> Vec<String> {
    let accepts = |v: &str| DataTree::new(ctx).new_path(path, Some(v), false).is_ok();
    (0..64).map(|n| format!("p{n}")).filter(|b| accepts(b)).collect()
}

const NC: &str = "urn:ietf:params:xml:ns:netconf:base:1.0";

/// The `<config>` content of `delete`: the path down to the node, which carries
/// `nc:operation="delete"` (a leaf-list entry is named by its value).
pub fn delete_xml(walk: &Walk<'_>) -> Result<String, String> {
    let steps = complete(walk, "delete")?;
    let mut open = String::new();
    let mut close = Vec::new();
    let mut ns = String::new();
    for (i, s) in steps.iter().enumerate() {
        let name = s.node.name();
        let this_ns = s.node.module().namespace().to_string();
        let xmlns =
            if this_ns != ns { format!(" xmlns=\"{}\"", escape(&this_ns)) } else { String::new() };
        ns = this_ns;
        let last = i + 1 == steps.len();
        let op = if last {
            format!(" xmlns:nc=\"{NC}\" nc:operation=\"delete\"")
        } else {
            String::new()
        };
        open.push_str(&format!("<{name}{xmlns}{op}>"));
        for (key, value) in s.node.list_keys().zip(&s.keys) {
            open.push_str(&format!("<{0}>{1}</{0}>", key.name(), escape(value)));
        }
        if last && s.node.kind() == SchemaNodeKind::LeafList {
            match &walk.value {
                Some(v) => open.push_str(&escape(v)),
                None => {
                    return Err(format!("delete {}: name the entry to delete", words_of(steps)))
                }
            }
        }
        close.push(format!("</{name}>"));
    }
    close.reverse();
    Ok(open + &close.concat())
}

fn escape(s: &str) -> String {
    quick_xml::escape::escape(s).into_owned()
}

fn leaf_base_type(node: &SchemaNode<'_>) -> Option<DataValueType> {
    node.leaf_type().map(|t| t.base_type())
}

/// "container", "list", "leaf", "leaf-list".
pub fn kind_name(node: &SchemaNode<'_>) -> &'static str {
    match node.kind() {
        SchemaNodeKind::Container => "container",
        SchemaNodeKind::List => "list",
        SchemaNodeKind::Leaf => "leaf",
        SchemaNodeKind::LeafList => "leaf-list",
        _ => "node",
    }
}

/// A leaf's type for help: `<pfc-enable-type: bits>`, `<uint64, bits>` (with units).
pub fn type_help(node: &SchemaNode<'_>) -> Option<String> {
    let t = node.leaf_type()?;
    let base = base_type_name(t.base_type());
    let mut s = match t.typedef_name() {
        Some(name) if name != base => format!("<{name}: {base}"),
        _ => format!("<{base}"),
    };
    if let Some(u) = node.units() {
        s.push_str(&format!(", {u}"));
    }
    s.push('>');
    Some(s)
}

fn base_type_name(t: DataValueType) -> &'static str {
    match t {
        DataValueType::Binary => "binary",
        DataValueType::Uint8 => "uint8",
        DataValueType::Uint16 => "uint16",
        DataValueType::Uint32 => "uint32",
        DataValueType::Uint64 => "uint64",
        DataValueType::String => "string",
        DataValueType::Bits => "bits",
        DataValueType::Bool => "boolean",
        DataValueType::Dec64 => "decimal64",
        DataValueType::Empty => "empty",
        DataValueType::Enum => "enumeration",
        DataValueType::IdentityRef => "identityref",
        DataValueType::InstanceId => "instance-identifier",
        DataValueType::LeafRef => "leafref",
        DataValueType::Union => "union",
        DataValueType::Int8 => "int8",
        DataValueType::Int16 => "int16",
        DataValueType::Int32 => "int32",
        DataValueType::Int64 => "int64",
        DataValueType::Unknown => "value",
    }
}

/// The first sentence of a node's description, on one line.
pub fn summary(node: &SchemaNode<'_>) -> String {
    let d = node.description().unwrap_or_default();
    let one_line = d.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = one_line.find(". ").map(|i| i + 1).unwrap_or(one_line.len());
    one_line[..end].to_string()
}
