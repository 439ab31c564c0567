//! NETCONF access control (RFC 8341): the rules are read from `/nacm` in running; a user's
//! view is evaluated for protocol operations (exec), data reads (denied nodes are silently
//! left out), data writes (each created, updated or deleted node) and notifications.

use std::collections::HashSet;
use std::sync::Arc;

use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::yang::data::{Change, ChangeOp, DataPath};
use crate::yang::event::Located;
use crate::yang::model::{Action, Kind, Model, NacmDefault, SNode};
use crate::yang::path_text;
use netconf_proto::xml::{Element, Node};

/// The ietf-netconf-acm namespace.
pub const NACM_NS: &str = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";

/// An access operation (the `access-operations` bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Create a data node.
    Create = 1,
    /// Read a data node or receive a notification.
    Read = 2,
    /// Change a data node's value.
    Update = 4,
    /// Delete a data node.
    Delete = 8,
    /// Invoke a protocol operation.
    Exec = 16,
}

const ALL: u8 = 31;

#[derive(Debug, Clone, PartialEq, Eq)]
struct PathStep {
    ns: Option<String>,
    name: String,
    keys: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Any,
    Rpc(String),
    Notification(String),
    Path(Vec<PathStep>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    module: String,
    target: Target,
    ops: u8,
    permit: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct RuleList {
    groups: Vec<String>,
    rules: Vec<Rule>,
}

/// The access control configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nacm {
    enabled: bool,
    read_default: bool,
    write_default: bool,
    exec_default: bool,
    groups: Vec<(String, Vec<String>)>,
    rule_lists: Vec<RuleList>,
}

impl Default for Nacm {
    fn default() -> Self {
        Nacm {
            enabled: true,
            read_default: true,
            write_default: false,
            exec_default: true,
            groups: Vec::new(),
            rule_lists: Vec::new(),
        }
    }
}

fn leaf(e: &Element, name: &str) -> Option<String> {
    e.child(NACM_NS, name).map(Element::text).map(|t| t.trim().to_string())
}

fn leaves<'a>(e: &'a Element, name: &'a str) -> impl Iterator<Item = String> + 'a {
    e.elements().filter(move |c| c.is(NACM_NS, name)).map(|c| c.text().trim().to_string())
}

impl Nacm {
    /// The rules in a configuration root (defaults when it holds no `/nacm`).
    pub fn from_config(model: &Model, root: &Element) -> Nacm {
        let mut n = Nacm::default();
        let Some(top) = root.child(NACM_NS, "nacm") else { return n };
        let flag = |name: &str, default: bool, yes: &str| {
            leaf(top, name).map(|v| v == yes).unwrap_or(default)
        };
        n.enabled = flag("enable-nacm", true, "true");
        n.read_default = flag("read-default", true, "permit");
        n.write_default = flag("write-default", false, "permit");
        n.exec_default = flag("exec-default", true, "permit");
        if let Some(groups) = top.child(NACM_NS, "groups") {
            for g in groups.elements().filter(|g| g.is(NACM_NS, "group")) {
                if let Some(name) = leaf(g, "name") {
                    n.groups.push((name, leaves(g, "user-name").collect()));
                }
            }
        }
        for rl in top.elements().filter(|e| e.is(NACM_NS, "rule-list")) {
            let mut list = RuleList { groups: leaves(rl, "group").collect(), rules: Vec::new() };
            for r in rl.elements().filter(|e| e.is(NACM_NS, "rule")) {
                let target = if let Some(rpc) = leaf(r, "rpc-name") {
                    Target::Rpc(rpc)
                } else if let Some(notif) = leaf(r, "notification-name") {
                    Target::Notification(notif)
                } else if let Some(p) = r.child(NACM_NS, "path") {
                    match parse_path(&p.text(), p, model) {
                        Some(steps) => Target::Path(steps),
                        // A path we cannot read matches nothing (safer than everything).
                        None => continue,
                    }
                } else {
                    Target::Any
                };
                list.rules.push(Rule {
                    module: leaf(r, "module-name").unwrap_or_else(|| "*".into()),
                    target,
                    ops: parse_ops(leaf(r, "access-operations").as_deref().unwrap_or("*")),
                    permit: leaf(r, "action").as_deref() == Some("permit"),
                });
            }
            n.rule_lists.push(list);
        }
        n
    }

    /// What `user` may do.
    pub fn for_user(self: &Arc<Self>, user: &str) -> UserAcl {
        let groups: HashSet<&str> = self
            .groups
            .iter()
            .filter(|(_, users)| users.iter().any(|u| u == user))
            .map(|(g, _)| g.as_str())
            .collect();
        let rules: Vec<Rule> = self
            .rule_lists
            .iter()
            .filter(|rl| rl.groups.iter().any(|g| g == "*" || groups.contains(g.as_str())))
            .flat_map(|rl| rl.rules.iter().cloned())
            .collect();
        // Access to everything for an operation when the first rule that could apply to any
        // node is an unconditional permit.
        let all = |access: Access| {
            if !self.enabled {
                return true;
            }
            for r in &rules {
                if r.ops & access as u8 == 0 {
                    continue;
                }
                let data_rule = matches!(r.target, Target::Any | Target::Path(_));
                if access != Access::Exec && !data_rule {
                    continue;
                }
                if access == Access::Exec
                    && matches!(r.target, Target::Path(_) | Target::Notification(_))
                {
                    continue;
                }
                return r.permit && r.module == "*" && r.target == Target::Any;
            }
            false
        };
        UserAcl {
            read_all: all(Access::Read),
            write_all: all(Access::Create) && all(Access::Update) && all(Access::Delete),
            exec_all: all(Access::Exec),
            nacm: self.clone(),
            rules,
        }
    }

    /// Whether access control is enforced.
    pub fn enabled(&self) -> bool {
        self.enabled
    }
}

fn parse_ops(s: &str) -> u8 {
    if s.trim() == "*" {
        return ALL;
    }
    s.split_whitespace()
        .map(|w| match w {
            "create" => Access::Create as u8,
            "read" => Access::Read as u8,
            "update" => Access::Update as u8,
            "delete" => Access::Delete as u8,
            "exec" => Access::Exec as u8,
            _ => 0,
        })
        .fold(0, |a, b| a | b)
}

/// Parses a node-instance-identifier: `/p:a/p:b[p:k='v']`. Prefixes resolve through the
/// declarations on the `path` leaf, then module prefixes, then module names.
fn parse_path(text: &str, leaf: &Element, model: &Model) -> Option<Vec<PathStep>> {
    let resolve = |p: &str| -> Option<String> {
        if let Some((_, ns)) = leaf.namespaces().iter().find(|(q, _)| q.as_deref() == Some(p)) {
            return Some(ns.clone());
        }
        if let Some(m) = model.modules().iter().find(|m| m.prefix == p && m.implemented) {
            return Some(m.namespace.clone());
        }
        model.module_by_name(p).map(|m| m.namespace.clone())
    };
    let mut steps = Vec::new();
    let mut ns: Option<String> = None;
    for raw in path_text::split(text)? {
        if let Some(p) = &raw.qualifier {
            ns = Some(resolve(p)?);
        }
        let name = raw.name;
        steps.push(PathStep {
            ns: if name == "*" { None } else { ns.clone() },
            name,
            keys: raw.predicates,
        });
    }
    Some(steps)
}

/// A node on the way down a data tree: namespace, name, key values.
#[derive(Debug, Clone)]
struct NodeRef {
    ns: String,
    name: String,
    keys: Vec<(String, String)>,
}

fn path_matches(rule: &[PathStep], node: &[NodeRef]) -> bool {
    if rule.len() > node.len() {
        return false;
    }
    rule.iter().zip(node).all(|(r, n)| {
        (r.name == "*" || r.name == n.name)
            && r.ns.as_deref().is_none_or(|ns| ns == n.ns)
            && r.keys.iter().all(|(k, v)| n.keys.iter().any(|(nk, nv)| nk == k && nv == v))
    })
}

/// One user's access rights.
#[derive(Debug, Clone)]
pub struct UserAcl {
    nacm: Arc<Nacm>,
    rules: Vec<Rule>,
    read_all: bool,
    write_all: bool,
    exec_all: bool,
}

impl UserAcl {
    /// Whether the user may invoke operation `name` of `module`.
    pub fn may_exec(&self, module: &str, name: &str, default: NacmDefault) -> bool {
        if !self.nacm.enabled || (module == "ietf-netconf" && name == "close-session") {
            return true;
        }
        for r in &self.rules {
            if r.ops & Access::Exec as u8 == 0 || (r.module != "*" && r.module != module) {
                continue;
            }
            match &r.target {
                Target::Any => return r.permit,
                Target::Rpc(n) if n == "*" || n == name => return r.permit,
                _ => {}
            }
        }
        if default == NacmDefault::DenyAll {
            return false;
        }
        if self.exec_all {
            return true;
        }
        self.nacm.exec_default
    }

    /// RFC 8341 §3.4.5: whether the user may invoke `action` on the data node at `node`:
    /// read on the node and each of its ancestors, exec on the action node. Rules with a
    /// `path` or none (a `module-name` alone) decide exec; `rpc-name` rules are for RPCs.
    pub fn check_action(
        &self,
        model: &Model,
        node: &DataPath,
        action: &Action,
    ) -> Result<(), RpcError> {
        if !self.nacm.enabled {
            return Ok(());
        }
        let (mut nodes, default) = self.read_down(model, node).map_err(|depth| {
            let (xpath, ns) = DataPath(node.0[..=depth].to_vec()).to_xpath();
            RpcError::new(ErrorTag::AccessDenied, ErrorType::Application)
                .with_message(format!(
                    "Access control does not let you read this node, so you may not run its action '{}'; ask an administrator.",
                    action.name
                ))
                .with_path(xpath, ns)
        })?;
        nodes.push(NodeRef {
            ns: action.namespace.clone(),
            name: action.name.clone(),
            keys: Vec::new(),
        });
        if self.exec_decision(&nodes, &action.module, default) {
            return Ok(());
        }
        Err(RpcError::new(ErrorTag::AccessDenied, ErrorType::Application).with_message(format!(
            "Access control does not let you run the action '{}' here; ask an administrator.",
            action.name
        )))
    }

    /// Read on each node of `path`, from the top down (the nodes the schema knows): the path
    /// as rules match it and the NACM default in force at its end, or the depth of the first
    /// node the user may not read.
    fn read_down(
        &self,
        model: &Model,
        path: &DataPath,
    ) -> Result<(Vec<NodeRef>, NacmDefault), usize> {
        let mut nodes = Vec::with_capacity(path.0.len() + 1);
        let mut snode: Option<&Arc<SNode>> = None;
        let mut default = NacmDefault::None;
        for (depth, step) in path.0.iter().enumerate() {
            snode = model.child_of(snode.map(Arc::as_ref), &step.ns, &step.name);
            let Some(s) = snode else { break };
            if s.nacm != NacmDefault::None {
                default = s.nacm;
            }
            nodes.push(NodeRef {
                ns: step.ns.clone(),
                name: step.name.clone(),
                keys: step.keys.clone(),
            });
            if !self.read_all && !self.data_decision(&nodes, &s.module, default, Access::Read) {
                return Err(depth);
            }
        }
        Ok((nodes, default))
    }

    /// The exec right on an action node: the first rule for exec in its module that names
    /// no operation or notification and whose path, if any, holds the node.
    fn exec_decision(&self, node: &[NodeRef], module: &str, default: NacmDefault) -> bool {
        for r in &self.rules {
            if r.ops & Access::Exec as u8 == 0 || (r.module != "*" && r.module != module) {
                continue;
            }
            match &r.target {
                Target::Any => return r.permit,
                Target::Path(steps) if path_matches(steps, node) => return r.permit,
                _ => {}
            }
        }
        default != NacmDefault::DenyAll && self.nacm.exec_default
    }

    /// Whether the user may receive a notification (RFC 8341 §3.4.6). One defined on a data
    /// node (RFC 7950 §7.16.2) is also data the user reads: it is sent only if the user may
    /// read the node instance it is sent for and each of its ancestors, and a `path` rule
    /// holding it decides as a `notification-name` rule does.
    pub fn may_receive(&self, model: &Model, located: &Located<'_>) -> bool {
        if !self.nacm.enabled || self.read_all {
            return true;
        }
        let Ok((mut nodes, default)) = self.read_down(model, &located.node) else {
            return false;
        };
        let n = located.notification;
        nodes.push(NodeRef { ns: n.namespace.clone(), name: n.name.clone(), keys: Vec::new() });
        let nested = !located.node.0.is_empty();
        for r in &self.rules {
            if r.ops & Access::Read as u8 == 0 || (r.module != "*" && r.module != n.module) {
                continue;
            }
            match &r.target {
                Target::Any => return r.permit,
                Target::Notification(name) if name == "*" || *name == n.name => return r.permit,
                Target::Path(steps) if nested && path_matches(steps, &nodes) => return r.permit,
                _ => {}
            }
        }
        default != NacmDefault::DenyAll && self.nacm.read_default
    }

    fn data_decision(
        &self,
        node: &[NodeRef],
        module: &str,
        default: NacmDefault,
        access: Access,
    ) -> bool {
        for r in &self.rules {
            if r.ops & access as u8 == 0 || (r.module != "*" && r.module != module) {
                continue;
            }
            match &r.target {
                Target::Any => return r.permit,
                Target::Path(steps) if path_matches(steps, node) => return r.permit,
                _ => {}
            }
        }
        match (default, access) {
            (NacmDefault::DenyAll, _) => false,
            (NacmDefault::DenyWrite, Access::Read) => self.nacm.read_default,
            (NacmDefault::DenyWrite, _) => false,
            (_, Access::Read) => self.nacm.read_default,
            _ => self.nacm.write_default,
        }
    }

    /// Whether the user may run every operation (NACM off, or a permit-all rule first).
    pub fn executes_everything(&self) -> bool {
        !self.nacm.enabled || self.exec_all
    }

    /// Whether the user may read everything (nothing to filter).
    pub fn reads_everything(&self) -> bool {
        !self.nacm.enabled || self.read_all
    }

    /// Removes from `root` every node the user may not read.
    pub fn filter_read(&self, model: &Model, root: &mut Element) {
        if self.reads_everything() {
            return;
        }
        let mut path = Vec::new();
        self.filter_children(model, None, root, &mut path, NacmDefault::None);
    }

    fn filter_children(
        &self,
        model: &Model,
        sparent: Option<&SNode>,
        e: &mut Element,
        path: &mut Vec<NodeRef>,
        inherited: NacmDefault,
    ) {
        let mut kept = Vec::with_capacity(e.children.len());
        for n in std::mem::take(&mut e.children) {
            let Node::Element(mut c) = n else {
                kept.push(n);
                continue;
            };
            let Some(s) =
                model.child_of(sparent, c.namespace.as_deref().unwrap_or_default(), &c.name)
            else {
                continue;
            };
            if s.is_key && sparent.is_some_and(|p| p.kind == Kind::List) {
                kept.push(Node::Element(c));
                continue;
            }
            let default = if s.nacm != NacmDefault::None { s.nacm } else { inherited };
            path.push(node_ref(&c, s));
            if self.data_decision(path, &s.module, default, Access::Read) {
                if matches!(s.kind, Kind::Container | Kind::List) {
                    self.filter_children(model, Some(s), &mut c, path, default);
                }
                kept.push(Node::Element(c));
            }
            path.pop();
        }
        e.children = kept;
    }

    /// Whether [`UserAcl::check_write`] can refuse anything: false when NACM is off or the
    /// user may create, update and delete everywhere (then the caller need not compute the
    /// changes of a write just to have them checked).
    pub fn checks_writes(&self) -> bool {
        self.nacm.enabled && !self.write_all
    }

    /// Checks that the user may make `changes`; the first refusal as an rpc-error.
    pub fn check_write(&self, model: &Model, changes: &[Change<'_>]) -> Result<(), RpcError> {
        if !self.nacm.enabled || self.write_all {
            return Ok(());
        }
        for c in changes {
            let access = match c.op {
                ChangeOp::Create => Access::Create,
                ChangeOp::Delete => Access::Delete,
                ChangeOp::Modify => Access::Update,
            };
            let nodes: Vec<NodeRef> = c
                .path
                .0
                .iter()
                .map(|s| NodeRef { ns: s.ns.clone(), name: s.name.clone(), keys: s.keys.clone() })
                .collect();
            // The schema nodes along the path, for modules and default-deny extensions.
            let mut snode: Option<&Arc<SNode>> = None;
            let mut default = NacmDefault::None;
            for step in &c.path.0 {
                snode = model.child_of(snode.map(Arc::as_ref), &step.ns, &step.name);
                if let Some(s) = snode {
                    if s.nacm != NacmDefault::None {
                        default = s.nacm;
                    }
                }
            }
            let Some(s) = snode else { continue };
            let subtree = c.new.or(c.old);
            if let Err(path) = self.check_subtree(s, subtree, &nodes, default, access, &c.path) {
                let (xpath, ns) = path.to_xpath();
                return Err(RpcError::new(ErrorTag::AccessDenied, ErrorType::Application)
                    .with_message(format!(
                        "Access control denies {} of this node to you; ask an administrator for write access.",
                        match access {
                            Access::Create => "creation",
                            Access::Delete => "deletion",
                            _ => "modification",
                        }
                    ))
                    .with_path(xpath, ns));
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn check_subtree(
        &self,
        s: &SNode,
        e: Option<&Element>,
        nodes: &[NodeRef],
        default: NacmDefault,
        access: Access,
        path: &DataPath,
    ) -> Result<(), DataPath> {
        // A non-presence container has no meaning of its own: the server creates it with its
        // first child and removes it with its last (RFC 7950 §7.5.1), so only the nodes in it
        // are checked (RFC 8341 §3.4.5: the nodes the request names).
        let np_container = s.kind == Kind::Container && !s.presence;
        if !np_container && !self.data_decision(nodes, &s.module, default, access) {
            return Err(path.clone());
        }
        if access == Access::Update {
            return Ok(());
        }
        let Some(e) = e else { return Ok(()) };
        for c in e.elements() {
            let Some(cs) = s.child(c.namespace.as_deref().unwrap_or_default(), &c.name) else {
                continue;
            };
            if cs.is_key {
                continue;
            }
            let d = if cs.nacm != NacmDefault::None { cs.nacm } else { default };
            let mut sub: Vec<NodeRef> = nodes.to_vec();
            sub.push(node_ref(c, cs));
            let p = path.child(crate::yang::data::Step::of(c, cs));
            self.check_subtree(cs, Some(c), &sub, d, access, &p)?;
        }
        Ok(())
    }
}

fn node_ref(e: &Element, s: &SNode) -> NodeRef {
    let keys = if s.kind == Kind::List {
        s.keys
            .iter()
            .map(|k| {
                let v = e
                    .elements()
                    .find(|c| c.name == *k && c.namespace.as_deref() == Some(&s.namespace))
                    .map(Element::text)
                    .unwrap_or_default();
                (k.clone(), v)
            })
            .collect()
    } else {
        Vec::new()
    };
    NodeRef { ns: s.namespace.clone(), name: s.name.clone(), keys }
}

/// The `/nacm` configuration that makes `user` an administrator: group `admin` and a rule
/// list permitting everything to it.
pub fn admin_config(user: &str) -> String {
    let user = netconf_proto::xml::escape_text(user);
    format!(
        "<nacm xmlns=\"{NACM_NS}\"><groups><group><name>admin</name><user-name>{user}</user-name></group></groups>\
         <rule-list><name>admin</name><group>admin</group><rule><name>permit-all</name>\
         <module-name>*</module-name><access-operations>*</access-operations><action>permit</action>\
         <comment>Created at first start for the configured administrator.</comment></rule></rule-list></nacm>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yang::data::{diff, parse_data};
    use crate::yang::schema::test_support::{interfaces_schema as schema, IF};
    use crate::yang::schema::Schema;

    fn config(s: &Schema) -> Element {
        let text = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>eth0</name><description>secret</description>\
             <type xmlns:ianaift=\"urn:ietf:params:xml:ns:yang:iana-if-type\">ianaift:ethernetCsmacd</type></interface></interfaces>\
             <nacm xmlns=\"{NACM_NS}\"><groups><group><name>admin</name><user-name>alice</user-name></group>\
             <group><name>ops</name><user-name>bob</user-name></group></groups>\
             <rule-list><name>admin</name><group>admin</group><rule><name>all</name><action>permit</action></rule></rule-list>\
             <rule-list><name>ops</name><group>ops</group>\
             <rule><name>hide-descr</name><path xmlns:if=\"{IF}\">/if:interfaces/if:interface/if:description</path><access-operations>read</access-operations><action>deny</action></rule>\
             <rule><name>no-kill</name><module-name>ietf-netconf</module-name><rpc-name>edit-config</rpc-name><action>deny</action></rule>\
             </rule-list></nacm>"
        );
        let canonical = s.canonical_config(&text).expect("valid");
        parse_data(&canonical).expect("parses")
    }

    #[test]
    fn admin_reads_and_writes_everything_others_get_defaults_and_rules() {
        let s = schema();
        let root = config(&s);
        let nacm = Arc::new(Nacm::from_config(s.model(), &root));
        let alice = nacm.for_user("alice");
        assert!(alice.reads_everything());
        assert!(alice.may_exec("ietf-netconf", "kill-session", NacmDefault::DenyAll));

        let bob = nacm.for_user("bob");
        assert!(!bob.may_exec("ietf-netconf", "edit-config", NacmDefault::None));
        assert!(bob.may_exec("ietf-netconf", "get-config", NacmDefault::None));
        assert!(!bob.may_exec("ietf-netconf", "kill-session", NacmDefault::DenyAll));
        assert!(bob.may_exec("ietf-netconf", "close-session", NacmDefault::None));
        let mut seen = root.clone();
        bob.filter_read(s.model(), &mut seen);
        let text = crate::yang::data::data_text(&seen);
        assert!(text.contains("<name>eth0</name>"), "{text}");
        assert!(!text.contains("secret"), "description denied: {text}");
        assert!(!text.contains("<nacm"), "nacm is default-deny-all: {text}");

        // Writes: write-default is deny.
        let mut changed = root.clone();
        changed.children.retain(|n| !matches!(n, Node::Element(e) if e.name == "interfaces"));
        let changes = diff(s.model(), &root, &changed);
        let e = bob.check_write(s.model(), &changes).expect_err("denied");
        assert_eq!(e.tag, ErrorTag::AccessDenied);
        assert!(alice.check_write(s.model(), &changes).is_ok());
        // Nobody in a group: defaults.
        let carol = nacm.for_user("carol");
        assert!(carol.may_exec("ietf-netconf", "edit-config", NacmDefault::None));
        assert!(carol.check_write(s.model(), &changes).is_err());
    }

    #[test]
    fn admin_config_is_valid() {
        let s = schema();
        let root =
            parse_data(&s.canonical_config(&admin_config("a&b")).expect("valid")).expect("parses");
        let nacm = Arc::new(Nacm::from_config(s.model(), &root));
        assert!(nacm.for_user("a&b").reads_everything());
        assert!(!nacm.for_user("x").reads_everything());
    }

    #[test]
    fn paths_parse() {
        let s = schema();
        let leaf = Element::default();
        let p = parse_path("/if:interfaces/if:interface[if:name='eth0']/if:mtu", &leaf, s.model())
            .expect("path");
        assert_eq!(p.len(), 3);
        assert_eq!(p[1].keys, vec![("name".to_string(), "eth0".to_string())]);
        assert_eq!(p[0].ns.as_deref(), Some(IF));
        let j = parse_path("/ietf-interfaces:interfaces/interface", &leaf, s.model())
            .expect("json style");
        assert_eq!(j[1].ns.as_deref(), Some(IF));
        assert!(parse_path("/nope:x", &leaf, s.model()).is_none());
        assert_eq!(parse_ops("read update"), 6);
    }
}
