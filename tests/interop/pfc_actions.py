"""The PFC actions of a Bridge Port through ncclient (Debian's python3-ncclient), as a NETCONF
client other than ours sends them: YANG 1.1 <action> (RFC 7950 7.15.2) with manager.dispatch.

Usage: pfc_actions.py PORT ADMIN_PASSWORD OPERATOR_PASSWORD
The administrator switches lab2 to the measured method, measures it again, is refused on lab1
(whose measurement is not in force), clears lab3's counters (its discontinuity-time moves);
the operator, whom NACM denies exec on both actions, is refused with access-denied and changes
nothing. Prints one line per check; exits non-zero at the first failure.
"""
import sys
import time

from ncclient import manager
from ncclient.operations import RPCError
from ncclient.xml_ import to_ele

YANG_1 = "urn:ietf:params:xml:ns:yang:1"
IF = "urn:ietf:params:xml:ns:yang:ietf-interfaces"
BRIDGE = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-bridge"
PFC_BRIDGE = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc-bridge"
PFC = "urn:ieee:std:802.1Q:yang:ieee802-dot1q-pfc"
NACM = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm"

port, admin_password, operator_password = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def connect(user, password):
    return manager.connect(host="127.0.0.1", port=port, username=user, password=password,
                           hostkey_verify=False, allow_agent=False, look_for_keys=False,
                           timeout=60)


def pfc(name, inner):
    return ('<interfaces xmlns="%s"><interface><name>%s</name><bridge-port xmlns="%s">'
            '<pfc xmlns="%s">%s</pfc></bridge-port></interface></interfaces>'
            % (IF, name, BRIDGE, PFC_BRIDGE, inner))


def action(name, what):
    return to_ele('<action xmlns="%s">%s</action>' % (YANG_1, pfc(name, "<%s/>" % what)))


def discontinuity(m, name):
    data = m.get(("subtree", pfc(name, "<discontinuity-time/>"))).data_xml
    return data.split("<discontinuity-time>")[1].split("<")[0]


def refused(m, ele, tag, words):
    try:
        m.dispatch(ele)
    except RPCError as e:
        assert e.tag == tag, "%s: %s" % (tag, e.tag)
        assert words in (e.message or ""), "%r in %r" % (words, e.message)
        return e.message
    raise AssertionError("accepted, but %s was expected" % tag)


admin = connect("admin", admin_password)
# The operator: in group operators, denied exec on both actions by path.
rules = "".join(
    '<rule><name>no-%s</name><path xmlns:if="%s" xmlns:dot1q="%s" xmlns:pfc-bridge="%s">'
    "/if:interfaces/if:interface/dot1q:bridge-port/pfc-bridge:pfc/pfc-bridge:%s</path>"
    "<access-operations>exec</access-operations><action>deny</action></rule>"
    % (a, IF, BRIDGE, PFC_BRIDGE, a) for a in ("measure-headroom", "clear-pfc-counters"))
admin.edit_config(target="candidate", config=(
    '<config><nacm xmlns="%s"><groups><group><name>operators</name><user-name>operator'
    "</user-name></group></groups><rule-list><name>operators</name><group>operators</group>"
    "%s</rule-list></nacm>%s</config>"
    % (NACM, rules, pfc("lab2", '<headroom><method xmlns:pfc="%s">pfc:measurement</method>'
                                 "</headroom>" % PFC))))
admin.commit()
print("nacm and lab2's method committed")

# measure-headroom on lab2 (the measurement in force once the commit applied).
deadline = time.time() + 30
while True:
    try:
        reply = admin.dispatch(action("lab2", "measure-headroom"))
        break
    except RPCError as e:
        if time.time() > deadline:
            raise
        time.sleep(0.2)
assert reply.ok, reply.xml
print("admin: measure-headroom on lab2: ok")
message = refused(admin, action("lab1", "measure-headroom"), "operation-failed", "not in force")
print("admin: measure-headroom on lab1 refused: %s" % message)

before = discontinuity(admin, "lab3")
time.sleep(0.01)
assert admin.dispatch(action("lab3", "clear-pfc-counters")).ok
after = discontinuity(admin, "lab3")
assert after != before, "discontinuity-time moved: %s -> %s" % (before, after)
print("admin: clear-pfc-counters on lab3: ok, discontinuity-time %s -> %s" % (before, after))

operator = connect("operator", operator_password)
for what in ("measure-headroom", "clear-pfc-counters"):
    refused(operator, action("lab3", what), "access-denied", "")
    print("operator: %s refused: access-denied" % what)
assert discontinuity(admin, "lab3") == after, "the operator's refused clear changed nothing"
print("ok")
