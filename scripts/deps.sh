#!/usr/bin/env bash
# Installs what building and testing pfcd needs on a fresh Debian machine. Idempotent: a second
# run only checks. Needs root for apt-get (CI and the dev machines run as root). It changes
# nothing else on the host: the tests isolate themselves from any lldpd/lldpad running there.
#
# Why each package:
#   cmake, libpcre2-dev, pkg-config  build libyang from the yang2 crate ("bundled" feature)
#   tshark                           independent decoder of our frames (interop tests)
#   python3-scapy                    independent frame builder (interop tests)
#   python3-ncclient                 the NETCONF client users run against us
#   python3-lxml                     an independent XML parser of our replies (strings test)
#   yangcli                          yuma123's NETCONF client (mgmt interop test)
#   libssl-dev                       OpenSSL headers for libssh2-sys (netconf-rs, mgmt interop test)
#   lldpd, lldpad                    LLDP/DCBX peers for interop tests
#   libyang2-tools                   yanglint, to check our YANG modules independently
#   python3-venv                     a virtual environment for pyang (PyPI only), which checks
#                                    our YANG modules (scripts/yang-check.sh)
#   iproute2, ethtool                veth pairs and network namespaces in tests
#   strace                           shows that a commit is synced to disk before its reply, and
#                                    what iproute2's dcb sends (DCB netlink interop test)
#   gcc, libc6-dev, linux-libc-dev   compile a C encoder against the kernel's <linux/dcbnl.h>
set -euo pipefail

packages=(cmake libpcre2-dev pkg-config tshark python3-scapy python3-ncclient python3-lxml
          lldpd lldpad libyang2-tools iproute2 ethtool libpcap-dev yangcli
          libssl-dev strace python3-venv gcc libc6-dev linux-libc-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing ${missing[*]} and not root: install them with apt-get" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  # Installing lldpd/lldpad must never leave a system-wide LLDP daemon talking on the host's
  # interfaces: forbid service starts for the duration of the install (policy-rc.d), then
  # restore whatever policy the machine had.
  policy=/usr/sbin/policy-rc.d
  saved=""
  if [ -e "$policy" ]; then saved=$(mktemp); cp -p "$policy" "$saved"; fi
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  restore_policy() {
    if [ -n "$saved" ]; then mv -f "$saved" "$policy"; else rm -f "$policy"; fi
  }
  trap restore_policy EXIT
  export DEBIAN_FRONTEND=noninteractive
  # tshark asks whether non-root users may capture; answer once, non-interactively.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  restore_policy
  trap - EXIT
fi

echo "deps: ok"
