"""Drives mgmt's NETCONF server with ncclient (an independent NETCONF/SSH implementation:
paramiko underneath) and prints what it saw as one JSON object on stdout.

usage: ncclient_driver.py HOST PORT USER (password PASSWORD | key KEYFILE)
"""

import json
import signal
import sys

from ncclient import manager
from ncclient.operations.rpc import RPCError

signal.alarm(60)  # never hang a test run

host, port, user, method, secret = sys.argv[1:6]
auth = {"password": secret} if method == "password" else {"key_filename": secret}

out = {}
# Not `with manager.connect(...)`: its __exit__ sends a second close-session.
m = manager.connect(
    host=host,
    port=int(port),
    username=user,
    hostkey_verify=False,
    allow_agent=False,
    look_for_keys=False,
    timeout=20,
    **auth,
)
out["session_id"] = m.session_id
out["server_capabilities"] = sorted(m.server_capabilities)
out["connected"] = m.connected
try:
    m.get()
    out["get"] = "ok"
except RPCError as e:
    out["get"] = {"tag": e.tag, "type": e.type, "severity": e.severity, "message": e.message}
reply = m.close_session()
out["close_session_ok"] = reply.ok
print(json.dumps(out))
