//! A libyang context with the server's modules, loaded from the cache directory with the
//! features the server enabled: the schema pfcsh completes, checks and converts with.

use std::path::Path;

use thiserror::Error;
use yang2::context::{Context, ContextFlags};

use super::library::LibraryModule;

/// Why the server's schema could not be loaded.
#[derive(Debug, Error)]
pub enum SchemaError {
    #[error("libyang: {0}")]
    Context(String),
    #[error("module {module} from the server does not load: {reason}")]
    Module { module: String, reason: String },
}

/// Whether libyang itself carries a module (ietf-yang-library and the modules it needs are
/// built in): those need no fetch.
pub fn built_in_checker() -> Result<impl Fn(&LibraryModule) -> bool, SchemaError> {
    let ctx = new_context()?;
    let names: Vec<(String, Option<String>)> = ctx
        .modules(false)
        .map(|m| (m.name().to_string(), m.revision().map(str::to_string)))
        .collect();
    Ok(move |m: &LibraryModule| names.iter().any(|(n, r)| *n == m.name && *r == m.revision))
}

fn new_context() -> Result<Context, SchemaError> {
    Context::new(ContextFlags::DISABLE_SEARCHDIR_CWD)
        .map_err(|e| SchemaError::Context(e.to_string()))
}

/// Loads every implemented module of `modules` from `dir` with its features; libyang pulls
/// the imported ones from `dir` as it needs them.
pub fn build_context(dir: &Path, modules: &[LibraryModule]) -> Result<Context, SchemaError> {
    let mut ctx = new_context()?;
    ctx.set_searchdir(dir).map_err(|e| SchemaError::Context(e.to_string()))?;
    for m in modules.iter().filter(|m| m.implemented) {
        let already = ctx.get_module_implemented(&m.name);
        if already.is_some_and(|a| a.revision() == m.revision.as_deref()) {
            continue;
        }
        let features: Vec<&str> = m.features.iter().map(String::as_str).collect();
        ctx.load_module(&m.name, m.revision.as_deref(), &features)
            .map_err(|e| SchemaError::Module { module: m.file_stem(), reason: e.to_string() })?;
    }
    Ok(ctx)
}
