//! ieee802-dot1q-pfc-bridge, the PFC model on each Bridge Port, one file per direction:
//! [`config`] (the `pfc` container into the port's intent, the receive buffer's fit), [`state`]
//! (the container's state from the port's snapshot), [`action`] (measure-headroom,
//! clear-pfc-counters), [`notification`] (headroom-allowance-changed, receive-buffer-drop).

pub mod action;
pub mod config;
pub mod notification;
pub mod state;
