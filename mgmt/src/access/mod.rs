//! Who may do what: NETCONF access control (RFC 8341, [`nacm`]), keeping the administrator in
//! (`admin_access`), and the users file the SSH layer authenticates against ([`users`]).

pub(crate) mod admin_access;
pub mod nacm;
pub mod users;
