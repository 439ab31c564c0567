//! mgmt: the schema-driven NETCONF server (SSH, framing, datastores, NACM). It knows nothing of
//! PFC; the daemon plugs its component logic in through a backend. Work in progress: see the
//! issue "mgmt: a schema-driven NETCONF server over SSH".
