//! Locks, commits and confirmed commits raced from many sessions at once (RFC 6241 §7.5,
//! §8.4). Each test repeats its race many times with the interleaving left to the scheduler
//! (two worker threads, sessions on their own tasks), and checks what a client can see.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::fixture::*;
use mgmt::backend::{Backend, BackendError, Transaction};
use netconf_proto::xml::NETCONF_BASE_NS;

fn label_edit(target: &str, label: &str) -> String {
    format!(
        "<edit-config><target><{target}/></target><config><settings xmlns=\"{MT}\"><label>{label}</label></settings></config></edit-config>"
    )
}

fn is_ok(reply: &netconf_proto::xml::Element) -> bool {
    reply.child(NETCONF_BASE_NS, "ok").is_some()
}

/// §7.5: while a session holds the lock on running, nobody else changes running. A session
/// edits running in a loop while another locks it, reads it twice and unlocks, thousands of
/// times: an edit that was in progress when the lock was granted would show as a difference
/// between the two reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_other_session_changes_running_while_it_is_locked() {
    const LOCKS: usize = 1500;
    let fx = Fx::new();
    let stop = Arc::new(AtomicBool::new(false));
    let mut editors = Vec::new();
    for e in 0..2 {
        let mut c = fx.open("admin").await;
        let stop = stop.clone();
        editors.push(tokio::spawn(async move {
            let mut applied = 0u32;
            let mut k = 0u64;
            while !stop.load(Ordering::Relaxed) {
                k += 1;
                let r = c.rpc("e", &label_edit("running", &format!("e{e}-{k}"))).await;
                if is_ok(&r) {
                    applied += 1;
                } else {
                    // The only refusal possible: the other session's lock.
                    assert_eq!(err(&r).tag, "in-use", "{}", r.to_xml());
                }
            }
            applied
        }));
    }
    let mut locker = fx.open("admin").await;
    let mut changed_under_lock = 0;
    for i in 0..LOCKS {
        let r = locker.rpc("l", "<lock><target><running/></target></lock>").await;
        assert!(is_ok(&r), "lock {i}: {}", r.to_xml());
        let first = get_config(&mut locker, "running", "").await;
        if i % 2 == 0 {
            tokio::task::yield_now().await;
        }
        let second = get_config(&mut locker, "running", "").await;
        if first != second {
            changed_under_lock += 1;
        }
        ok(&locker.rpc("u", "<unlock><target><running/></target></unlock>").await);
    }
    stop.store(true, Ordering::Relaxed);
    let mut applied = 0;
    for e in editors {
        applied += e.await.expect("no panic");
    }
    assert_eq!(changed_under_lock, 0, "running changed under a lock held by another session");
    assert!(applied > 0, "the editors ran alongside the locks");
}

/// §7.5: running cannot be locked by another session while a confirmed commit is pending;
/// the issuing session can lock it, and once the commit is confirmed anyone can.
#[tokio::test]
async fn running_cannot_be_locked_during_another_sessions_confirmed_commit() {
    let fx = Fx::new();
    let mut issuer = fx.open("admin").await;
    let mut other = fx.open("admin").await;
    ok(&issuer.rpc("1", &label_edit("candidate", "pending")).await);
    ok(&issuer
        .rpc("2", "<commit><confirmed/><confirm-timeout>60</confirm-timeout></commit>")
        .await);
    let e = expect_err(
        &other.rpc("3", "<lock><target><running/></target></lock>").await,
        "lock-denied",
        "protocol",
    );
    assert!(e.message.contains("confirmed commit"), "{}", e.message);
    assert!(e.info.to_xml().contains("session-id"), "the holder is named: {}", e.info.to_xml());
    // The candidate is not affected.
    ok(&other.rpc("4", "<lock><target><candidate/></target></lock>").await);
    ok(&other.rpc("5", "<unlock><target><candidate/></target></unlock>").await);
    // The issuer may lock running, and unlock it.
    ok(&issuer.rpc("6", "<lock><target><running/></target></lock>").await);
    ok(&issuer.rpc("7", "<unlock><target><running/></target></unlock>").await);
    ok(&issuer.rpc("8", "<commit/>").await);
    ok(&other.rpc("9", "<lock><target><running/></target></lock>").await);
}

/// A backend that holds the writer mutex for [`SLOW_PREPARE`] when an interface named
/// `slow…` is added: another session's change that spans a confirmed commit's time-out.
struct SlowInterfaces;

const SLOW_PREPARE: Duration = Duration::from_millis(400);

impl Backend for SlowInterfaces {
    fn name(&self) -> &str {
        "slow-interfaces"
    }

    fn modules(&self) -> Vec<String> {
        vec!["ietf-interfaces".into()]
    }

    fn prepare(&self, tx: &Transaction<'_>) -> Result<(), BackendError> {
        let slow = |root: &netconf_proto::xml::Element| {
            root.child(IF, "interfaces").is_some_and(|i| {
                i.elements()
                    .any(|e| e.child(IF, "name").is_some_and(|n| n.text().starts_with("slow")))
            })
        };
        if slow(tx.new) && !slow(tx.old) {
            std::thread::sleep(SLOW_PREPARE);
        }
        Ok(())
    }

    fn apply(&self, _tx: &Transaction<'_>) {}
}

/// §8.4: a follow-up confirmed commit that arrives as the time-out expires either extends
/// the pending one or, if the time-out came first, starts a new one: in both cases a
/// confirmed commit is pending after its `<ok/>`. Each round makes the two meet: another
/// session's slow change holds the writer mutex from before the time-out until after it,
/// the follow-up is sent just before the time-out and waits for the mutex, and the time-out
/// waits behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follow_up_commit_at_the_time_out_is_never_rolled_back_after_its_ok() {
    const SERVERS: usize = 3;
    const ROUNDS: usize = 4;
    let mut tasks = Vec::new();
    for s in 0..SERVERS {
        tasks.push(tokio::spawn(async move {
            let fx = Fx::with_backends(vec![Arc::new(SlowInterfaces)]);
            let mut issuer = fx.open("admin").await;
            let mut other = fx.open("admin").await;
            let mut lost = Vec::new();
            for round in 0..ROUNDS {
                ok(&issuer.rpc("1", &label_edit("candidate", &format!("s{s}r{round}"))).await);
                let confirmed = "<commit><confirmed/><confirm-timeout>1</confirm-timeout></commit>";
                ok(&issuer.rpc("2", confirmed).await);
                let armed = tokio::time::Instant::now();
                tokio::time::sleep_until(armed + Duration::from_millis(800)).await;
                let slow = format!("slow{round}");
                let slow_edit = tokio::spawn(async move {
                    let r = other.rpc("3", &edit("running", &ifs(&iface(&slow, "")))).await;
                    (other, r)
                });
                tokio::time::sleep_until(armed + Duration::from_millis(950)).await;
                let follow_up =
                    "<commit><confirmed/><confirm-timeout>60</confirm-timeout></commit>";
                ok(&issuer.rpc("4", follow_up).await);
                let (o, r) = slow_edit.await.expect("no panic");
                other = o;
                ok(&r);
                // Give a late time-out every chance to strike.
                tokio::time::sleep(Duration::from_millis(100)).await;
                let r = issuer.rpc("5", "<cancel-commit/>").await;
                if !is_ok(&r) {
                    lost.push((s, round, r.to_xml()));
                }
            }
            lost
        }));
    }
    let mut lost = Vec::new();
    for t in tasks {
        lost.extend(t.await.expect("no panic"));
    }
    assert_eq!(lost, vec![], "follow-up commits answered <ok/> and then rolled back");
}
