//! The RFC 6241 operations a CLI and the benchmark need, on top of [`Client::rpc`]. Each
//! turns an rpc-error into [`Error::Rpc`] so callers can use `?`; [`Client::rpc`] remains for
//! anything else.

use netconf_proto::xml::NETCONF_BASE_NS;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::reply::Reply;

/// A configuration datastore (RFC 6241 §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Datastore {
    /// `<running/>`.
    Running,
    /// `<candidate/>` (`:candidate` capability).
    Candidate,
    /// `<startup/>` (`:startup` capability).
    Startup,
}

impl Datastore {
    /// The element name.
    pub fn as_str(self) -> &'static str {
        match self {
            Datastore::Running => "running",
            Datastore::Candidate => "candidate",
            Datastore::Startup => "startup",
        }
    }
}

/// edit-config's `<default-operation>` (RFC 6241 §7.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultOperation {
    /// `merge` (the server's default when absent).
    Merge,
    /// `replace`.
    Replace,
    /// `none`.
    None,
}

impl DefaultOperation {
    /// The element's value.
    pub fn as_str(self) -> &'static str {
        match self {
            DefaultOperation::Merge => "merge",
            DefaultOperation::Replace => "replace",
            DefaultOperation::None => "none",
        }
    }
}

impl Client {
    /// An rpc whose only success answer is `<ok/>`.
    fn rpc_ok(&mut self, operation: &str) -> Result<()> {
        let reply = self.rpc(operation)?.into_result()?;
        if reply.is_ok() {
            Ok(())
        } else {
            Err(Error::Protocol(format!("expected <ok/>, got: {}", reply.raw())))
        }
    }

    /// `<get-config>` of `source`, with an optional subtree filter (the XML inside
    /// `<filter type="subtree">`). The configuration is [`Reply::data`].
    pub fn get_config(&mut self, source: Datastore, filter: Option<&str>) -> Result<Reply> {
        let filter = subtree(filter);
        self.rpc(&format!(
            "<get-config><source><{}/></source>{filter}</get-config>",
            source.as_str()
        ))?
        .into_result()
    }

    /// `<get>` (configuration and state), with an optional subtree filter.
    pub fn get(&mut self, filter: Option<&str>) -> Result<Reply> {
        self.rpc(&format!("<get>{}</get>", subtree(filter)))?.into_result()
    }

    /// `<edit-config>` of `target`. `config` is the content of `<config>` (elements in their
    /// own namespaces); the client writes `<config>` itself, in the NETCONF namespace.
    pub fn edit_config(
        &mut self,
        target: Datastore,
        config: &str,
        default_operation: Option<DefaultOperation>,
    ) -> Result<()> {
        let default_operation = default_operation
            .map(|d| format!("<default-operation>{}</default-operation>", d.as_str()))
            .unwrap_or_default();
        self.rpc_ok(&format!(
            "<edit-config><target><{}/></target>{default_operation}\
             <config xmlns=\"{NETCONF_BASE_NS}\">{config}</config></edit-config>",
            target.as_str()
        ))
    }

    /// `<commit/>` of the candidate.
    pub fn commit(&mut self) -> Result<()> {
        self.rpc_ok("<commit/>")
    }

    /// `<discard-changes/>`: the candidate reverts to running.
    pub fn discard_changes(&mut self) -> Result<()> {
        self.rpc_ok("<discard-changes/>")
    }

    /// `<lock>` of `target`.
    pub fn lock(&mut self, target: Datastore) -> Result<()> {
        self.rpc_ok(&format!("<lock><target><{}/></target></lock>", target.as_str()))
    }

    /// `<unlock>` of `target`.
    pub fn unlock(&mut self, target: Datastore) -> Result<()> {
        self.rpc_ok(&format!("<unlock><target><{}/></target></unlock>", target.as_str()))
    }
}

fn subtree(filter: Option<&str>) -> String {
    filter.map(|f| format!("<filter type=\"subtree\">{f}</filter>")).unwrap_or_default()
}
