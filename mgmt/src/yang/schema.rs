//! The YANG schema: a libyang context (through yang2, built from source with the `bundled`
//! feature) holding the standard modules embedded in the binary, plus any modules from
//! directories given at start. Configuration data is parsed and validated against it.
//!
//! The standard modules live unmodified in the workspace's `yang/standard/` and are compiled
//! in with `include_str!`, so the server never depends on files lying around.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use thiserror::Error;
use yang2::context::{Context, ContextFlags, EmbeddedModuleKey, EmbeddedModules};
use yang2::data::{
    Data, DataFormat, DataImplicitFlags, DataOperation, DataParserFlags, DataPrinterFlags,
    DataTree, DataValidationFlags,
};
use yang2::schema::{SchemaNodeKind, SchemaOutputFormat, SchemaPrinterFlags};

use crate::yang::model::Model;

/// The with-defaults retrieval modes (RFC 6243 §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WithDefaults {
    /// Only data set explicitly (the server's basic mode).
    Explicit,
    /// Every node, defaults included.
    ReportAll,
    /// Every node, defaults tagged with `wd:default="true"`.
    ReportAllTagged,
    /// Nodes equal to their default are left out.
    Trim,
}

impl WithDefaults {
    /// From the `with-defaults` parameter's value.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "explicit" => Some(WithDefaults::Explicit),
            "report-all" => Some(WithDefaults::ReportAll),
            "report-all-tagged" => Some(WithDefaults::ReportAllTagged),
            "trim" => Some(WithDefaults::Trim),
            _ => None,
        }
    }
}

/// The namespace of the `default` attribute of report-all-tagged (RFC 6243 §6).
pub const WD_ATTR_NS: &str = "urn:ietf:params:xml:ns:netconf:default:1.0";

/// A YANG module compiled into the binary.
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedModule {
    /// Module name.
    pub name: &'static str,
    /// Revision date.
    pub revision: &'static str,
    /// The module text.
    pub text: &'static str,
}

macro_rules! standard_module {
    ($name:literal, $revision:literal) => {
        EmbeddedModule {
            name: $name,
            revision: $revision,
            text: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../yang/standard/",
                $name,
                "@",
                $revision,
                ".yang"
            )),
        }
    };
}

/// The standard modules the server embeds (copied unmodified from the IETF/IANA sources).
pub const STANDARD_MODULES: &[EmbeddedModule] = &[
    standard_module!("iana-if-type", "2014-05-08"),
    standard_module!("ietf-datastores", "2018-02-14"),
    standard_module!("ietf-inet-types", "2013-07-15"),
    standard_module!("ietf-interfaces", "2018-02-20"),
    standard_module!("ietf-netconf", "2011-06-01"),
    standard_module!("ietf-netconf-acm", "2018-02-14"),
    standard_module!("ietf-netconf-monitoring", "2010-10-04"),
    standard_module!("ietf-netconf-nmda", "2019-01-07"),
    standard_module!("ietf-netconf-notifications", "2012-02-06"),
    standard_module!("ietf-netconf-with-defaults", "2011-06-01"),
    standard_module!("ietf-origin", "2018-02-14"),
    standard_module!("ietf-yang-library", "2019-01-04"),
    standard_module!("ietf-yang-types", "2013-07-15"),
    standard_module!("nc-notifications", "2008-07-14"),
    standard_module!("notifications", "2008-07-14"),
];

/// The modules every server implements (the NETCONF machinery itself), with their features.
pub const BASE_MODULES: &[(&str, &[&str])] = &[
    (
        "ietf-netconf",
        &[
            "writable-running",
            "candidate",
            "confirmed-commit",
            "rollback-on-error",
            "validate",
            "startup",
            "xpath",
        ],
    ),
    ("ietf-netconf-with-defaults", &[]),
    ("ietf-netconf-monitoring", &[]),
    ("ietf-netconf-notifications", &[]),
    ("ietf-netconf-acm", &[]),
    ("ietf-netconf-nmda", &["with-defaults"]),
    ("ietf-origin", &[]),
    ("nc-notifications", &[]),
    ("notifications", &[]),
];

/// libyang keeps a pointer to this map for the life of every context: it must be static.
static EMBEDDED: LazyLock<EmbeddedModules> = LazyLock::new(|| {
    STANDARD_MODULES
        .iter()
        .map(|m| (EmbeddedModuleKey::new(m.name, Some(m.revision), None, None), m.text))
        .collect()
});

/// A module to implement besides the base modules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleSpec {
    /// Module name.
    pub name: String,
    /// Revision; the latest available if `None`.
    pub revision: Option<String>,
    /// Features to enable (`*` for all).
    pub features: Vec<String>,
}

impl ModuleSpec {
    /// The latest revision of `name` with the given features.
    pub fn new(name: &str, features: &[&str]) -> Self {
        ModuleSpec {
            name: name.to_string(),
            revision: None,
            features: features.iter().map(|f| f.to_string()).collect(),
        }
    }
}

/// A module as the context holds it (the seed of yang-library and the hello's capabilities).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ModuleInfo {
    /// Module name.
    pub name: String,
    /// Revision, if the module has one.
    pub revision: Option<String>,
    /// XML namespace.
    pub namespace: String,
    /// Implemented (true) or only imported for its definitions (false).
    pub implemented: bool,
}

/// Why a schema or a data tree is refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SchemaError {
    /// libyang could not create a context.
    #[error("cannot create a YANG context: {0}")]
    Context(String),
    /// A module directory cannot be used.
    #[error("YANG module directory {path}: {reason}")]
    Directory {
        /// The directory.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A module cannot be loaded.
    #[error("cannot load YANG module '{module}': {reason}")]
    Module {
        /// The module.
        module: String,
        /// libyang's explanation.
        reason: String,
    },
    /// Data does not conform to the schema.
    #[error("invalid data{}: {message}", path.as_ref().map(|p| format!(" at {p}")).unwrap_or_default())]
    Invalid {
        /// libyang's message.
        message: String,
        /// The data path of the offending node, if known.
        path: Option<String>,
        /// libyang's error-app-tag, if any.
        app_tag: Option<String>,
        /// The schema path of the offending node, where libyang has no data node to name
        /// (`min-elements`, a top-level mandatory choice).
        schema_path: Option<String>,
    },
    /// An XPath expression whose evaluation would cost more than allowed
    /// (`crate::yang::xpath_cost`).
    #[error("the XPath expression could take up to {estimate} node visits on this data, more than this server's limit of {limit}")]
    TooCostly {
        /// The bound on its cost, in node visits.
        estimate: u64,
        /// The limit.
        limit: u64,
    },
}

impl SchemaError {
    fn from_yang(e: yang2::Error) -> Self {
        SchemaError::Invalid {
            message: e.msg.unwrap_or_else(|| format!("libyang error {}", e.errcode)),
            path: e.path,
            app_tag: e.apptag,
            schema_path: e.schema_path,
        }
    }
}

/// The schema of one server.
pub struct Schema {
    ctx: Context,
    model: Model,
    /// Module sources for get-schema, by (name, revision).
    sources: BTreeMap<(String, Option<String>), String>,
    /// Enabled features of each implemented module.
    features: BTreeMap<String, Vec<String>>,
    /// Which modules deviate which, read once from the sources when first asked.
    deviations: std::sync::OnceLock<super::deviations::Deviations>,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema").field("modules", &self.modules().len()).finish()
    }
}

// ===== impl Schema =====

impl Schema {
    /// For each deviated module, the implemented modules that deviate it (RFC 8525's
    /// `deviation`), read from their sources once.
    pub fn deviations(&self) -> &super::deviations::Deviations {
        self.deviations.get_or_init(|| {
            let modules = self.model().modules();
            let implemented = modules.iter().filter(|m| m.implemented).filter_map(|m| {
                let text = self.module_source(&m.name, m.revision.as_deref()).ok()?;
                Some((m.name.as_str(), m.revision.as_deref(), text))
            });
            super::deviations::find(implemented)
        })
    }

    /// Builds a context with the base modules, every module found in `dirs` (all features
    /// enabled), and `extra` (embedded or found in `dirs`).
    pub fn new(dirs: &[PathBuf], extra: &[ModuleSpec]) -> Result<Schema, SchemaError> {
        let mut ctx = Context::new(ContextFlags::DISABLE_SEARCHDIR_CWD)
            .map_err(|e| SchemaError::Context(e.to_string()))?;
        ctx.set_embedded_modules(&EMBEDDED);
        let mut from_dirs = BTreeSet::new();
        for dir in dirs {
            let dir_err = |reason: String| SchemaError::Directory { path: dir.clone(), reason };
            let text = dir.to_str().ok_or_else(|| dir_err("the path is not UTF-8".into()))?;
            if text.contains('\0') {
                return Err(dir_err("the path contains a NUL byte".into()));
            }
            ctx.set_searchdir(dir).map_err(|e| dir_err(e.to_string()))?;
            from_dirs.extend(module_names_in(dir).map_err(|e| dir_err(e.to_string()))?);
        }
        for (name, features) in BASE_MODULES {
            load(&mut ctx, name, None, features)?;
        }
        for name in &from_dirs {
            load(&mut ctx, name, None, &["*"])?;
        }
        for spec in extra {
            let features: Vec<&str> = spec.features.iter().map(String::as_str).collect();
            load(&mut ctx, &spec.name, spec.revision.as_deref(), &features)?;
        }
        let model = Model::build(&ctx);
        let mut sources = BTreeMap::new();
        let mut features = BTreeMap::new();
        for m in ctx.modules(false) {
            let key = (m.name().to_string(), m.revision().map(str::to_string));
            let text = STANDARD_MODULES
                .iter()
                .find(|e| e.name == m.name() && Some(e.revision) == m.revision())
                .map(|e| e.text.to_string())
                .or_else(|| m.filepath().and_then(|p| std::fs::read_to_string(p).ok()))
                .or_else(|| {
                    m.print_string(SchemaOutputFormat::YANG, SchemaPrinterFlags::empty()).ok()
                });
            if let Some(text) = text {
                if m.is_implemented() {
                    let enabled: Vec<String> = feature_names(&text)
                        .into_iter()
                        .filter(|f| m.feature_value(f).unwrap_or(false))
                        .collect();
                    features.insert(m.name().to_string(), enabled);
                }
                sources.insert(key, text);
            }
        }
        Ok(Schema { ctx, model, sources, features, deviations: std::sync::OnceLock::new() })
    }

    /// The pure-Rust index of the schema.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The YANG text of module `name` (a given revision, or the only one there is). `Err` with
    /// the number of revisions when `revision` is `None` and there are several.
    pub fn module_source(&self, name: &str, revision: Option<&str>) -> Result<&str, usize> {
        let matching: Vec<_> = self
            .sources
            .iter()
            .filter(|((n, r), _)| {
                n == name && revision.is_none_or(|want| r.as_deref() == Some(want))
            })
            .collect();
        match matching.as_slice() {
            [(_, text)] => Ok(text.as_str()),
            v => Err(v.len()),
        }
    }

    /// The modules whose source get-schema can return: (name, revision, namespace).
    pub fn schema_list(&self) -> Vec<(String, Option<String>, String)> {
        self.sources
            .keys()
            .filter_map(|(n, r)| {
                let ns = self
                    .ctx
                    .modules(false)
                    .find(|m| m.name() == n && m.revision().map(str::to_string) == *r)?
                    .namespace()
                    .to_string();
                Some((n.clone(), r.clone(), ns))
            })
            .collect()
    }

    /// The enabled features of implemented module `name`.
    pub fn features(&self, name: &str) -> &[String] {
        self.features.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Renders data (configuration, or configuration and state when `state` is set) in
    /// with-defaults `mode`. `xml` is explicit data as stored or as supplied by backends.
    pub fn render(
        &self,
        xml: &str,
        mode: WithDefaults,
        state: bool,
    ) -> Result<String, SchemaError> {
        if mode == WithDefaults::Explicit || xml.trim().is_empty() && mode == WithDefaults::Trim {
            return Ok(xml.to_string());
        }
        let mut tree = self.parse_lenient(xml, state)?;
        if matches!(mode, WithDefaults::ReportAll | WithDefaults::ReportAllTagged) {
            let flags =
                if state { DataImplicitFlags::empty() } else { DataImplicitFlags::NO_STATE };
            tree.add_implicit(flags).map_err(SchemaError::from_yang)?;
        }
        print_mode(&tree, mode)
    }

    /// Evaluates an XPath 1.0 `expr` (JSON-style module-name prefixes) on the data and returns
    /// the selected nodes with their ancestors (and list keys), rendered in `mode`, and the
    /// selected nodes' data paths (JSON form; `<get-data>`'s max-depth counts from them);
    /// refused without running if its cost on this data could exceed `max_cost` node visits.
    pub fn select_xpath(
        &self,
        xml: &str,
        expr: &str,
        mode: WithDefaults,
        state: bool,
        max_cost: u64,
    ) -> Result<(String, Vec<String>), SchemaError> {
        if expr.contains('\0') {
            return Err(SchemaError::Invalid {
                message: "the XPath expression contains a NUL character".into(),
                path: None,
                app_tag: None,
                schema_path: None,
            });
        }
        let mut tree = self.parse_lenient(xml, state)?;
        if matches!(mode, WithDefaults::ReportAll | WithDefaults::ReportAllTagged) {
            let flags =
                if state { DataImplicitFlags::empty() } else { DataImplicitFlags::NO_STATE };
            tree.add_implicit(flags).map_err(SchemaError::from_yang)?;
        }
        if tree.reference().is_none() {
            return Ok((String::new(), Vec::new()));
        }
        check_cost(expr, &tree, max_cost)?;
        let set: Vec<_> = tree.find_xpath(expr).map_err(SchemaError::from_yang)?.collect();
        // A node whose ancestor is selected too is already in that ancestor's copy: copying
        // and merging it again (`//*` selects every node) cost a merge per node for nothing.
        let selected: std::collections::HashSet<_> = set.iter().map(|n| n.as_raw()).collect();
        let mut result = DataTree::new(&self.ctx);
        let mut paths = Vec::new();
        for node in &set {
            paths.push(node.path());
            if node.ancestors().any(|a| selected.contains(&a.as_raw())) {
                continue;
            }
            let dup = node.duplicate(true).map_err(SchemaError::from_yang)?;
            result.merge(&dup).map_err(SchemaError::from_yang)?;
        }
        Ok((print_mode(&result, mode)?, paths))
    }

    /// Whether the schema node at `data_path` (JSON form, predicates allowed) has a `must`
    /// whose error-app-tag is `app_tag` (a must violation, reported as operation-failed).
    pub fn must_app_tag(&self, data_path: &str, app_tag: &str) -> bool {
        let mut schema_path = String::with_capacity(data_path.len());
        let mut depth = 0;
        let mut quote: Option<char> = None;
        for c in data_path.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') if depth > 0 => quote = Some(c),
                (None, '[') => depth += 1,
                (None, ']') => depth -= 1,
                (None, c) if depth == 0 => schema_path.push(c),
                _ => {}
            }
        }
        if schema_path.contains('\0') {
            return false;
        }
        match self.ctx.find_path(&schema_path) {
            Ok(node) => {
                node.musts().is_some_and(|mut m| m.any(|must| must.error_apptag() == Some(app_tag)))
            }
            Err(_) => false,
        }
    }

    /// Parses an action's input (`reply` false) or output (`reply` true), inside the data
    /// nodes above the action, against its YANG definition (value types, known nodes, list
    /// keys); returns the action node's data path as libyang writes it
    /// (`/m:ports/port[name='p1']/measure`) and the whole envelope reprinted, both with
    /// canonical values.
    pub fn parse_action(&self, xml: &str, reply: bool) -> Result<(String, String), SchemaError> {
        let op = if reply { DataOperation::ReplyYang } else { DataOperation::RpcYang };
        let tree = self.parse_op(xml, op)?;
        let path = tree
            .traverse()
            .find(|n| n.schema().kind() == SchemaNodeKind::Action)
            .map(|n| n.path())
            .ok_or_else(|| SchemaError::Invalid {
                message: "the data holds no action".into(),
                path: None,
                app_tag: None,
                schema_path: None,
            })?;
        Ok((path, self.print_config(&tree)?))
    }

    /// Validates the input of an RPC (the operation element's XML) against its YANG
    /// definition.
    pub fn validate_rpc(&self, xml: &str) -> Result<(), SchemaError> {
        self.parse_op(xml, DataOperation::RpcYang).map(|_| ())
    }

    /// Parses a notification's event element (its XML) against its YANG definition (value
    /// types, known nodes).
    pub fn validate_notification(&self, xml: &str) -> Result<(), SchemaError> {
        self.parse_op(xml, DataOperation::NotificationYang).map(|_| ())
    }

    /// Whether the XPath `expr` (module-name prefixes) selects anything in the notification
    /// `xml` (its event element); an error if its cost on this event could exceed
    /// `max_cost` node visits (it is not run then).
    pub fn notification_matches(
        &self,
        xml: &str,
        expr: &str,
        max_cost: u64,
    ) -> Result<bool, SchemaError> {
        if expr.contains('\0') {
            return Ok(false);
        }
        match self.parse_op(xml, DataOperation::NotificationYang) {
            Ok(tree) => {
                check_cost(expr, &tree, max_cost)?;
                Ok(tree.find_xpath(expr).is_ok_and(|set| set.count() > 0))
            }
            Err(_) => Ok(false),
        }
    }

    fn parse_op(&self, xml: &str, op: DataOperation) -> Result<DataTree<'_>, SchemaError> {
        if xml.contains('\0') {
            return Err(SchemaError::Invalid {
                message: "the data contains a NUL character".into(),
                path: None,
                app_tag: None,
                schema_path: None,
            });
        }
        let mut bytes = Vec::with_capacity(xml.len() + 1);
        bytes.extend_from_slice(xml.as_bytes());
        bytes.push(0);
        DataTree::parse_op_string(&self.ctx, &bytes, DataFormat::XML, op)
            .map_err(SchemaError::from_yang)
    }

    /// Parses data without validating it (unknown nodes dropped): for rendering.
    fn parse_lenient(&self, xml: &str, state: bool) -> Result<DataTree<'_>, SchemaError> {
        let mut flags = DataParserFlags::NO_VALIDATION;
        if !state {
            flags |= DataParserFlags::NO_STATE;
        }
        self.parse_with(xml, DataFormat::XML, flags, DataValidationFlags::empty())
    }

    /// Parses a configuration checking only what parsing checks (known nodes, value types,
    /// list keys) without the datastore-wide validation (mandatory nodes, leafrefs, must,
    /// unique...): for test-option `set` on the candidate. Returns the canonical text.
    pub fn canonical_config_unvalidated(&self, xml: &str) -> Result<String, SchemaError> {
        let tree = self.parse_unvalidated(xml)?;
        self.print_config(&tree)
    }

    /// Parses configuration data checking only what parsing checks (known nodes, value types,
    /// list keys): a piece of a configuration to be merged into a validated tree.
    pub fn parse_unvalidated(&self, xml: &str) -> Result<DataTree<'_>, SchemaError> {
        self.parse_with(
            xml,
            DataFormat::XML,
            DataParserFlags::NO_VALIDATION | DataParserFlags::STRICT | DataParserFlags::NO_STATE,
            DataValidationFlags::empty(),
        )
    }

    /// The libyang context.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Every module in the context, libyang's built-in ones included (ietf-yang-library,
    /// ietf-datastores, ietf-yang-types, ... are compiled into libyang and take precedence over
    /// the embedded copies of the same revision), sorted by name.
    pub fn modules(&self) -> Vec<ModuleInfo> {
        let mut v: Vec<ModuleInfo> = self
            .ctx
            .modules(false)
            .map(|m| ModuleInfo {
                name: m.name().to_string(),
                revision: m.revision().map(str::to_string),
                namespace: m.namespace().to_string(),
                implemented: m.is_implemented(),
            })
            .collect();
        v.sort();
        v
    }

    /// Whether `feature` of implemented module `module` is enabled.
    pub fn feature_enabled(&self, module: &str, feature: &str) -> bool {
        self.ctx
            .get_module_implemented(module)
            .is_some_and(|m| m.feature_value(feature).unwrap_or(false))
    }

    /// Parses a complete configuration (XML, any number of top-level elements) and validates
    /// it: unknown elements and state data are errors; defaults are added.
    pub fn parse_config(&self, xml: &str) -> Result<DataTree<'_>, SchemaError> {
        self.parse(xml, DataFormat::XML)
    }

    /// Like [`Schema::parse_config`] for RFC 7951 JSON.
    pub fn parse_config_json(&self, json: &str) -> Result<DataTree<'_>, SchemaError> {
        self.parse(json, DataFormat::JSON)
    }

    fn parse(&self, text: &str, format: DataFormat) -> Result<DataTree<'_>, SchemaError> {
        self.parse_with(
            text,
            format,
            DataParserFlags::STRICT | DataParserFlags::NO_STATE,
            DataValidationFlags::NO_STATE,
        )
    }

    fn parse_with(
        &self,
        text: &str,
        format: DataFormat,
        parser: DataParserFlags,
        validation: DataValidationFlags,
    ) -> Result<DataTree<'_>, SchemaError> {
        if text.contains('\0') {
            return Err(SchemaError::Invalid {
                message: "the data contains a NUL character".into(),
                path: None,
                app_tag: None,
                schema_path: None,
            });
        }
        // libyang reads up to a NUL terminator: give it one.
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(0);
        DataTree::parse_string(&self.ctx, &bytes, format, parser, validation)
            .map_err(SchemaError::from_yang)
    }

    /// Prints a configuration tree as XML, only the nodes present explicitly (the defaults
    /// libyang added are left out; a leaf set to its default value by a client is kept, as
    /// with-defaults' explicit mode requires).
    pub fn print_config(&self, tree: &DataTree<'_>) -> Result<String, SchemaError> {
        tree.print_string(
            DataFormat::XML,
            DataPrinterFlags::WITH_SIBLINGS
                | DataPrinterFlags::SHRINK
                | DataPrinterFlags::WD_EXPLICIT,
        )
        .map(Option::unwrap_or_default)
        .map_err(SchemaError::from_yang)
    }

    /// Parses, validates and reprints `xml` in canonical form.
    pub fn canonical_config(&self, xml: &str) -> Result<String, SchemaError> {
        let tree = self.parse_config(xml)?;
        self.print_config(&tree)
    }
}

/// Refuses `expr` if its cost on `tree` could exceed `max_cost` node visits.
fn check_cost(expr: &str, tree: &DataTree<'_>, max_cost: u64) -> Result<(), SchemaError> {
    let estimate =
        crate::yang::xpath_cost::estimate(expr, shape(tree)).map_err(|e| SchemaError::Invalid {
            message: e.to_string(),
            path: None,
            app_tag: None,
            schema_path: None,
        })?;
    if estimate > max_cost as f64 {
        // (Saturates: a bound beyond u64 is as refused as one just over the limit.)
        return Err(SchemaError::TooCostly { estimate: estimate as u64, limit: max_cost });
    }
    Ok(())
}

/// The shape of a data tree, for `xpath_cost`: one walk, a few steps per node.
fn shape(tree: &DataTree<'_>) -> crate::yang::xpath_cost::Shape {
    let mut shape = crate::yang::xpath_cost::Shape { nodes: 0, depth: 0, fanout: 0 };
    let mut top = 0;
    for node in tree.traverse() {
        shape.nodes += 1;
        let up = node.ancestors().count() as u64;
        top += u64::from(up == 0);
        shape.depth = shape.depth.max(up + 1);
        shape.fanout = shape.fanout.max(node.children().count() as u64);
    }
    shape.fanout = shape.fanout.max(top);
    shape
}

fn print_mode(tree: &DataTree<'_>, mode: WithDefaults) -> Result<String, SchemaError> {
    let wd = match mode {
        WithDefaults::Explicit => DataPrinterFlags::WD_EXPLICIT,
        WithDefaults::ReportAll => DataPrinterFlags::WD_ALL,
        WithDefaults::ReportAllTagged => {
            DataPrinterFlags::from_bits_retain(yang2::ffi::LYD_PRINT_WD_ALL_TAG)
        }
        WithDefaults::Trim => DataPrinterFlags::WD_TRIM,
    };
    if tree.reference().is_none() {
        return Ok(String::new());
    }
    tree.print_string(
        DataFormat::XML,
        DataPrinterFlags::WITH_SIBLINGS | DataPrinterFlags::SHRINK | wd,
    )
    .map(Option::unwrap_or_default)
    .map_err(SchemaError::from_yang)
}

/// The names of the `feature` statements in a module's YANG text.
fn feature_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("feature") {
        let before = rest[..i].chars().next_back();
        let after = &rest[i + "feature".len()..];
        rest = after;
        if before.is_some_and(|c| !c.is_whitespace() && c != '{' && c != ';' && c != '}') {
            continue;
        }
        if !after.starts_with(char::is_whitespace) {
            continue;
        }
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .collect();
        let tail = after.trim_start()[name.len()..].trim_start();
        if !name.is_empty() && (tail.starts_with('{') || tail.starts_with(';')) {
            out.push(name);
        }
    }
    out.sort();
    out.dedup();
    out
}

fn load(
    ctx: &mut Context,
    name: &str,
    revision: Option<&str>,
    features: &[&str],
) -> Result<(), SchemaError> {
    let bad =
        |reason: &str| SchemaError::Module { module: name.to_string(), reason: reason.to_string() };
    if name.contains('\0')
        || revision.is_some_and(|r| r.contains('\0'))
        || features.iter().any(|f| f.contains('\0'))
    {
        return Err(bad("the name contains a NUL byte"));
    }
    ctx.load_module(name, revision, features)
        .map(|_| ())
        .map_err(|e| SchemaError::Module { module: name.to_string(), reason: e.to_string() })
}

/// Module names of the `*.yang` files in `dir` (`name.yang` or `name@revision.yang`).
fn module_names_in(dir: &Path) -> std::io::Result<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(dir)? {
        let file = entry?.file_name();
        let Some(file) = file.to_str() else { continue };
        if let Some(stem) = file.strip_suffix(".yang") {
            let name = stem.split('@').next().unwrap_or(stem);
            if !name.is_empty() {
                names.insert(name.to_string());
            }
        }
    }
    Ok(names)
}

/// What the unit tests of several modules share: a context with ietf-interfaces.
#[cfg(test)]
pub(crate) mod test_support {
    use super::{ModuleSpec, Schema};

    pub const IF: &str = "urn:ietf:params:xml:ns:yang:ietf-interfaces";
    pub const IANA: &str = "urn:ietf:params:xml:ns:yang:iana-if-type";

    pub fn interfaces_schema() -> Schema {
        Schema::new(
            &[],
            &[ModuleSpec::new("ietf-interfaces", &[]), ModuleSpec::new("iana-if-type", &[])],
        )
        .expect("schema builds")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::test_support::{interfaces_schema as schema, IANA, IF};

    #[test]
    fn base_modules_are_implemented_with_their_features() {
        let s = schema();
        let modules = s.modules();
        let find = |n: &str| modules.iter().find(|m| m.name == n).cloned();
        let nc = find("ietf-netconf").expect("ietf-netconf");
        assert_eq!(nc.revision.as_deref(), Some("2011-06-01"));
        assert!(nc.implemented);
        assert_eq!(nc.namespace, "urn:ietf:params:xml:ns:netconf:base:1.0");
        for (name, _) in BASE_MODULES {
            assert!(find(name).is_some_and(|m| m.implemented), "{name}");
        }
        assert!(find("ietf-yang-library").is_some_and(|m| m.implemented));
        assert!(s.feature_enabled("ietf-netconf", "candidate"));
        assert!(s.feature_enabled("ietf-netconf", "confirmed-commit"));
        assert!(!s.feature_enabled("ietf-netconf", "url"));
    }

    #[test]
    fn every_embedded_module_compiles() {
        let specs: Vec<ModuleSpec> =
            STANDARD_MODULES.iter().map(|m| ModuleSpec::new(m.name, &["*"])).collect();
        let s = Schema::new(&[], &specs).expect("all standard modules load");
        for m in STANDARD_MODULES {
            assert!(s.modules().iter().any(|i| i.name == m.name && i.implemented), "{}", m.name);
        }
    }

    #[test]
    fn valid_config_parses_and_prints_canonically() {
        let s = schema();
        let xml = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>eth0</name>\
             <type xmlns:ianaift=\"{IANA}\">ianaift:ethernetCsmacd</type></interface></interfaces>"
        );
        let out = s.canonical_config(&xml).expect("valid");
        assert!(out.contains("<name>eth0</name>"), "{out}");
        assert!(!out.contains("<enabled>"), "defaults are trimmed: {out}");
        // The canonical form parses again to the same text.
        assert_eq!(s.canonical_config(&out).expect("valid"), out);
        assert_eq!(s.canonical_config("").expect("empty config is valid"), "");
    }

    #[test]
    fn invalid_config_is_refused_with_a_path() {
        let s = schema();
        let bad_type = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>eth0</name><type>nonsense</type></interface></interfaces>"
        );
        let e = s.parse_config(&bad_type).expect_err("bad identity");
        let SchemaError::Invalid { path, .. } = &e else { panic!("{e}") };
        assert!(path.as_deref().is_some_and(|p| p.contains("interface")), "{e}");

        let missing_type = format!(
            "<interfaces xmlns=\"{IF}\"><interface><name>eth0</name></interface></interfaces>"
        );
        assert!(s.parse_config(&missing_type).is_err(), "type is mandatory");

        let unknown = "<bogus xmlns=\"urn:nowhere\"/>";
        assert!(s.parse_config(unknown).is_err(), "unknown elements are errors");

        let state = format!(
            "<interfaces-state xmlns=\"{IF}\"><interface><name>eth0</name></interface></interfaces-state>"
        );
        assert!(s.parse_config(&state).is_err(), "state data is not configuration");
        assert!(s.parse_config("<a>\0</a>").is_err());
    }

    #[test]
    fn modules_from_a_directory_are_loaded_and_validate_data() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("example-widgets@2024-01-01.yang"),
            r#"module example-widgets {
  yang-version 1.1;
  namespace "urn:example:widgets";
  prefix w;
  revision 2024-01-01;
  container widgets {
    leaf count { type uint8 { range "1..10"; } }
  }
}"#,
        )
        .expect("write module");
        let s = Schema::new(&[dir.path().to_path_buf()], &[]).expect("schema");
        assert!(s.modules().iter().any(|m| m.name == "example-widgets" && m.implemented));
        assert!(s
            .parse_config("<widgets xmlns=\"urn:example:widgets\"><count>3</count></widgets>")
            .is_ok());
        let e = s
            .parse_config("<widgets xmlns=\"urn:example:widgets\"><count>11</count></widgets>")
            .expect_err("out of range");
        assert!(e.to_string().contains("11"), "{e}");
    }

    #[test]
    fn notifications_and_rpcs_are_checked_against_their_definitions() {
        let s = schema();
        let n = "urn:ietf:params:xml:ns:yang:ietf-netconf-notifications";
        let good = format!("<netconf-session-start xmlns=\"{n}\"><username>a</username><session-id>4</session-id></netconf-session-start>");
        assert!(s.validate_notification(&good).is_ok());
        let bad = good.replace(">4<", ">four<");
        assert!(s.validate_notification(&bad).is_err(), "session-id is a number");
        assert!(s.validate_notification(&format!("<nope xmlns=\"{n}\"/>")).is_err());
        let kill = "<kill-session xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><session-id>x</session-id></kill-session>";
        assert!(s.validate_rpc(kill).is_err());
    }

    #[test]
    fn broken_module_in_directory_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("broken.yang"), "module broken { nonsense }")
            .expect("write");
        let e = Schema::new(&[dir.path().to_path_buf()], &[]).expect_err("broken");
        assert!(matches!(e, SchemaError::Module { ref module, .. } if module == "broken"), "{e}");
    }
}
