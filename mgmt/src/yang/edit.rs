//! `<edit-config>` applied to a data tree (RFC 6241 §7.2): the operations merge, replace,
//! create, delete and remove (the `operation` attribute), the default operation, ordered-by
//! user insertion (RFC 7950 §7.8.6 `insert`/`key`/`value`), choice case exclusion, and
//! rpc-errors with error-path for every refusal.
//!
//! The edit works on a copy of the target's tree; schema validation of the result (types,
//! mandatory nodes, leafrefs, must, unique...) is libyang's job afterwards.

// foldhash, not SipHash: DECISIONS.md "Hash maps keyed by what a request names".
use compact_str::CompactString;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::sync::Arc;

use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::yang::data::{key_of, DataPath, Key, Step};
use crate::yang::model::{Kind, Model, SNode};
use netconf_proto::xml::{Attribute, Element, Node, Scope, NETCONF_BASE_NS};

/// The YANG namespace of the `insert`, `key` and `value` attributes.
pub const YANG_NS: &str = "urn:ietf:params:xml:ns:yang:1";

/// An edit operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Merge into the existing data.
    Merge,
    /// Replace the existing node.
    Replace,
    /// Create; data-exists if present.
    Create,
    /// Delete; data-missing if absent.
    Delete,
    /// Delete if present.
    Remove,
    /// No operation: only locates the nodes below.
    None,
}

impl Op {
    fn from_name(s: &str) -> Option<Op> {
        match s {
            "merge" => Some(Op::Merge),
            "replace" => Some(Op::Replace),
            "create" => Some(Op::Create),
            "delete" => Some(Op::Delete),
            "remove" => Some(Op::Remove),
            _ => None,
        }
    }
}

/// `error-option`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorOption {
    /// Stop at the first error (nothing is applied).
    StopOnError,
    /// Apply what can be applied, report every error.
    ContinueOnError,
    /// Stop at the first error and restore the target (nothing is applied).
    RollbackOnError,
}

struct Ctx<'a> {
    model: &'a Model,
    continue_on_error: bool,
    errors: Vec<RpcError>,
}

/// Stops the walk (stop-on-error, rollback-on-error).
struct Stop;

impl Ctx<'_> {
    fn fail(&mut self, e: RpcError) -> Result<(), Stop> {
        self.errors.push(e);
        if self.continue_on_error {
            Ok(())
        } else {
            Err(Stop)
        }
    }
}

fn with_path(e: RpcError, path: &DataPath) -> RpcError {
    let (xpath, ns) = path.to_xpath();
    e.with_path(xpath, ns)
}

/// Where the walk is in the request: the elements, with their schema nodes, from the top down
/// to the parent of the element being edited. An error's data path is built from it only
/// when an error is reported (built for every container and list entry walked, the paths
/// cost a sixth of a large edit's work here).
#[derive(Clone, Copy)]
enum At<'a> {
    Top,
    Below(&'a At<'a>, &'a Element, &'a SNode),
}

impl At<'_> {
    /// The data path of this place.
    fn path(&self) -> DataPath {
        let mut steps = Vec::new();
        let mut at = self;
        while let At::Below(up, e, s) = at {
            steps.push(Step::of(e, s));
            at = up;
        }
        steps.reverse();
        DataPath(steps)
    }

    /// The name of the element the walk is in (`None` at the top level).
    fn name(&self) -> Option<&str> {
        match self {
            At::Top => None,
            At::Below(_, _, s) => Some(&s.name),
        }
    }
}

/// Applies the children of `config` (the `<config>` element) to `root` (a tree's root
/// holding its top-level nodes). `default_op` is merge, replace or none. Returns the errors;
/// with stop-on-error or rollback-on-error any error means `root` must be thrown away.
pub fn apply(
    model: &Model,
    root: &mut Element,
    config: &Element,
    scope: &Scope,
    default_op: Op,
    error_option: ErrorOption,
) -> Vec<RpcError> {
    let mut ctx = Ctx {
        model,
        continue_on_error: error_option == ErrorOption::ContinueOnError,
        errors: Vec::new(),
    };
    let mut scope = scope.clone();
    scope.enter(config);
    let top = At::Top;
    let _ = if default_op == Op::Replace {
        // The <config> completely replaces the datastore (RFC 6241 §7.2).
        match build_children(&mut ctx, None, config, &mut scope, &top) {
            Ok(children) => {
                root.children = children.into_iter().map(Node::Element).collect();
                Ok(())
            }
            Err(Stop) => Err(Stop),
        }
    } else {
        edit_children(&mut ctx, None, root, config, default_op, &mut scope, &top)
    };
    ctx.errors
}

/// The operation attribute of `e`, if any (`nc:operation`; an unprefixed `operation` is
/// accepted too, as many hand-written requests use it).
fn op_attr(e: &Element) -> Option<&str> {
    e.attribute_ns(NETCONF_BASE_NS, "operation").or_else(|| e.attribute("operation"))
}

fn resolve_child<'m>(
    ctx: &mut Ctx<'m>,
    sparent: Option<&'m SNode>,
    c: &Element,
    at: &At<'_>,
) -> Result<Option<&'m Arc<SNode>>, Stop> {
    let ns = c.namespace.as_deref().unwrap_or_default();
    if let Some(s) = ctx.model.child_of(sparent, ns, &c.name) {
        if !s.config {
            ctx.fail(with_path(
                RpcError::new(ErrorTag::InvalidValue, ErrorType::Application)
                    .with_message(format!(
                        "<{}> is state data, not configuration; it cannot be edited.",
                        c.name
                    ))
                    .with_info(ErrorInfo::BadElement(c.name.to_string())),
                &at.path().child(Step::named(s)),
            ))?;
            return Ok(None);
        }
        return Ok(Some(s));
    }
    let e = if c.namespace.is_some() && ctx.model.module_by_namespace(ns).is_none() {
        RpcError::new(ErrorTag::UnknownNamespace, ErrorType::Application)
            .with_message(format!(
                "The namespace '{ns}' of <{}> belongs to no module this server implements.",
                c.name
            ))
            .with_info(ErrorInfo::BadElement(c.name.to_string()))
            .with_info(ErrorInfo::BadNamespace(ns.to_string()))
    } else {
        let place = match at.name() {
            Some(p) => format!("in <{p}>"),
            None => "at the top level".to_string(),
        };
        RpcError::new(ErrorTag::UnknownElement, ErrorType::Application)
            .with_message(format!(
                "The schema has no element <{}> in namespace '{ns}' {place}.",
                c.name
            ))
            .with_info(ErrorInfo::BadElement(c.name.to_string()))
    };
    ctx.fail(with_path(e, &at.path()))?;
    Ok(None)
}

/// Checks that every key of list entry `c` is present.
fn check_keys(ctx: &mut Ctx<'_>, c: &Element, s: &SNode, at: &At<'_>) -> Result<bool, Stop> {
    for k in &s.keys {
        let n = c
            .elements()
            .filter(|e| e.name == *k && e.namespace.as_deref() == Some(&s.namespace))
            .count();
        if n != 1 {
            let (tag, what) = if n == 0 {
                (ErrorTag::MissingElement, "has no")
            } else {
                (ErrorTag::BadElement, "has more than one")
            };
            ctx.fail(with_path(
                RpcError::new(tag, ErrorType::Application)
                    .with_message(format!(
                        "The <{}> list entry {what} key <{k}>; give each key exactly once.",
                        s.name
                    ))
                    .with_info(ErrorInfo::BadElement(k.clone())),
                &at.path().child(Step::named(s)),
            ))?;
            return Ok(false);
        }
    }
    Ok(true)
}

/// The sibling set of one parent during an edit.
struct Siblings {
    elems: Vec<Option<Element>>,
    index: HashMap<Key, usize>,
    created: HashSet<usize>,
}

impl Siblings {
    /// The children of `data`, with room for `more` (the request's elements for them: most
    /// of a large edit's nodes are new, and growing the maps for them rehashed each time).
    fn new(model: &Model, sparent: Option<&SNode>, data: &mut Element, more: usize) -> Siblings {
        let mut elems = Vec::with_capacity(data.children.len() + more);
        let mut index = HashMap::with_capacity(data.children.len() + more);
        for n in std::mem::take(&mut data.children) {
            if let Node::Element(e) = n {
                let s =
                    model.child_of(sparent, e.namespace.as_deref().unwrap_or_default(), &e.name);
                index.insert(key_of(&e, s.map(Arc::as_ref)), elems.len());
                elems.push(Some(e));
            }
        }
        Siblings { elems, index, created: HashSet::with_capacity(more) }
    }

    fn finish(self, data: &mut Element) {
        // (`filter_map`, not `flatten`: the standard library then reuses the list's allocation, a
        // `Node` being an `Option<Element>`'s size.)
        data.children = self.elems.into_iter().filter_map(|e| e.map(Node::Element)).collect();
    }

    fn remove(&mut self, key: &Key) -> Option<(usize, Element)> {
        let i = self.index.remove(key)?;
        self.elems.get_mut(i)?.take().map(|e| (i, e))
    }

    fn reindex(&mut self, model: &Model, sparent: Option<&SNode>) {
        let mut elems: Vec<Option<Element>> =
            std::mem::take(&mut self.elems).into_iter().filter(Option::is_some).collect();
        self.index.clear();
        self.created.clear();
        for (i, e) in elems.iter_mut().enumerate() {
            if let Some(e) = e {
                let s =
                    model.child_of(sparent, e.namespace.as_deref().unwrap_or_default(), &e.name);
                self.index.insert(key_of(e, s.map(Arc::as_ref)), i);
            }
        }
        self.elems = elems;
    }

    /// Inserts `e` at `pos` (`None`: at the end).
    fn insert(
        &mut self,
        model: &Model,
        sparent: Option<&SNode>,
        key: Key,
        e: Element,
        pos: Option<usize>,
    ) {
        match pos {
            None => {
                let i = self.elems.len();
                self.elems.push(Some(e));
                self.index.insert(key, i);
                self.created.insert(i);
            }
            Some(p) => {
                let created_keys: Vec<Key> = self
                    .created
                    .iter()
                    .filter_map(|&i| self.elems.get(i).and_then(Option::as_ref))
                    .map(|e| {
                        key_of(
                            e,
                            model
                                .child_of(
                                    sparent,
                                    e.namespace.as_deref().unwrap_or_default(),
                                    &e.name,
                                )
                                .map(Arc::as_ref),
                        )
                    })
                    .collect();
                let p = p.min(self.elems.len());
                self.elems.insert(p, Some(e));
                self.reindex(model, sparent);
                for k in created_keys.iter().chain(std::iter::once(&key)) {
                    if let Some(&i) = self.index.get(k) {
                        self.created.insert(i);
                    }
                }
            }
        }
    }

    fn get_mut(&mut self, key: &Key) -> Option<&mut Element> {
        let i = *self.index.get(key)?;
        self.elems.get_mut(i)?.as_mut()
    }
}

/// Where an ordered-by user entry goes, from its `insert` attribute; `Ok(None)`: at the end
/// (or where it already is).
fn insert_position(
    ctx: &mut Ctx<'_>,
    sibs: &Siblings,
    c: &Element,
    s: &SNode,
    at: &At<'_>,
) -> Result<Option<Option<usize>>, Stop> {
    let Some(how) = c.attribute_ns(YANG_NS, "insert") else { return Ok(Some(None)) };
    if !s.user_ordered {
        return Ok(Some(None));
    }
    let bad = |msg: String| {
        with_path(
            RpcError::new(ErrorTag::BadAttribute, ErrorType::Application)
                .with_message(msg)
                .with_info(ErrorInfo::BadAttribute("insert".into()))
                .with_info(ErrorInfo::BadElement(c.name.to_string())),
            &at.path().child(Step::named(s)),
        )
    };
    let first_of = |sibs: &Siblings| {
        sibs.elems.iter().position(|e| {
            e.as_ref()
                .is_some_and(|e| e.name == s.name && e.namespace.as_deref() == Some(&s.namespace))
        })
    };
    match how {
        "first" => Ok(Some(Some(first_of(sibs).unwrap_or(sibs.elems.len())))),
        "last" => Ok(Some(None)),
        "before" | "after" => {
            let values = if s.kind == Kind::List {
                let Some(k) = c.attribute_ns(YANG_NS, "key") else {
                    ctx.fail(bad(format!(
                        "insert=\"{how}\" needs a yang:key attribute naming the entry."
                    )))?;
                    return Ok(None);
                };
                match parse_key_predicates(k, &s.keys) {
                    Some(v) => v.into_iter().map(CompactString::from).collect(),
                    None => {
                        ctx.fail(bad(format!(
                            "The yang:key attribute '{k}' does not name every key of <{}>.",
                            s.name
                        )))?;
                        return Ok(None);
                    }
                }
            } else {
                let Some(v) = c.attribute_ns(YANG_NS, "value") else {
                    ctx.fail(bad(format!("insert=\"{how}\" needs a yang:value attribute.")))?;
                    return Ok(None);
                };
                vec![v.into()]
            };
            let key = Key { ns: s.namespace.as_str().into(), name: s.name.as_str().into(), values };
            match sibs.index.get(&key) {
                Some(&i) => Ok(Some(Some(if how == "before" { i } else { i + 1 }))),
                None => {
                    // RFC 7950 §15.7: bad-attribute, error-app-tag missing-instance.
                    let mut e = bad(format!(
                        "The entry named by the insert attribute does not exist in <{}>; name \
                         an existing entry in yang:{} or use insert=\"first\" or \"last\".",
                        s.name,
                        if s.kind == Kind::List { "key" } else { "value" }
                    ));
                    e.app_tag = Some("missing-instance".into());
                    ctx.fail(e)?;
                    Ok(None)
                }
            }
        }
        other => {
            ctx.fail(bad(format!(
                "'{other}' is not an insert value; use first, last, before or after."
            )))?;
            Ok(None)
        }
    }
}

/// Parses `[k='v'][p:k2="w"]` into values in key order.
fn parse_key_predicates(text: &str, keys: &[String]) -> Option<Vec<String>> {
    let mut found: HashMap<String, String> = HashMap::new();
    let mut rest = text.trim();
    while let Some(r) = rest.strip_prefix('[') {
        let eq = r.find('=')?;
        let name = r[..eq].trim();
        let name = name.rsplit(':').next().unwrap_or(name).to_string();
        let r = r[eq + 1..].trim_start();
        let quote = r.chars().next()?;
        if quote != '\'' && quote != '"' {
            return None;
        }
        let r = &r[1..];
        let end = r.find(quote)?;
        found.insert(name, r[..end].to_string());
        rest = r[end + 1..].trim_start().strip_prefix(']')?.trim_start();
    }
    if !rest.is_empty() {
        return None;
    }
    keys.iter().map(|k| found.get(k).cloned()).collect()
}

/// RFC 7950 §8.3.1: data for two cases of one choice in the request is bad-element, naming
/// the first node of the later case. Nodes the request deletes or removes do not count: one
/// request may remove a case and create another.
fn check_cases(
    ctx: &mut Ctx<'_>,
    sparent: Option<&SNode>,
    cfg: &Element,
    at: &At<'_>,
) -> Result<(), Stop> {
    if !ctx.model.choices_among(sparent) {
        return Ok(());
    }
    // (choice, case, the node of that case seen first)
    let mut seen: Vec<(u32, u32, &SNode)> = Vec::new();
    for c in cfg.elements() {
        if matches!(op_attr(c), Some("delete" | "remove")) {
            continue;
        }
        let ns = c.namespace.as_deref().unwrap_or_default();
        let Some(s) = ctx.model.child_of(sparent, ns, &c.name) else { continue };
        for &(choice, case) in &s.cases {
            let other = seen.iter().find(|(ch, ca, _)| *ch == choice && *ca != case);
            if let Some(&(_, _, first)) = other {
                return ctx.fail(with_path(
                    RpcError::new(ErrorTag::BadElement, ErrorType::Application)
                        .with_message(format!(
                            "<{}> and <{}> belong to different cases of one choice; send the \
                             nodes of one case only.",
                            first.name, c.name
                        ))
                        .with_info(ErrorInfo::BadElement(c.name.to_string())),
                    &at.path().child(Step::of(c, s)),
                ));
            }
            if !seen.iter().any(|(ch, ca, _)| *ch == choice && *ca == case) {
                seen.push((choice, case, s));
            }
        }
    }
    Ok(())
}

fn edit_children<'m>(
    ctx: &mut Ctx<'m>,
    sparent: Option<&'m SNode>,
    data: &mut Element,
    cfg: &Element,
    parent_op: Op,
    scope: &mut Scope,
    at: &At<'_>,
) -> Result<(), Stop> {
    check_cases(ctx, sparent, cfg, at)?;
    let mut sibs = Siblings::new(ctx.model, sparent, data, cfg.children.len());
    let result = edit_siblings(ctx, sparent, &mut sibs, cfg, parent_op, scope, at);
    // Choice cases: a node created in one case removes the other cases' nodes. (Looked for
    // only where the schema has a choice: most lists and containers have none, and a large
    // create would look up each of its nodes again.)
    if !ctx.model.choices_among(sparent) {
        sibs.finish(data);
        return result;
    }
    let created_cases: Vec<(u32, u32)> = sibs
        .created
        .iter()
        .filter_map(|&i| sibs.elems.get(i).and_then(Option::as_ref))
        .filter_map(|e| {
            ctx.model.child_of(sparent, e.namespace.as_deref().unwrap_or_default(), &e.name)
        })
        .flat_map(|s| s.cases.iter().copied())
        .collect();
    if !created_cases.is_empty() {
        for (i, slot) in sibs.elems.iter_mut().enumerate() {
            if sibs.created.contains(&i) {
                continue;
            }
            let conflict = slot.as_ref().is_some_and(|e| {
                ctx.model
                    .child_of(sparent, e.namespace.as_deref().unwrap_or_default(), &e.name)
                    .is_some_and(|s| {
                        s.cases.iter().any(|(ch, case)| {
                            created_cases.iter().any(|(ch2, case2)| ch == ch2 && case != case2)
                        })
                    })
            });
            if conflict {
                *slot = None;
            }
        }
    }
    sibs.finish(data);
    result
}

fn edit_siblings<'m>(
    ctx: &mut Ctx<'m>,
    sparent: Option<&'m SNode>,
    sibs: &mut Siblings,
    cfg: &Element,
    parent_op: Op,
    scope: &mut Scope,
    at: &At<'_>,
) -> Result<(), Stop> {
    for c in cfg.elements() {
        scope.enter(c);
        let r = edit_one(ctx, sparent, sibs, c, parent_op, scope, at);
        scope.leave();
        r?;
    }
    Ok(())
}

fn edit_one<'m>(
    ctx: &mut Ctx<'m>,
    sparent: Option<&'m SNode>,
    sibs: &mut Siblings,
    c: &Element,
    parent_op: Op,
    scope: &mut Scope,
    at: &At<'_>,
) -> Result<(), Stop> {
    let Some(s) = resolve_child(ctx, sparent, c, at)? else { return Ok(()) };
    if s.is_key && sparent.is_some_and(|p| p.kind == Kind::List) {
        // Keys identify their entry; they are not edited. An operation that would change a
        // key on its own (delete it, create or replace it) cannot be done: say so rather than
        // answer <ok/> and change nothing.
        if let Some(v) = op_attr(c).filter(|v| !matches!(*v, "merge" | "none")) {
            let list = sparent.map(|p| p.name.as_str()).unwrap_or_default();
            return ctx.fail(with_path(
                RpcError::new(ErrorTag::BadAttribute, ErrorType::Application)
                    .with_message(format!(
                        "operation=\"{v}\" cannot be put on key leaf <{}>: a key only names its \
                         entry; put the operation on the <{list}> entry instead.",
                        c.name
                    ))
                    .with_info(ErrorInfo::BadAttribute("operation".into()))
                    .with_info(ErrorInfo::BadElement(c.name.to_string())),
                &at.path().child(Step::named(s)),
            ));
        }
        return Ok(());
    }
    let op = match op_attr(c) {
        None => parent_op,
        Some(v) => match Op::from_name(v) {
            Some(op) => op,
            None => {
                return ctx.fail(with_path(
                    RpcError::new(ErrorTag::BadAttribute, ErrorType::Application)
                        .with_message(format!(
                            "'{v}' is not an edit operation; use merge, replace, create, delete or remove."
                        ))
                        .with_info(ErrorInfo::BadAttribute("operation".into()))
                        .with_info(ErrorInfo::BadElement(c.name.to_string())),
                    &at.path().child(Step::named(s)),
                ));
            }
        },
    };
    if s.kind == Kind::List && !check_keys(ctx, c, s, at)? {
        return Ok(());
    }
    let key = edit_key(ctx.model, c, s, scope);
    // The path is built only where it is used (errors, descending): most nodes of a large
    // edit are leaves that need neither.
    let here = At::Below(at, c, s);
    let exists = sibs.index.contains_key(&key);
    match op {
        Op::Delete | Op::Remove => {
            if sibs.remove(&key).is_none() && op == Op::Delete {
                ctx.fail(with_path(
                    RpcError::new(ErrorTag::DataMissing, ErrorType::Application).with_message(
                        format!("<{}> cannot be deleted: it does not exist.", c.name),
                    ),
                    &here.path(),
                ))?;
            }
        }
        Op::Create if exists => {
            ctx.fail(with_path(
                RpcError::new(ErrorTag::DataExists, ErrorType::Application).with_message(format!(
                    "<{}> cannot be created: it already exists; use merge or replace.",
                    c.name
                )),
                &here.path(),
            ))?;
        }
        Op::Create | Op::Replace => {
            let Some(pos) = insert_position(ctx, sibs, c, s, at)? else { return Ok(()) };
            let built = build(ctx, s, c, scope, at)?;
            let Some(built) = built else { return Ok(()) };
            let old = sibs.remove(&key);
            // An existing entry keeps its place unless `insert` names one (RFC 7950 §7.8.6:
            // with replace, insert also moves the entry; "last" is the end).
            let pos = if moves(c, s) { pos } else { pos.or(old.map(|(i, _)| i)) };
            sibs.insert(ctx.model, sparent, key, built, pos);
        }
        Op::Merge => {
            if !exists {
                let Some(pos) = insert_position(ctx, sibs, c, s, at)? else { return Ok(()) };
                if s.is_term() || s.kind == Kind::AnyData {
                    if let Some(built) = build(ctx, s, c, scope, at)? {
                        sibs.insert(ctx.model, sparent, key, built, pos);
                    }
                } else {
                    let mut node = skeleton(c, s, scope);
                    edit_children(ctx, Some(s), &mut node, c, Op::Merge, scope, &here)?;
                    sibs.insert(ctx.model, sparent, key, node, pos);
                }
            } else if s.is_term() || s.kind == Kind::AnyData {
                if s.kind == Kind::LeafList && moves(c, s) {
                    move_existing(ctx, sibs, sparent, key, c, s, at)?;
                } else if let Some(built) = build(ctx, s, c, scope, at)? {
                    if let Some(d) = sibs.get_mut(&key) {
                        *d = built;
                    }
                }
            } else {
                if s.kind == Kind::List && moves(c, s) {
                    move_existing(ctx, sibs, sparent, key.clone(), c, s, at)?;
                }
                if let Some(d) = sibs.get_mut(&key) {
                    edit_children(ctx, Some(s), d, c, Op::Merge, scope, &here)?;
                }
            }
        }
        Op::None => {
            if s.is_term() || s.kind == Kind::AnyData {
                return Ok(());
            }
            if let Some(d) = sibs.get_mut(&key) {
                edit_children(ctx, Some(s), d, c, Op::None, scope, &here)?;
            } else if writes_below(c) {
                let mut node = skeleton(c, s, scope);
                edit_children(ctx, Some(s), &mut node, c, Op::None, scope, &here)?;
                sibs.insert(ctx.model, sparent, key, node, None);
            } else if !only_removes_below(c) {
                ctx.fail(with_path(
                    RpcError::new(ErrorTag::DataMissing, ErrorType::Application).with_message(
                        format!(
                            "<{}> does not exist, and default-operation none does not create it; \
                             give it an operation or create it first.",
                            c.name
                        ),
                    ),
                    &here.path(),
                ))?;
            }
        }
    }
    Ok(())
}

/// Whether request element `c` for an entry of `s` asks to be put somewhere: an `insert`
/// attribute on an ordered-by user list or leaf-list.
fn moves(c: &Element, s: &SNode) -> bool {
    s.user_ordered && c.attribute_ns(YANG_NS, "insert").is_some()
}

/// Moves the existing entry `key` where `c`'s `insert` attribute says (RFC 7950 §7.8.6,
/// §7.7.9: insert moves an entry that exists; "last" is the end). The entry's old place is
/// a hole while the new one is found, so "before"/"after" positions count as they are seen;
/// an anchor that does not exist leaves the entry where it was.
fn move_existing(
    ctx: &mut Ctx<'_>,
    sibs: &mut Siblings,
    sparent: Option<&SNode>,
    key: Key,
    c: &Element,
    s: &SNode,
    at: &At<'_>,
) -> Result<(), Stop> {
    let Some((old, e)) = sibs.remove(&key) else { return Ok(()) };
    match insert_position(ctx, sibs, c, s, at) {
        Ok(Some(pos)) => {
            sibs.insert(ctx.model, sparent, key, e, pos);
            Ok(())
        }
        Ok(None) => {
            sibs.insert(ctx.model, sparent, key, e, Some(old));
            Ok(())
        }
        Err(stop) => {
            sibs.insert(ctx.model, sparent, key, e, Some(old));
            Err(stop)
        }
    }
}

/// Whether an element below `c` asks to merge, replace or create (so its ancestors must
/// exist).
fn writes_below(c: &Element) -> bool {
    c.elements().any(|e| {
        matches!(op_attr(e).and_then(Op::from_name), Some(Op::Merge | Op::Replace | Op::Create))
            || writes_below(e)
    })
}

/// Whether every operation below `c` is `remove` (and there is at least one).
fn only_removes_below(c: &Element) -> bool {
    fn walk(c: &Element, any: &mut bool) -> bool {
        c.elements().all(|e| match op_attr(e).and_then(Op::from_name) {
            Some(Op::Remove) => {
                *any = true;
                true
            }
            Some(_) => false,
            None => walk(e, any),
        })
    }
    let mut any = false;
    walk(c, &mut any) && any
}

/// The identity of the request's element `c` (described by `s`, with `scope` the declarations
/// in force at `c`) among stored siblings: `key_of`, with the values of identityref keys (and
/// of an identityref leaf-list entry) written as stored data has them, whatever prefix the
/// request used: libyang's form, no prefix for an identity of the node's own module, the
/// module's prefix otherwise. So `x:a` and `a` name the same entry when `x` is the module's
/// namespace.
fn edit_key(model: &Model, c: &Element, s: &SNode, scope: &mut Scope) -> Key {
    let mut key = key_of(c, Some(s));
    match s.kind {
        Kind::List => {
            for (k, value) in s.keys.iter().zip(key.values.iter_mut()) {
                if !s.child(&s.namespace, k).is_some_and(|ks| ks.identityref) {
                    continue;
                }
                let Some(kv) = c
                    .elements()
                    .find(|e| e.name == *k && e.namespace.as_deref() == Some(&s.namespace))
                else {
                    continue;
                };
                scope.enter(kv);
                if let Some(v) = stored_identity(model, value, &s.namespace, scope) {
                    *value = v.into();
                }
                scope.leave();
            }
        }
        Kind::LeafList if s.identityref => {
            if let Some(value) = key.values.first_mut() {
                if let Some(v) = stored_identity(model, value, &s.namespace, scope) {
                    *value = v.into();
                }
            }
        }
        _ => {}
    }
    key
}

/// An identityref value as stored data writes it (see `edit_key`), for a node of namespace
/// `own`; `None` when its prefix is not declared or names no module (the value is then
/// compared as written, and libyang refuses it).
fn stored_identity(model: &Model, value: &str, own: &str, scope: &Scope) -> Option<String> {
    let value = value.trim();
    let (prefix, name) = match value.split_once(':') {
        Some((p, n)) => (Some(p), n),
        None => (None, value),
    };
    let ns = scope.resolve(prefix)?;
    if ns == own {
        return Some(name.to_string());
    }
    Some(format!("{}:{name}", model.module_by_namespace(ns)?.prefix))
}

/// A new container or list entry holding only its keys (`scope`: the declarations in force
/// at `c`, which a key's value may use: an identityref key's prefix).
fn skeleton(c: &Element, s: &SNode, scope: &mut Scope) -> Element {
    let mut node = Element::new(&s.namespace, &s.name);
    if s.kind == Kind::List {
        for k in &s.keys {
            if let Some(kv) =
                c.elements().find(|e| e.name == *k && e.namespace.as_deref() == Some(&s.namespace))
            {
                scope.enter(kv);
                node.push(clean_leaf(kv, scope));
                scope.leave();
            }
        }
    }
    node
}

/// A copy of leaf `c` without prefix or attributes, declaring the in-scope prefixes its value
/// uses (identityrefs, instance-identifiers).
fn clean_leaf(c: &Element, scope: &Scope) -> Element {
    let text = c.text_compact();
    let mut namespaces = Vec::new();
    if text.contains(':') {
        for (p, uri) in scope.prefixed() {
            if uses_prefix(&text, p) {
                namespaces.push((Some(p.to_string()), uri.to_string()));
            }
        }
        // Declarations on the leaf itself win over outer ones (scope already has them).
    }
    let mut e = Element::named(c.namespace.clone(), c.name.clone());
    if !text.is_empty() {
        e.children = vec![Node::Text(text)];
    }
    if !namespaces.is_empty() {
        *e.namespaces_mut() = namespaces;
    }
    e
}

/// Whether `text` has `prefix` followed by a colon.
fn uses_prefix(text: &str, prefix: &str) -> bool {
    text.match_indices(prefix).any(|(i, _)| text[i + prefix.len()..].starts_with(':'))
}

/// A clean copy of the config subtree `c` (a node being created or replaced): operation
/// attributes dropped, nodes marked delete/remove left out, unknown nodes refused.
fn build<'m>(
    ctx: &mut Ctx<'m>,
    s: &'m SNode,
    c: &Element,
    scope: &mut Scope,
    at: &At<'_>,
) -> Result<Option<Element>, Stop> {
    match s.kind {
        Kind::Leaf | Kind::LeafList => {
            if c.has_elements() {
                ctx.fail(with_path(
                    RpcError::new(ErrorTag::BadElement, ErrorType::Application)
                        .with_message(format!("<{}> takes a value, not child elements.", c.name))
                        .with_info(ErrorInfo::BadElement(c.name.to_string())),
                    &at.path().child(Step::of(c, s)),
                ))?;
                return Ok(None);
            }
            Ok(Some(clean_leaf(c, scope)))
        }
        Kind::AnyData => {
            let mut e = c.clone();
            e.set_prefix(None);
            e.retain_attributes(|a: &Attribute| {
                a.namespace.as_deref() != Some(NETCONF_BASE_NS) && a.name != "operation"
            });
            Ok(Some(e))
        }
        Kind::Container | Kind::List => {
            let here = At::Below(at, c, s);
            let children = build_children(ctx, Some(s), c, scope, &here)?;
            let mut e = Element::new(&s.namespace, &s.name);
            e.children = children.into_iter().map(Node::Element).collect();
            Ok(Some(e))
        }
    }
}

fn build_children<'m>(
    ctx: &mut Ctx<'m>,
    sparent: Option<&'m SNode>,
    c: &Element,
    scope: &mut Scope,
    at: &At<'_>,
) -> Result<Vec<Element>, Stop> {
    check_cases(ctx, sparent, c, at)?;
    let mut out: Vec<Element> = Vec::new();
    let mut seen: HashSet<Key> = HashSet::new();
    for child in c.elements() {
        scope.enter(child);
        let r = (|| -> Result<(), Stop> {
            let Some(cs) = resolve_child(ctx, sparent, child, at)? else { return Ok(()) };
            match op_attr(child) {
                Some("delete" | "remove") => return Ok(()),
                Some(v) if Op::from_name(v).is_none() => {
                    return ctx.fail(with_path(
                        RpcError::new(ErrorTag::BadAttribute, ErrorType::Application)
                            .with_message(format!("'{v}' is not an edit operation."))
                            .with_info(ErrorInfo::BadAttribute("operation".into()))
                            .with_info(ErrorInfo::BadElement(child.name.to_string())),
                        &at.path().child(Step::named(cs)),
                    ));
                }
                _ => {}
            }
            if cs.kind == Kind::List && !check_keys(ctx, child, cs, at)? {
                return Ok(());
            }
            let key = edit_key(ctx.model, child, cs, scope);
            if !seen.insert(key) {
                return ctx.fail(with_path(
                    RpcError::new(ErrorTag::BadElement, ErrorType::Application)
                        .with_message(format!(
                            "<{}> appears twice for the same instance; give each instance once.",
                            child.name
                        ))
                        .with_info(ErrorInfo::BadElement(child.name.to_string())),
                    &at.path().child(Step::of(child, cs)),
                ));
            }
            if let Some(b) = build(ctx, cs, child, scope, at)? {
                out.push(b);
            }
            Ok(())
        })();
        scope.leave();
        r?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::data::{data_text, parse_data};
    use crate::yang::schema::test_support::{interfaces_schema as schema, IANA, IF};
    use crate::yang::schema::Schema;
    use netconf_proto::xml;

    fn config(body: &str) -> Element {
        let text = format!(
            "<config xmlns=\"{NETCONF_BASE_NS}\" xmlns:nc=\"{NETCONF_BASE_NS}\" xmlns:ianaift=\"{IANA}\">{body}</config>"
        );
        let mut e = xml::parse(text.as_bytes()).expect("xml");
        e.strip_blank_text();
        e
    }

    fn iface(name: &str, extra: &str, op: &str) -> String {
        format!(
            "<interfaces xmlns=\"{IF}\"><interface{op}><name>{name}</name><type>ianaift:ethernetCsmacd</type>{extra}</interface></interfaces>"
        )
    }

    fn run(s: &Schema, root: &mut Element, body: &str, op: Op) -> Vec<RpcError> {
        apply(s.model(), root, &config(body), &Scope::new(), op, ErrorOption::StopOnError)
    }

    fn canonical(s: &Schema, root: &Element) -> String {
        s.canonical_config(&data_text(root)).expect("valid")
    }

    #[test]
    fn merge_create_delete_remove() {
        let s = schema();
        let mut root = parse_data("").expect("empty");
        assert!(run(&s, &mut root, &iface("eth0", "<mtu xmlns='x'/>", ""), Op::Merge).len() == 1);
        let mut root = parse_data("").expect("empty");
        assert!(run(&s, &mut root, &iface("eth0", "", ""), Op::Merge).is_empty());
        let text = canonical(&s, &root);
        assert!(text.contains("<name>eth0</name>"), "{text}");
        assert!(text.contains("xmlns:ianaift"), "the identityref prefix is declared: {text}");

        // create of an existing entry: data-exists with the path of the entry.
        let errors =
            run(&s, &mut root.clone(), &iface("eth0", "", " nc:operation='create'"), Op::Merge);
        assert_eq!(errors[0].tag, ErrorTag::DataExists);
        assert_eq!(
            errors[0].path.as_ref().map(|p| p.xpath.as_str()),
            Some("/if:interfaces/if:interface[if:name='eth0']")
        );

        // merge a description, then delete it.
        assert!(run(&s, &mut root, &iface("eth0", "<description>up</description>", ""), Op::Merge)
            .is_empty());
        assert!(canonical(&s, &root).contains("<description>up</description>"));
        let del = format!("<interfaces xmlns=\"{IF}\"><interface><name>eth0</name><description nc:operation='delete'/></interface></interfaces>");
        assert!(run(&s, &mut root, &del, Op::Merge).is_empty());
        assert!(!canonical(&s, &root).contains("description"));
        // delete again: data-missing; remove: fine.
        let errors = run(&s, &mut root.clone(), &del, Op::Merge);
        assert_eq!(errors[0].tag, ErrorTag::DataMissing);
        let rem = del.replace("delete", "remove");
        assert!(run(&s, &mut root, &rem, Op::Merge).is_empty());
    }

    #[test]
    fn replace_and_default_operations() {
        let s = schema();
        let mut root = parse_data("").expect("empty");
        assert!(run(&s, &mut root, &iface("eth0", "<description>a</description>", ""), Op::Merge)
            .is_empty());
        // replace drops what the new content does not hold.
        assert!(
            run(&s, &mut root, &iface("eth0", "", " nc:operation='replace'"), Op::Merge).is_empty()
        );
        assert!(!canonical(&s, &root).contains("description"));
        // default-operation none: a missing level is data-missing...
        let errors = run(&s, &mut parse_data("").expect("empty"), &iface("eth9", "", ""), Op::None);
        assert_eq!(errors[0].tag, ErrorTag::DataMissing);
        // ...but an explicit merge below creates its ancestors.
        let body = format!("<interfaces xmlns=\"{IF}\"><interface nc:operation='merge'><name>eth9</name><type>ianaift:ethernetCsmacd</type></interface></interfaces>");
        let mut r = parse_data("").expect("empty");
        assert!(run(&s, &mut r, &body, Op::None).is_empty());
        assert!(canonical(&s, &r).contains("eth9"));
        // default-operation replace replaces the whole datastore.
        assert!(run(&s, &mut root, &iface("eth1", "", ""), Op::Replace).is_empty());
        let text = canonical(&s, &root);
        assert!(text.contains("eth1") && !text.contains("eth0"), "{text}");
    }

    #[test]
    fn errors_name_the_element_and_continue_on_error_applies_the_rest() {
        let s = schema();
        let mut root = parse_data("").expect("empty");
        let errors = run(&s, &mut root, "<bogus xmlns='urn:nowhere'/>", Op::Merge);
        assert_eq!(errors[0].tag, ErrorTag::UnknownNamespace);
        let errors = run(&s, &mut root, &format!("<bogus xmlns='{IF}'/>"), Op::Merge);
        assert_eq!(errors[0].tag, ErrorTag::UnknownElement);
        assert_eq!(errors[0].info, vec![ErrorInfo::BadElement("bogus".into())]);
        let no_key = format!("<interfaces xmlns=\"{IF}\"><interface><type>ianaift:ethernetCsmacd</type></interface></interfaces>");
        let errors = run(&s, &mut root, &no_key, Op::Merge);
        assert_eq!(errors[0].tag, ErrorTag::MissingElement);
        assert_eq!(errors[0].info, vec![ErrorInfo::BadElement("name".into())]);
        let bad_op = iface("eth0", "", " nc:operation='frobnicate'");
        assert_eq!(run(&s, &mut root, &bad_op, Op::Merge)[0].tag, ErrorTag::BadAttribute);
        let state = format!("<interfaces-state xmlns=\"{IF}\"/>");
        assert_eq!(run(&s, &mut root, &state, Op::Merge)[0].tag, ErrorTag::InvalidValue);

        // continue-on-error: the good entry is applied, the bad one reported.
        let mixed = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>ok</name><type>ianaift:ethernetCsmacd</type></interface>\
             <interface nc:operation='delete'><name>missing</name></interface></interfaces>"
        );
        let mut root = parse_data("").expect("empty");
        let errors = apply(
            s.model(),
            &mut root,
            &config(&mixed),
            &Scope::new(),
            Op::Merge,
            ErrorOption::ContinueOnError,
        );
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].tag, ErrorTag::DataMissing);
        assert!(canonical(&s, &root).contains("<name>ok</name>"));
    }

    #[test]
    fn key_predicates() {
        let keys = vec!["a".to_string(), "b".to_string()];
        assert_eq!(
            parse_key_predicates("[a='1'][x:b=\"2\"]", &keys),
            Some(vec!["1".into(), "2".into()])
        );
        assert_eq!(parse_key_predicates("[a='1']", &keys), None);
        assert_eq!(parse_key_predicates("junk", &keys), None);
    }
}
