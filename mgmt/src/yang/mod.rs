//! YANG and the data it describes, knowing nothing of sessions or datastores: the libyang
//! context ([`schema`]) and its pure-Rust index ([`model`], with [`cross_refs`]: which
//! modules' configuration may depend on other data), data trees ([`data`]: identity, paths,
//! diff, merge), edit-config on a tree ([`edit`]), which notification an event is ([`event`]), the walk down to an action or nested notification ([`nested`]), subtree filters and XPath prefixes
//! ([`filter`]) with an XPath filter's cost bounded before libyang runs it ([`xpath_cost`]),
//! `<get-data>`'s max-depth, textual data paths, which modules deviate which ([`deviations`],
//! for yang-library), and libyang's refusals as RFC 7950's rpc-errors.

pub mod cross_refs;
pub mod data;
pub mod deviations;
pub mod edit;
pub mod event;
pub mod filter;
pub(crate) mod max_depth;
pub mod model;
pub mod nested;
pub(crate) mod path_text;
pub mod schema;
pub mod xpath_cost;
pub(crate) mod yang_errors;
