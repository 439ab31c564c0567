//! `<get-schema>` (RFC 6022 §3.1): a module's YANG text.

use super::params::{check_params, invalid_param, missing_param};
use super::{one, OpResult};
use crate::engine::monitoring::MONITORING_NS;
use crate::engine::Engine;
use crate::protocol::error::{ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use netconf_proto::xml::{escape_text, Element};

pub(super) fn get_schema(engine: &Engine, op: &Element) -> OpResult {
    check_params(
        op,
        &[(MONITORING_NS, "identifier"), (MONITORING_NS, "version"), (MONITORING_NS, "format")],
    )
    .map_err(one)?;
    let id = op
        .child(MONITORING_NS, "identifier")
        .map(|e| e.text().trim().to_string())
        .ok_or_else(|| one(missing_param("identifier")))?;
    let version = op.child(MONITORING_NS, "version").map(|e| e.text().trim().to_string());
    if let Some(f) = op.child(MONITORING_NS, "format") {
        let t = f.text();
        let name = t.trim().rsplit(':').next().unwrap_or_default();
        if name != "yang" {
            return Err(one(invalid_param(
                "format",
                format!("The format '{name}' is not available; ask for yang."),
            )));
        }
    }
    match engine.schema.module_source(&id, version.as_deref().filter(|v| !v.is_empty())) {
        Ok(text) => Ok(ReplyBody::Raw(format!(
            "<data xmlns=\"{MONITORING_NS}\">{}</data>",
            escape_text(text)
        ))),
        Err(0) => Err(one(invalid_param(
            "identifier",
            format!(
                "This server has no schema '{id}'{}.",
                version.map(|v| format!(" revision {v}")).unwrap_or_default()
            ),
        ))),
        Err(_) => {
            let mut e = RpcError::new(ErrorTag::OperationFailed, ErrorType::Protocol)
                .with_message(format!("Several revisions of '{id}' exist; name one in <version>."));
            e.app_tag = Some("data-not-unique".into());
            Err(one(e))
        }
    }
}
