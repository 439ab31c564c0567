//! netconf-proto: what both ends of a NETCONF session need and nothing more, so that a client
//! (`netconf-client`, pfcsh) shares the server's protocol code without linking the server
//! (`mgmt`: SSH, datastores, libyang).
//!
//! Bottom up: [`xml`] (a small namespace-aware tree, its parser and escaping), [`framing`]
//! (RFC 6242 message framing, pure), [`hello`] (the `<hello>` exchange and the framing it
//! negotiates), and [`fuzzing`] (the framing and XML fuzz targets' checks).

pub mod framing;
pub mod fuzzing;
pub mod hello;
pub mod xml;
