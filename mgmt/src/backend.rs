//! The boundary between the NETCONF engine and the daemon: a [`Backend`] owns the data of
//! some YANG modules. When running changes, every backend whose modules the change touches
//! is asked to `prepare` it; if all agree they `apply` it, otherwise the ones that prepared
//! `abort` and the change is refused with an rpc-error (running is unchanged). Backends also
//! supply operational state, run the RPCs they declare and the actions of their modules, and
//! publish notifications through the [`Notifier`] they are given. A module without a backend
//! is simply stored.
//!
//! Calls are made from a blocking thread, one transaction at a time; state reads and RPCs
//! may run concurrently with each other and with a transaction.

use crate::notify::Notifier;
use crate::yang::data::{Change, DataPath};
use netconf_proto::xml::Element;

/// A refusal or failure reported by a backend; it reaches the client as an rpc-error
/// (operation-failed, application) carrying this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendError {
    /// A sentence saying what is wrong and what to do.
    pub message: String,
    /// The offending data node as a JSON-style path (`/module:node/child[key='v']`), if any.
    pub path: Option<String>,
    /// An error-app-tag, if any.
    pub app_tag: Option<String>,
}

impl BackendError {
    /// An error with only a message.
    pub fn new(message: impl Into<String>) -> Self {
        BackendError { message: message.into(), path: None, app_tag: None }
    }

    /// Names the offending node.
    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BackendError {}

/// Who asked for a change or an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The session, or `None` for the server itself (start-up, confirmed-commit rollback).
    pub session_id: Option<u32>,
    /// The user, if a session.
    pub user: Option<String>,
}

/// A change of running, as one backend sees it.
#[derive(Debug)]
pub struct Transaction<'a> {
    /// Running before (a root element holding the top-level nodes of every module).
    pub old: &'a Element,
    /// Running after.
    pub new: &'a Element,
    /// The differences that touch this backend's modules, in document order.
    pub changes: Vec<&'a Change<'a>>,
    /// Who made the change.
    pub origin: &'a Origin,
}

/// What a state read asks for.
#[derive(Debug)]
pub struct StateRequest<'a> {
    /// The subtree filter's top-level elements, if the request has one (the backend may use it
    /// to skip work; the engine filters the result anyway).
    pub filter: Option<&'a Element>,
    /// Who asks.
    pub origin: &'a Origin,
}

/// A YANG 1.1 action invoked on a data node (RFC 7950 §7.15).
#[derive(Debug)]
pub struct ActionRequest<'a> {
    /// The data node the action is invoked on, list keys in their canonical form
    /// (`to_json_path()`: `/module:ports/port[name='p1']`); it exists in running or in the
    /// backends' state.
    pub node: &'a DataPath,
    /// The action element (its namespace and name are the action's), holding the input,
    /// validated against the schema.
    pub input: &'a Element,
    /// Who asks.
    pub origin: &'a Origin,
}

/// A YANG module's data owner in the daemon.
pub trait Backend: Send + Sync {
    /// A short name for logs.
    fn name(&self) -> &str;

    /// The names of the modules whose data this backend owns (a change touches the backend
    /// when a changed node, one of its ancestors, or a node below it belongs to one of them).
    fn modules(&self) -> Vec<String>;

    /// Checks that `tx` can be applied and reserves what applying needs. A refusal aborts the
    /// whole transaction.
    fn prepare(&self, _tx: &Transaction<'_>) -> Result<(), BackendError> {
        Ok(())
    }

    /// Applies a prepared transaction. Must not fail: anything that can fail belongs in
    /// `prepare`.
    fn apply(&self, tx: &Transaction<'_>);

    /// Releases what `prepare` reserved: another backend refused, or storing failed.
    fn abort(&self, _tx: &Transaction<'_>) {}

    /// Operational state (config false data) of the backend's modules: top-level elements,
    /// merged into the reply of `<get>`.
    fn state(&self, _request: &StateRequest<'_>) -> Result<Vec<Element>, BackendError> {
        Ok(Vec::new())
    }

    /// The RPCs (namespace, name) this backend runs.
    fn rpcs(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Runs RPC `input` (the operation element, validated against the schema); returns the
    /// output's child elements (none: `<ok/>`).
    fn rpc(&self, _origin: &Origin, input: &Element) -> Result<Vec<Element>, BackendError> {
        Err(BackendError::new(format!("The operation '{}' is not implemented.", input.name)))
    }

    /// Runs the action `request` names, defined in one of the backend's modules; returns the
    /// output's child elements (none: `<ok/>`), which the server checks against the schema.
    /// `None`: the backend does not run that action (the client gets operation-not-supported).
    fn action(&self, _request: &ActionRequest<'_>) -> Option<Result<Vec<Element>, BackendError>> {
        None
    }

    /// Hands the backend its way to publish notifications, once, at registration.
    fn attach(&self, _notifier: Notifier) {}
}
