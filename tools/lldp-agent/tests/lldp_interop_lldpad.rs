//! lldpad (open-lldp) decodes pfc-lldp's PFC Configuration TLV as its own DCBX implementation
//! reads it: `lldptool -t -n -i <if> -V PFC` shows our Willing, MBC, PFC cap and enabled
//! priorities, for the 7-octet P802.1Qdt form and the 6-octet IEEE 802.1Q-2018 form alike.
//!
//! lldpad cannot transmit DCBX on a veth (no DCB netlink support), but it receives: its port is
//! set to `adminStatus=rx`. It runs with its own settings file (`-f`), no PID file (`-p`), in a
//! network namespace of its own and, through `unshare --ipc --mount`, with its own SysV IPC and
//! its own /dev/shm, where it keeps state (`lldpad.state`, with the pid it checks for "already
//! running"), so it never meets another lldpad, the host's included. lldptool reaches it
//! through an abstract socket, which is per network namespace.
//!
//! lldptool labels MBC "MACsec Bypass Capable"; the bit means the opposite (1 = cannot bypass,
//! SPEC §2.4). We check that lldptool shows the bit we sent, whatever its label says.

use std::time::Duration;

use test_support::netns::{can_run, veth, wait_for, Daemon, Netns};
use test_support::pfc_lldp::Agent;
use test_support::{external_tool, Scratch};

/// The fields of the first PFC TLV block lldptool prints.
#[derive(Debug, PartialEq, Eq)]
struct Shown {
    willing: String,
    mbc: String,
    cap: String,
    enabled: String,
}

fn parse(out: &str) -> Option<Shown> {
    let field = |label: &str| {
        out.lines().find_map(|l| l.trim().strip_prefix(label).map(|v| v.trim().to_string()))
    };
    Some(Shown {
        willing: field("Willing:")?,
        mbc: field("MACsec Bypass Capable:")?,
        cap: field("PFC capable traffic classes:")?,
        enabled: field("PFC enabled:")?,
    })
}

fn settings(willing: bool, mbc: bool, cap: u8, enable: &[u8], length: u8) -> String {
    format!(
        "[pfc]\nwilling = {willing}\nmbc = {mbc}\npfc-cap = {cap}\nenable = {enable:?}\n\
         tlv-length = {length}\nmacsec-capable = true\nrtm-hdrm = true\n\
         [lldp]\nmessage-tx-interval = 1\n[[port]]\nname = \"lldpb\"\n"
    )
}

#[test]
fn lldpad_reads_our_pfc_tlv_in_both_lengths() {
    if !can_run("lldpad_reads_our_pfc_tlv_in_both_lengths") {
        return;
    }
    let Some(lldpad) = external_tool("/usr/sbin/lldpad", "lldpad") else { return };
    let Some(lldptool) = external_tool("/usr/sbin/lldptool", "lldpad") else { return };
    let Some(unshare) = external_tool("/usr/bin/unshare", "util-linux") else { return };
    let scratch = Scratch::new("lldpad");
    let a = Netns::new("lpa");
    let b = Netns::new("lpb");
    veth(&a, "lldpa", "02:00:00:00:00:0a", &b, "lldpb", "02:00:00:00:00:0b");
    a.link(&["set", "lldpa", "up"]);
    b.link(&["set", "lldpb", "up"]);

    let conf = scratch.path("lldpad.conf");
    // lldpad keeps its state, with the pid it takes as "already running", in
    // /dev/shm/lldpad.state (POSIX shared memory: a file, which a new IPC namespace does not
    // hide). A mount namespace with a /dev/shm of its own keeps it from any other lldpad's.
    let mut cmd = a.command(&unshare);
    cmd.args(["--ipc", "--mount", "--propagation", "private", "/bin/sh", "-c"])
        .arg("mount -t tmpfs -o mode=1777 tmpfs /dev/shm && exec \"$0\" \"$@\"")
        .arg(&lldpad)
        .arg("-f")
        .arg(&conf)
        .args(["-p", "-t"]);
    let _lldpad = Daemon::spawn("lldpad", cmd, &scratch.path("lldpad.log"));
    let tool = |args: &[&str]| a.command(&lldptool).args(args).output().ok();
    wait_for(Duration::from_secs(10), "lldpad to take adminStatus=rx", || {
        tool(&["-L", "-i", "lldpa", "adminStatus=rx"]).filter(|o| o.status.success())
    });

    let show = || {
        tool(&["-t", "-n", "-i", "lldpa", "-V", "PFC"])
            .and_then(|o| parse(&String::from_utf8_lossy(&o.stdout)))
    };
    let agent = Agent::start(&b, &scratch, "ours", &settings(true, true, 4, &[1, 3], 7));
    let shown = wait_for(Duration::from_secs(5), "lldptool to show our 7-octet PFC TLV", || {
        show().filter(|s| s.enabled == "1 3")
    });
    assert_eq!(
        shown,
        Shown { willing: "yes".into(), mbc: "yes".into(), cap: "4".into(), enabled: "1 3".into() }
    );

    agent.reconfigure(&settings(false, false, 8, &[0, 7], 6));
    let shown = wait_for(Duration::from_secs(5), "lldptool to show our 6-octet PFC TLV", || {
        show().filter(|s| s.enabled == "0 7")
    });
    assert_eq!(
        shown,
        Shown { willing: "no".into(), mbc: "no".into(), cap: "8".into(), enabled: "0 7".into() }
    );
    // The TLV pfc-lldp sent was the legacy one.
    let ours = agent.port("lldpb").expect("state");
    assert_eq!(ours["dcbx"]["admin"]["pfc"]["tlv-length"], 6);
    assert_eq!(
        ours["dcbx"]["admin"]["pfc"]["macsec-capable"], false,
        "the legacy form cannot carry it"
    );
}
