//! A session with the server and what pfcsh knows of it: the NETCONF client, the schema's
//! libyang context, the mode and output format, and what completion fetched. The commands that
//! run on it are `shell.rs`'s; `monitor.rs` reads notifications on it.

use netconf_client::{Client, Datastore};
use serde_json::Value;
use yang2::context::Context;

use crate::data;
use crate::show::{self, filters};

/// Which commands are available.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Operational,
    Configuration,
}

/// How show commands print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Xml,
}

/// What the caller does after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// A session with the server and what pfcsh knows of it.
pub struct Session {
    pub client: Client,
    pub(crate) ctx: Context,
    pub mode: Mode,
    pub format: Format,
    ports: Option<Vec<String>>,
    /// The configuration completion offers keys from, fetched once per command line.
    pub(crate) config_cache: Option<Value>,
    /// Whether a person is at the keyboard (who can answer a warning by repeating a command).
    pub interactive: bool,
    /// This session edited the candidate since its last commit or discard.
    pub(crate) dirty: bool,
    /// The last command was an `exit` that warned of uncommitted changes.
    pub(crate) warned_exit: bool,
    /// The confirmed commit awaiting confirmation.
    pub confirm: crate::confirm::Pending,
    /// The PFC counters as last shown, for the rates of `show interfaces pfc counters`.
    pub(crate) pfc_counters: crate::show::pfc_counters::Previous,
    /// The schema's enum and identity names, read once when completion first needs them.
    pub(crate) vocabulary: Option<crate::values::Vocabulary>,
    /// How configuration mode was entered (shared, private, exclusive).
    pub(crate) kind: Kind,
    /// `monitor` subscribed already (a session has one subscription).
    pub(crate) subscribed: bool,
    /// What the running command printed, kept for its pipes and the pager; `None` prints at
    /// once (`monitor`).
    pub(crate) captured: std::cell::RefCell<Option<String>>,
}

impl Session {
    pub fn new(client: Client, ctx: Context, format: Format) -> Session {
        Session {
            client,
            ctx,
            mode: Mode::Operational,
            format,
            ports: None,
            config_cache: None,
            interactive: false,
            dirty: false,
            warned_exit: false,
            confirm: crate::confirm::Pending::default(),
            kind: Kind::Shared,
            vocabulary: None,
            pfc_counters: Default::default(),
            subscribed: false,
            captured: std::cell::RefCell::new(None),
        }
    }

    /// Ends the NETCONF session politely (errors do not matter any more).
    pub fn close(self) {
        let _ = self.client.close_session();
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Prints `text` (visible escapes for control characters), or keeps it for the pipes.
    pub fn emit(&self, text: &str) {
        match self.captured.borrow_mut().as_mut() {
            Some(kept) => kept.push_str(text),
            None => crate::visible::print(text),
        }
    }

    /// The prompt for the current mode.
    pub fn prompt(&self) -> &'static str {
        match self.mode {
            Mode::Operational => "pfcsh> ",
            Mode::Configuration => match self.kind {
                Kind::Shared => "pfcsh# ",
                Kind::Private(_) => "pfcsh (private)# ",
                Kind::Exclusive => "pfcsh (exclusive)# ",
            },
        }
    }

    /// The ports (interface names in running), fetched once.
    pub fn ports(&mut self) -> Vec<String> {
        if self.ports.is_none() {
            let filter = format!(
                "<interfaces xmlns=\"{}\"><interface><name/></interface></interfaces>",
                filters::IF_NS
            );
            let names = self
                .client
                .get_config(Datastore::Running, Some(&filter))
                .ok()
                .and_then(|r| data::xml_to_value(&self.ctx, &data::reply_data(&r, &self.ctx)).ok())
                .map(|v| show::interfaces(&v).iter().map(show::name_of).collect::<Vec<String>>())
                .unwrap_or_default();
            self.ports = Some(names);
        }
        self.ports.clone().unwrap_or_default()
    }

    /// The configuration whose list keys completion offers: the candidate in configuration
    /// mode, running otherwise; fetched once per command line.
    pub fn key_values_source(&mut self) -> Value {
        if self.config_cache.is_none() {
            let source = self.config_store();
            let v = self
                .client
                .get_config(source, None)
                .ok()
                .and_then(|r| data::xml_to_value(&self.ctx, &data::reply_data(&r, &self.ctx)).ok())
                .unwrap_or(Value::Null);
            self.config_cache = Some(v);
        }
        self.config_cache.clone().unwrap_or(Value::Null)
    }

    /// The datastore configuration commands read: the candidate in configuration mode.
    pub(crate) fn config_store(&self) -> Datastore {
        match self.mode {
            Mode::Operational => Datastore::Running,
            Mode::Configuration => Datastore::Candidate,
        }
    }
}

/// How configuration mode was entered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Kind {
    /// The shared candidate, edited in place.
    #[default]
    Shared,
    /// Edits kept by pfcsh (each an edit-config `<config>` content), applied at commit.
    Private(Vec<String>),
    /// The shared candidate, locked by this session.
    Exclusive,
}
