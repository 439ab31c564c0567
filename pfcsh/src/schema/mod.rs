//! The server's YANG modules in a libyang context: which modules the server implements
//! (`library.rs`, from ietf-yang-library), their text (`fetch.rs`: `<get-schema>`, cached on
//! disk per module@revision), and the context built from them (`context.rs`).

mod context;
mod fetch;
mod library;

pub use context::{build_context, built_in_checker, SchemaError};
pub use fetch::ensure_cached;
pub use library::{parse_library, LibraryModule, YANG_LIBRARY_FILTER};
