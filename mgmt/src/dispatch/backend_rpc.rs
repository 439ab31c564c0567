//! The RPCs backends implement: input checked against the schema, then the backend's
//! answer.

use super::{one, OpResult};
use crate::engine::{schema_error, Engine, SessionCtx};
use crate::protocol::error::{ErrorInfo, ErrorTag, ErrorType, RpcError};
use crate::protocol::rpc::ReplyBody;
use netconf_proto::xml::{Element, NETCONF_BASE_NS};

pub(super) fn backend_rpc(engine: &Engine, ctx: &SessionCtx, op: &Element) -> OpResult {
    let ns = op.namespace.as_deref().unwrap_or_default();
    let Some(b) = engine.rpc_backend(ns, &op.name) else {
        return Err(one(RpcError::operation_not_supported(&op.name)));
    };
    engine.schema.validate_rpc(&op.to_xml()).map_err(|e| one(schema_error(&engine.schema, &e)))?;
    // libyang's operation parser checks types but not mandatory input.
    if let Some(rpc) = engine.schema.model().rpc(ns, &op.name) {
        for m in &rpc.mandatory_input {
            if op.child(ns, m).is_none() {
                return Err(one(RpcError::new(ErrorTag::MissingElement, ErrorType::Application)
                    .with_message(format!("<{}> needs the input <{m}>.", op.name))
                    .with_info(ErrorInfo::BadElement(m.clone()))));
            }
        }
    }
    match b.rpc(&ctx.origin(), op) {
        Ok(out) if out.is_empty() => Ok(ReplyBody::Ok),
        Ok(out) => {
            let mut text = String::new();
            for e in &out {
                e.write_xml(&mut text, Some(NETCONF_BASE_NS));
            }
            Ok(ReplyBody::Raw(text))
        }
        Err(e) => Err(one(RpcError::new(ErrorTag::OperationFailed, ErrorType::Application)
            .with_message(format!("{} ({})", e.message, b.name())))),
    }
}
