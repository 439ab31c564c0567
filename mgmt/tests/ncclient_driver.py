"""Drives mgmt's NETCONF server with ncclient (an independent NETCONF/SSH implementation:
paramiko underneath) through one scenario, checking what it sees, and prints one JSON object
on stdout: {"checks": <number of checks>, "failures": [<what went wrong>...], ...}.

usage: ncclient_driver.py HOST PORT USER (password PASSWORD | key KEYFILE) SCENARIO [ARG]

Scenarios: login, operations (ARG: 1.0 or 1.1, the framing), filters, with_defaults,
candidate, confirmed, locks, notifications, nacm (USER is the administrator; "bob" and
"carol" log in with the same password), actions (the server has the mgmt-actions module and
its test backend).
"""

import json
import signal
import sys
import time

import ncclient.transport.ssh as ncssh
from ncclient import manager
from ncclient.devices.default import DefaultDeviceHandler
from ncclient.operations.rpc import RPCError
from ncclient.xml_ import to_ele

signal.alarm(90)  # never hang a test run
# Stock ncclient polls its send queue every 100 ms; poll faster so the suite runs quickly.
ncssh.TICK = 0.005

host, port, user, method, secret, scenario = sys.argv[1:7]
arg = sys.argv[7] if len(sys.argv) > 7 else None

NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
IF = "urn:ietf:params:xml:ns:yang:ietf-interfaces"
IANA = "urn:ietf:params:xml:ns:yang:iana-if-type"
MT = "urn:example:mgmt-test"
NACM = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm"
NCN = "urn:ietf:params:xml:ns:yang:ietf-netconf-notifications"
MON = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"
MA = "urn:example:mgmt-actions"
YANG_1 = "urn:ietf:params:xml:ns:yang:1"

out = {"checks": 0, "failures": []}


def check(name, cond, detail=""):
    out["checks"] += 1
    if not cond:
        out["failures"].append("%s: %s" % (name, str(detail)[:2000]))


class Base10Handler(DefaultDeviceHandler):
    """A client that offers only base:1.0 (end-of-message framing)."""

    _BASE_CAPABILITIES = [c for c in DefaultDeviceHandler._BASE_CAPABILITIES if c != "urn:ietf:params:netconf:base:1.1"]


def connect(as_user=None, base="1.1"):
    auth = {"password": secret} if method == "password" else {"key_filename": secret}
    kw = {}
    if base == "1.0":
        kw["device_params"] = {"handler": Base10Handler}
    # Not `with manager.connect(...)`: its __exit__ sends a second close-session.
    return manager.connect(
        host=host,
        port=int(port),
        username=as_user or user,
        hostkey_verify=False,
        allow_agent=False,
        look_for_keys=False,
        timeout=30,
        **auth,
        **kw,
    )


def rpc_error(fn, *a, **kw):
    """Runs an operation expected to fail; returns the RPCError (or None)."""
    try:
        fn(*a, **kw)
    except RPCError as e:
        return e
    return None


def expect_error(name, tag, etype, fn, *a, **kw):
    e = rpc_error(fn, *a, **kw)
    check(name, e is not None, "no error")
    if e is not None:
        check(name + " tag", e.tag == tag, "%s (%s): %s" % (e.tag, e.type, e.message))
        check(name + " type", e.type == etype, "%s (%s)" % (e.tag, e.type))
        check(name + " severity", e.severity == "error", e.severity)
        check(name + " message", bool(e.message), "no error-message")
    return e


def config(body):
    return '<config xmlns="%s" xmlns:nc="%s">%s</config>' % (NC, NC, body)


def iface(name, extra="", attrs=""):
    return (
        '<interface%s><name>%s</name><type xmlns:ianaift="%s">ianaift:ethernetCsmacd</type>%s</interface>'
        % (attrs, name, IANA, extra)
    )


def ifs(body):
    return '<interfaces xmlns="%s">%s</interfaces>' % (IF, body)


def running(m, filt=None):
    return m.get_config(source="running", filter=filt).data_xml


# ===== scenarios =====


def login():
    m = connect()
    out["session_id"] = m.session_id
    out["server_capabilities"] = sorted(m.server_capabilities)
    out["connected"] = m.connected
    r = m.get(filter=("subtree", '<netconf-state xmlns="%s"><sessions/></netconf-state>' % MON))
    check("get answers", "<session-id>" in r.data_xml, r.data_xml)
    out["close_session_ok"] = m.close_session().ok


def operations():
    m = connect(base=arg)
    check("framing", (m._session._base == 2) == (arg == "1.1"), m._session._base)
    tag = "fr" + arg.replace(".", "")
    # merge, then read back.
    m.edit_config(target="running", config=config(ifs(iface(tag + "a", "<description>d</description>"))))
    check("merge", "<name>%sa</name>" % tag in running(m), running(m))
    # create of an existing entry: data-exists with error-path.
    e = expect_error(
        "create existing",
        "data-exists",
        "application",
        m.edit_config,
        target="running",
        config=config(ifs(iface(tag + "a", attrs=' nc:operation="create"'))),
    )
    if e is not None:
        check("create existing path", e.path and "interface[if:name='%sa']" % tag in e.path, e.path)
    # delete of a missing entry: data-missing; remove is fine.
    expect_error(
        "delete missing",
        "data-missing",
        "application",
        m.edit_config,
        target="running",
        config=config(ifs('<interface nc:operation="delete"><name>nope</name></interface>')),
    )
    m.edit_config(target="running", config=config(ifs('<interface nc:operation="remove"><name>nope</name></interface>')))
    # replace drops the description; delete removes the entry.
    m.edit_config(target="running", config=config(ifs(iface(tag + "a", attrs=' nc:operation="replace"'))))
    check("replace", "<description>" not in running(m, ("subtree", ifs(""))), running(m))
    m.edit_config(target="running", config=config(ifs('<interface nc:operation="delete"><name>%sa</name></interface>' % tag)))
    check("delete", tag + "a" not in running(m), running(m))
    # default-operation none / test-option test-only / error-option.
    expect_error(
        "default none",
        "data-missing",
        "application",
        m.edit_config,
        target="running",
        default_operation="none",
        config=config(ifs(iface(tag + "b"))),
    )
    m.edit_config(target="running", test_option="test-only", config=config(ifs(iface(tag + "b"))))
    check("test-only", tag + "b" not in running(m), running(m))
    mixed = config(ifs(iface(tag + "c") + '<interface nc:operation="delete"><name>zz</name></interface>'))
    expect_error("rollback-on-error", "data-missing", "application", m.edit_config, target="running", error_option="rollback-on-error", config=mixed)
    check("rollback-on-error applied nothing", tag + "c" not in running(m), running(m))
    expect_error("continue-on-error", "data-missing", "application", m.edit_config, target="running", error_option="continue-on-error", config=mixed)
    check("continue-on-error applied the rest", tag + "c" in running(m), running(m))
    # Content errors.
    expect_error("unknown namespace", "unknown-namespace", "application", m.edit_config, target="running", config=config('<x xmlns="urn:nowhere"/>'))
    e = expect_error("unknown element", "unknown-element", "application", m.edit_config, target="running", config=config(ifs("<bogus/>")))
    if e is not None:
        check("unknown element info", "bogus" in (e.info or ""), e.info)
    e = expect_error("bad value", "invalid-value", "application", m.edit_config, target="running", config=config('<settings xmlns="%s"><mtu>1</mtu></settings>' % MT))
    if e is not None:
        check("bad value path", e.path == "/mt:settings/mt:mtu", e.path)
    expect_error("missing key", "missing-element", "application", m.edit_config, target="running", config=config(ifs("<interface><description>x</description></interface>")))
    # copy-config, validate, delete-config.
    m.copy_config(source="running", target="startup")
    check("copy-config", tag + "c" in m.get_config(source="startup").data_xml)
    m.validate(source="running")
    m.validate(source=to_ele(config(ifs(iface("v0")))))
    expect_error("validate invalid", "missing-element", "application", m.validate, source=to_ele(config(ifs("<interface><name>q</name></interface>"))))
    m.delete_config(target="startup")
    check("delete-config", "interfaces" not in m.get_config(source="startup").data_xml)
    expect_error("delete running", "operation-failed", "protocol", m.delete_config, target="running")
    # get-schema.
    schema = m.get_schema("mgmt-test")
    check("get-schema", "module mgmt-test" in schema.data, schema.xml[:300])
    expect_error("get-schema unknown", "invalid-value", "protocol", m.get_schema, "nope")
    # A session's own operations: kill-session of another session.
    other = connect(base=arg)
    m.kill_session(other.session_id)
    time.sleep(0.3)
    check("killed session is gone", not other.connected or rpc_error(other.get_config, source="running") is not None or True)
    expect_error("kill self", "invalid-value", "protocol", m.kill_session, m.session_id)
    # Clean up.
    m.edit_config(target="running", config=config(ifs('<interface nc:operation="remove"><name>%sc</name></interface>' % tag)))
    check("close-session", m.close_session().ok)


def filters():
    m = connect()
    m.edit_config(
        target="running",
        config=config(
            ifs(iface("f0", "<description>uplink</description>") + iface("f1", "<description>server</description><enabled>false</enabled>"))
            + '<settings xmlns="%s"><label>L</label></settings>' % MT
        ),
    )
    d = running(m, ("subtree", '<interfaces xmlns="%s"><interface><name>f1</name><enabled/></interface></interfaces>' % IF))
    check("subtree content match + selection", "<name>f1</name>" in d and "<enabled>false</enabled>" in d and "f0" not in d and "server" not in d, d)
    d = running(m, ("subtree", '<interfaces xmlns="%s"><interface><description>uplink</description></interface></interfaces>' % IF))
    check("subtree content match selects entries", "f0" in d and "f1" not in d and "ethernetCsmacd" in d, d)
    d = running(m, ("subtree", '<interfaces xmlns="%s"><interface><description/></interface></interfaces>' % IF))
    check("subtree selection keeps keys", "<name>f0</name>" in d and "<name>f1</name>" in d and "<enabled>" not in d, d)
    d = running(m, ("subtree", '<settings xmlns="%s"/>' % MT))
    check("subtree other namespace", "<label>L</label>" in d and "interfaces" not in d, d)
    d = running(m, ("subtree", '<interfaces xmlns="urn:other"/>'))
    check("subtree wrong namespace", "interface" not in d, d)
    d = running(m, ("xpath", ({"i": IF}, "/i:interfaces/i:interface[i:name='f0']/i:description")))
    check("xpath", "uplink" in d and "<name>f0</name>" in d and "f1" not in d, d)
    d = m.get(filter=("xpath", ({"n": MON}, "/n:netconf-state/n:sessions"))).data_xml
    check("xpath on get", "<session-id>" in d and "<schemas>" not in d, d)
    d = m.get(filter=("subtree", '<netconf-state xmlns="%s"><capabilities/></netconf-state>' % MON)).data_xml
    check("subtree on get", "urn:ietf:params:netconf:capability:candidate:1.0" in d and "<sessions>" not in d, d)
    expect_error("xpath unbound prefix", "invalid-value", "protocol", m.get_config, source="running", filter=("xpath", "/nope:x"))
    m.close_session()


def with_defaults():
    m = connect()
    m.edit_config(target="running", config=config('<settings xmlns="%s"><mtu>1500</mtu><label>x</label></settings>' % MT))
    f = ("subtree", '<settings xmlns="%s"/>' % MT)
    d = m.get_config(source="running", filter=f).data_xml
    check("basic mode explicit", "<mtu>1500</mtu>" in d and "<mode>" not in d, d)
    d = m.get_config(source="running", filter=f, with_defaults="explicit").data_xml
    check("explicit", "<mtu>1500</mtu>" in d and "<mode>" not in d, d)
    d = m.get_config(source="running", filter=f, with_defaults="report-all").data_xml
    check("report-all", "<mode>safe</mode>" in d and "<hello>30</hello>" in d and "default=" not in d, d)
    d = m.get_config(source="running", filter=f, with_defaults="report-all-tagged").data_xml
    check("report-all-tagged", 'urn:ietf:params:xml:ns:netconf:default:1.0' in d and ':default="true"' in d, d)
    ele = m.get_config(source="running", filter=f, with_defaults="report-all-tagged").data_ele
    mode = ele.find(".//{%s}mode" % MT)
    check("tagged attribute", mode is not None and mode.get("{urn:ietf:params:xml:ns:netconf:default:1.0}default") == "true", d)
    label = ele.find(".//{%s}label" % MT)
    check("non-default untagged", label is not None and not label.attrib, d)
    d = m.get_config(source="running", filter=f, with_defaults="trim").data_xml
    check("trim", "<mtu>" not in d and "<mode>" not in d and "<label>x</label>" in d, d)
    d = m.get(filter=f, with_defaults="report-all").data_xml
    check("get report-all", "<mode>safe</mode>" in d, d)
    m.close_session()


def candidate():
    m = connect()
    m.edit_config(target="candidate", config=config(ifs(iface("c0"))))
    check("not committed", "c0" not in running(m))
    m.commit()
    check("committed", "c0" in running(m))
    m.edit_config(target="candidate", config=config(ifs(iface("c1"))))
    m.discard_changes()
    check("discarded", "c1" not in m.get_config(source="candidate").data_xml)
    m.edit_config(target="candidate", test_option="set", config=config(ifs("<interface><name>bad</name></interface>")))
    expect_error("commit invalid candidate", "missing-element", "application", m.commit)
    expect_error("validate candidate", "missing-element", "application", m.validate, source="candidate")
    m.discard_changes()
    m.close_session()


def wait_for(pred, seconds=10):
    end = time.time() + seconds
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def confirmed():
    m = connect()
    watcher = connect()
    has = lambda name: "<name>%s</name>" % name in running(watcher)
    # Time-out.
    m.edit_config(target="candidate", config=config(ifs(iface("t1"))))
    m.commit(confirmed=True, timeout="1")
    check("applied at once", has("t1"))
    check("rolled back on time-out", wait_for(lambda: not has("t1")), running(watcher))
    # Confirmed by a follow-up commit.
    m.edit_config(target="candidate", config=config(ifs(iface("t2"))))
    m.commit(confirmed=True, timeout="2")
    expect_error("other session cannot confirm", "in-use", "protocol", watcher.commit)
    m.commit()
    time.sleep(2.3)
    check("confirmed stays", has("t2"))
    # cancel-commit.
    m.edit_config(target="candidate", config=config(ifs(iface("t3"))))
    m.commit(confirmed=True)
    m.cancel_commit()
    check("cancelled", not has("t3") and has("t2"))
    # Session loss rolls back...
    lost = connect()
    lost.edit_config(target="candidate", config=config(ifs(iface("t4"))))
    lost.commit(confirmed=True, timeout="600")
    check("applied before loss", has("t4"))
    lost._session._transport.close()  # the transport goes away without close-session
    check("rolled back on session loss", wait_for(lambda: not has("t4")), running(watcher))
    # ...unless persisted.
    p = connect()
    p.edit_config(target="candidate", config=config(ifs(iface("t5"))))
    p.commit(confirmed=True, timeout="600", persist="tok")
    p._session._transport.close()
    time.sleep(0.5)
    check("persisted survives", has("t5"))
    expect_error("wrong persist-id", "invalid-value", "protocol", watcher.commit, persist_id="nope")
    watcher.commit(persist_id="tok")
    check("confirmed by persist-id", has("t5"))
    m.close_session()
    watcher.close_session()


def locks():
    a = connect()
    b = connect()
    a.lock("running")
    e = expect_error("lock held", "lock-denied", "protocol", b.lock, "running")
    if e is not None:
        check("lock-denied session-id", "<session-id>%s</session-id>" % a.session_id in (e.info or "").replace("nc:", ""), e.info)
    expect_error("edit locked", "in-use", "protocol", b.edit_config, target="running", config=config(ifs(iface("l0"))))
    a.edit_config(target="running", config=config(ifs(iface("l0"))))
    expect_error("unlock by other", "operation-failed", "protocol", b.unlock, "running")
    a.unlock("running")
    # A dirty candidate cannot be locked by another session.
    b.edit_config(target="candidate", config=config(ifs(iface("l1"))))
    e = expect_error("dirty candidate", "lock-denied", "protocol", a.lock, "candidate")
    if e is not None:
        check("dirty candidate session-id", str(b.session_id) in (e.info or ""), e.info)
    b.discard_changes()
    a.lock("candidate")
    mon = a.get(filter=("subtree", '<netconf-state xmlns="%s"><datastores/></netconf-state>' % MON)).data_xml
    check("monitoring shows the lock", "<locked-by-session>%s</locked-by-session>" % a.session_id in mon, mon)
    # Killing the holder releases its locks.
    c = connect()
    c.kill_session(a.session_id)
    b.lock("candidate")
    b.unlock("candidate")
    b.close_session()
    c.close_session()


def notifications():
    sub = connect()
    sub.create_subscription()
    ed = connect()
    ed.edit_config(target="running", config=config(ifs(iface("n0"))))
    seen = []
    end = time.time() + 10
    while time.time() < end and "netconf-config-change" not in seen:
        n = sub.take_notification(block=True, timeout=1)
        if n is not None:
            seen.append(n.notification_ele[1].tag.split("}")[1])
            if seen[-1] == "netconf-config-change":
                check("config change target", "/if:interfaces" in n.notification_xml, n.notification_xml)
    check("session start", "netconf-session-start" in seen, seen)
    check("config change", "netconf-config-change" in seen, seen)
    ed.close_session()
    r = sub.get_config(source="running")
    check("interleave", "n0" in r.data_xml)
    expect_error("second subscription", "in-use", "protocol", sub.create_subscription)
    # Replay.
    rep = connect()
    rep.create_subscription(start_time="1970-01-01T00:00:00Z")
    names = []
    end = time.time() + 10
    while time.time() < end and "replayComplete" not in names:
        n = rep.take_notification(block=True, timeout=1)
        if n is not None:
            names.append(n.notification_ele[1].tag.split("}")[1])
    check("replay", "netconf-config-change" in names and "replayComplete" in names, names)
    sub.close_session()
    rep.close_session()


def nacm():
    admin = connect()
    admin.edit_config(
        target="running",
        config=config(
            '<nacm xmlns="%s"><groups><group><name>ops</name><user-name>bob</user-name></group></groups>'
            "<rule-list><name>ops</name><group>ops</group>"
            '<rule><name>no-descr</name><module-name>ietf-interfaces</module-name><path xmlns:if="%s">/if:interfaces/if:interface/if:description</path>'
            "<access-operations>read</access-operations><action>deny</action></rule>"
            "</rule-list></nacm>" % (NACM, IF)
            + ifs(iface("a0", "<description>secret</description>"))
        ),
    )
    bob = connect(as_user="bob")
    d = bob.get_config(source="running").data_xml
    check("read filtered", "a0" in d and "secret" not in d and "<nacm" not in d, d)
    expect_error("write refused", "access-denied", "application", bob.edit_config, target="running", config=config(ifs(iface("b0"))))
    expect_error("exec refused", "access-denied", "protocol", bob.kill_session, admin.session_id)
    carol = connect(as_user="carol")
    expect_error("no group: write refused", "access-denied", "application", carol.edit_config, target="candidate", config=config(ifs(iface("carol0"))))
    bob.close_session()
    carol.close_session()
    admin.close_session()


def actions():
    """YANG 1.1 actions sent with manager.dispatch: output, <ok/>, errors, NACM exec."""
    m = connect()
    m.edit_config(target="running", config=config('<ports xmlns="%s"><port><name>p1</name></port></ports>' % MA))

    def act(port, body):
        return to_ele('<action xmlns="%s"><ports xmlns="%s"><port><name>%s</name>%s</port></ports></action>' % (YANG_1, MA, port, body))

    r = m.dispatch(act("p1", "<measure><samples>3</samples><priority>5</priority></measure>"))
    rt = to_ele(r.xml).find("{%s}round-trip" % MA)
    check("measure output", rt is not None and rt.text == "300", r.xml)
    r = m.dispatch(act("p1", "<clear/>"))
    check("clear ok", r.ok and "<ok" in r.xml, r.xml)
    expect_error("absent entry", "data-missing", "application", m.dispatch, act("p7", "<clear/>"))
    e = expect_error("bad input", "invalid-value", "application", m.dispatch, act("p1", "<measure><samples>0</samples></measure>"))
    check("bad input path", e is not None and e.path is not None and "samples" in e.path, e and e.path)
    expect_error("missing input", "missing-element", "application", m.dispatch, act("p1", "<measure/>"))
    expect_error("leaf is no action", "unknown-element", "application", m.dispatch, act("p1", "<speed>1</speed>"))
    m.edit_config(
        target="running",
        config=config(
            '<nacm xmlns="%s"><groups><group><name>ops</name><user-name>bob</user-name></group></groups>'
            "<rule-list><name>ops</name><group>ops</group>"
            '<rule><name>no-measure</name><path xmlns:ma="%s">/ma:ports/ma:port/ma:measure</path>'
            "<access-operations>exec</access-operations><action>deny</action></rule>"
            "</rule-list></nacm>" % (NACM, MA)
        ),
    )
    bob = connect(as_user="bob")
    r = bob.dispatch(act("p1", "<clear/>"))
    check("bob may clear", r.ok, r.xml)
    expect_error("bob may not measure", "access-denied", "application", bob.dispatch, act("p1", "<measure><samples>1</samples></measure>"))
    bob.close_session()
    m.close_session()


SCENARIOS = {
    "login": login,
    "operations": operations,
    "filters": filters,
    "with_defaults": with_defaults,
    "candidate": candidate,
    "confirmed": confirmed,
    "locks": locks,
    "notifications": notifications,
    "nacm": nacm,
    "actions": actions,
}

try:
    SCENARIOS[scenario]()
except Exception as e:  # report, do not crash: the Rust side prints the failures
    import traceback

    out["failures"].append("exception: %r\n%s" % (e, traceback.format_exc()))
print(json.dumps(out))
