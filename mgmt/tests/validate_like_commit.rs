//! `<validate>` runs the checks `<commit>` runs (RFC 6241 §8.6): a backend's refusal in
//! `prepare` and the guard that keeps the administrator from locking themself out are found by
//! a pre-flight (edit the candidate, validate, discard), not only by the real commit. Nothing is
//! applied: the backend that prepared for a validate aborts.

mod common;

use std::sync::{Arc, Mutex};

use common::fixture::*;
use mgmt::backend::{Backend, BackendError, Transaction};

/// Refuses the label "refuse" in `prepare`, as hardware that cannot take it would; records
/// what it is asked.
struct Picky {
    log: Mutex<Vec<&'static str>>,
}

impl Picky {
    fn take(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.log.lock().expect("log"))
    }
}

impl Backend for Picky {
    fn name(&self) -> &str {
        "picky"
    }

    fn modules(&self) -> Vec<String> {
        vec!["mgmt-test".into()]
    }

    fn prepare(&self, tx: &Transaction<'_>) -> Result<(), BackendError> {
        self.log.lock().expect("log").push("prepare");
        let label = tx.new.child(MT, "settings").and_then(|s| s.child(MT, "label"));
        if label.is_some_and(|l| l.text() == "refuse") {
            return Err(BackendError::new("the hardware cannot take label 'refuse'")
                .at("/mgmt-test:settings/label"));
        }
        Ok(())
    }

    fn apply(&self, _tx: &Transaction<'_>) {
        self.log.lock().expect("log").push("apply");
    }

    fn abort(&self, _tx: &Transaction<'_>) {
        self.log.lock().expect("log").push("abort");
    }
}

fn settings(label: &str) -> String {
    format!("<settings xmlns=\"{MT}\"><label>{label}</label></settings>")
}

const VALIDATE_CANDIDATE: &str = "<validate><source><candidate/></source></validate>";

#[tokio::test]
async fn validate_finds_what_a_backend_s_prepare_would_refuse_and_applies_nothing() {
    let picky = Arc::new(Picky { log: Mutex::new(Vec::new()) });
    let fx = Fx::with_backends(vec![picky.clone()]);
    let mut c = fx.open("admin").await;
    picky.take();

    ok(&c.rpc("1", &edit("candidate", &settings("refuse"))).await);
    let e = expect_err(&c.rpc("2", VALIDATE_CANDIDATE).await, "operation-failed", "application");
    assert!(e.message.contains("cannot take label 'refuse'"), "{}", e.message);
    assert_eq!(e.path.as_deref(), Some("/mt:settings/mt:label"));
    assert_eq!(picky.take(), ["prepare"], "refused in prepare, nothing to abort or apply");
    // The commit refuses the same.
    expect_err(&c.rpc("3", "<commit/>").await, "operation-failed", "application");
    picky.take();

    // Inline configuration is checked the same way.
    let inline =
        format!("<validate><source><config>{}</config></source></validate>", settings("refuse"));
    expect_err(&c.rpc("4", &inline).await, "operation-failed", "application");
    picky.take();

    // What the backend takes validates; it prepared and aborted, nothing was applied.
    ok(&c.rpc("5", &edit("candidate", &settings("fine"))).await);
    ok(&c.rpc("6", VALIDATE_CANDIDATE).await);
    assert_eq!(picky.take(), ["prepare", "abort"]);
    assert!(!get_config(&mut c, "running", "").await.contains("fine"), "validate changed nothing");
    ok(&c.rpc("7", "<commit/>").await);
    assert_eq!(picky.take(), ["prepare", "apply"]);
}

#[tokio::test]
async fn validate_finds_a_candidate_that_would_lock_the_administrator_out() {
    let fx = Fx::new();
    let mut c = fx.open("admin").await;
    // What Ansible sends with default_operation replace and only the interfaces: it deletes
    // /nacm, and with it the administrator's access.
    let replace = format!(
        "<edit-config><target><candidate/></target><default-operation>replace</default-operation>\
         <config>{}</config></edit-config>",
        ifs(&iface("eth0", ""))
    );
    ok(&c.rpc("1", &replace).await);
    let e = expect_err(&c.rpc("2", VALIDATE_CANDIDATE).await, "operation-failed", "application");
    assert!(e.message.contains("full access away from user 'admin'"), "{}", e.message);
    expect_err(&c.rpc("3", "<commit/>").await, "operation-failed", "application");
    ok(&c.rpc("4", "<discard-changes/>").await);
    ok(&c.rpc("5", VALIDATE_CANDIDATE).await);
}
