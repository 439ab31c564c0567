//! Which modules' configuration can be made invalid by a change to another module's data.
//!
//! An edit that changes the data of one module only needs libyang to validate that module's
//! data (`lyd_validate_module`), provided no other module's configuration can see the change.
//! A configuration node can look outside its own subtree only through a `must` or `when`
//! expression, or a `leafref` or `instance-identifier` value (also as a union member): a
//! module whose configuration has none of these cannot be affected by anyone else's data.
//! The walk covers the compiled tree, so nodes other modules augment into a module's subtree
//! count as that module's (they are validated with it). State nodes are left out: they never
//! appear in a configuration datastore.

use yang2::schema::{DataValueType, SchemaLeafType, SchemaModule, SchemaNode, SchemaNodeKind};

/// Whether some configuration node of `module`'s data tree can depend on data outside its own
/// subtree. `true` also when the walk fails (the bindings cannot represent a node): the
/// careful answer.
pub fn config_looks_outside(module: &SchemaModule<'_>) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        module.data().any(|node| node_looks_outside(&node))
    }))
    .unwrap_or(true)
}

fn node_looks_outside(node: &SchemaNode<'_>) -> bool {
    // Choices and cases carry no config flag of their own that matters: their children do.
    let structural = matches!(node.kind(), SchemaNodeKind::Choice | SchemaNodeKind::Case);
    if !structural && !node.is_config() {
        return false;
    }
    if node.whens().next().is_some() || node.musts().is_some_and(|mut m| m.next().is_some()) {
        return true;
    }
    match node.kind() {
        SchemaNodeKind::Leaf | SchemaNodeKind::LeafList => {
            node.leaf_type().is_none_or(|t| type_looks_outside(&t))
        }
        SchemaNodeKind::Container
        | SchemaNodeKind::List
        | SchemaNodeKind::Choice
        | SchemaNodeKind::Case => node.children().any(|c| node_looks_outside(&c)),
        _ => false,
    }
}

fn type_looks_outside(t: &SchemaLeafType<'_>) -> bool {
    match t.base_type() {
        DataValueType::LeafRef | DataValueType::InstanceId | DataValueType::Unknown => true,
        DataValueType::Union => t.union_types().iter().any(type_looks_outside),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::yang::schema::{ModuleSpec, Schema};

    #[test]
    fn modules_with_references_and_constraints_are_found() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/yang");
        let schema = Schema::new(
            &[dir],
            &[
                ModuleSpec::new("ietf-interfaces", &[]),
                ModuleSpec::new("iana-if-type", &[]),
                ModuleSpec::new("mgmt-test", &[]),
            ],
        )
        .expect("schema");
        let looks = |name: &str| {
            let module = schema.context().get_module_implemented(name).expect(name);
            super::config_looks_outside(&module)
        };
        // mgmt-test: a leafref to the interfaces and a must.
        assert!(looks("mgmt-test"));
        // ietf-interfaces' leafrefs (higher-layer-if, lower-layer-if) are state data.
        assert!(!looks("ietf-interfaces"));
        // NACM: strings, bits, enumerations and unions of them.
        assert!(!looks("ietf-netconf-acm"));
        assert!(!looks("iana-if-type"), "no data nodes at all");

        // An edit of the interfaces alone must be validated whole: mgmt-test's leafref may
        // point at an interface it removes. One of mgmt-test alone: its module suffices.
        let model = schema.model();
        let (ifs, mt, nacm) = ("ietf-interfaces", "mgmt-test", "ietf-netconf-acm");
        assert_eq!(model.validation_scope(&[ifs]), None);
        assert_eq!(model.validation_scope(&[mt, mt]), Some(mt));
        assert_eq!(model.validation_scope(&[mt, ifs]), None, "two modules");
        assert_eq!(model.validation_scope(&[]), None, "nothing changed: validate all");
        // Without mgmt-test nobody looks outside: interfaces and NACM edits are validated
        // module by module.
        let plain = crate::yang::schema::test_support::interfaces_schema();
        assert_eq!(plain.model().validation_scope(&[ifs, ifs]), Some(ifs));
        assert_eq!(plain.model().validation_scope(&[nacm]), Some(nacm));
        assert_eq!(plain.model().validation_scope(&[ifs, nacm]), None);
    }
}
