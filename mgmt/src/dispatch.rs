//! Turns one operation into a reply. For now the server implements only `<close-session>`;
//! every other operation gets operation-not-supported. The datastore operations plug in here.

use crate::error::RpcError;
use crate::rpc::ReplyBody;
use crate::xml::{Element, NETCONF_BASE_NS};

/// What the session does after an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Send the reply and go on.
    Reply(ReplyBody),
    /// Send the reply, then end the session (close-session).
    ReplyAndClose(ReplyBody),
}

/// Executes `operation` for session `session_id`.
pub fn dispatch(operation: &Element, _session_id: u32) -> Outcome {
    if operation.is(NETCONF_BASE_NS, "close-session") {
        return Outcome::ReplyAndClose(ReplyBody::Ok);
    }
    Outcome::Reply(ReplyBody::Errors(vec![RpcError::operation_not_supported(&operation.name)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ErrorTag, ErrorType};

    fn op(ns: &str, name: &str) -> Element {
        Element { namespace: Some(ns.into()), name: name.into(), ..Element::default() }
    }

    #[test]
    fn close_session_closes() {
        assert_eq!(
            dispatch(&op(NETCONF_BASE_NS, "close-session"), 1),
            Outcome::ReplyAndClose(ReplyBody::Ok)
        );
    }

    #[test]
    fn anything_else_is_not_supported() {
        for o in [op(NETCONF_BASE_NS, "get"), op("urn:other", "close-session")] {
            let Outcome::Reply(ReplyBody::Errors(errors)) = dispatch(&o, 1) else {
                panic!("expected an error reply");
            };
            assert_eq!(errors[0].tag, ErrorTag::OperationNotSupported);
            assert_eq!(errors[0].error_type, ErrorType::Protocol);
        }
    }
}
