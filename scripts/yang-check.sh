#!/usr/bin/env bash
# Checks pfcd's YANG modules (yang/*.yang) with two independent tools, and fails on any error or
# warning:
#   - yanglint (Debian libyang2-tools): every module compiles against the vendored standard
#     modules in yang/standard/; the example data in yang/tests/valid/ validates, and every file
#     in yang/tests/invalid/ is refused with the message its first line expects;
#   - pyang (PyPI, pinned, in a virtual environment this script makes): `pyang --ieee` on the
#     IEEE-namespace modules (ieee802-*), `pyang --lint` on pfcd's own (pfcd-*), which must also
#     be named pfcd-* and live under urn:uuid: with the name-based UUID of their name (see
#     yang/README.md: pfcd's namespaces).
#   - yangcli (Debian, yuma123) parses them, as it will when it fetches them by get-schema.
# The venv lives in $PFCD_YANG_VENV (default target/yang-venv) and is reused while its pyang is
# the pinned version. Usage: scripts/yang-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PYANG_VERSION=2.6.1
LXML_VERSION=6.1.3
venv=${PFCD_YANG_VENV:-target/yang-venv}
std=yang/standard
failures=0

fail() {
  echo "yang-check: $*" >&2
  failures=$((failures + 1))
}

# Runs a command; any output on stdout or stderr counts as a warning or error.
quiet() {
  local out
  if ! out=$("$@" 2>&1); then
    fail "failed: $*"$'\n'"$out"
  elif [ -n "$out" ]; then
    fail "warnings from: $*"$'\n'"$out"
  fi
}

command -v yanglint >/dev/null || { echo "yang-check: yanglint missing (apt-get install libyang2-tools)" >&2; exit 1; }

ieee=()
own=()
for f in yang/*.yang; do
  case "$(basename "$f")" in
    ieee802-*) ieee+=("$f") ;;
    pfcd-*) own+=("$f") ;;
    *) fail "$f: a module of ours is either ieee802-* (the IEEE proposal) or pfcd-* (pfcd's own)" ;;
  esac
done
# The identities of ieee802-dot1q-pfc are used as values (headroom/method's default), which
# libyang accepts only from an implemented module: it is loaded first, as the daemon must load it.
base=yang/ieee802-dot1q-pfc.yang
ordered=("$base")
for f in "${ieee[@]}" "${own[@]}"; do [ "$f" = "$base" ] || ordered+=("$f"); done

echo "yang-check: yanglint $(yanglint --version | awk '{print $2}')"
for f in "${ordered[@]}"; do
  if [ "$f" = "$base" ]; then quiet yanglint -p "$std" -p yang "$f"; else quiet yanglint -p "$std" -p yang "$base" "$f"; fi
done
quiet yanglint -p "$std" -p yang "${ordered[@]}"

# Example data: interface types come from iana-if-type, which must then be implemented too.
# The examples are of the proposed model: pfcd-deviations (what pfcd leaves out) is not applied.
data_modules=("$std/iana-if-type@2014-05-08.yang")
for f in "${ordered[@]}"; do [ "$f" = yang/pfcd-deviations.yang ] || data_modules+=("$f"); done
quiet yanglint -p "$std" -t config "${data_modules[@]}" yang/tests/valid/pfc-config.xml
# An end station: the same parameters on an interface (ieee802-dot1q-pfc-if).
quiet yanglint -p "$std" -t config "${data_modules[@]}" yang/tests/valid/pfc-if-config.xml
quiet yanglint -p "$std" -t data "${data_modules[@]}" yang/tests/valid/pfc-state.xml
for f in yang/tests/invalid/*.xml; do
  expect=$(sed -n '1s/^<!-- expect: \(.*\) -->$/\1/p' "$f")
  [ -n "$expect" ] || { fail "$f: the first line must be <!-- expect: MESSAGE -->"; continue; }
  if out=$(yanglint -p "$std" -t config "${data_modules[@]}" "$f" 2>&1); then
    fail "$f was accepted; it must be refused with: $expect"
  elif ! grep -qF -- "$expect" <<<"$out"; then
    fail "$f was refused, but not with '$expect':"$'\n'"$out"
  fi
done

# yangcli (yuma123, the NETCONF client users run) must parse them too: it loads a server's
# modules by get-schema. It also warns about status mismatches inside the published
# ietf-routing and ieee802-dot1q-types, which are not ours, so only diagnostics that name one of
# our files count (each names "FILE.yang:LINE.COL:").
# yangcli 2.13 cannot parse a notification defined inside a data node (YANG 1.1, RFC 7950
# 7.16.2): the modules holding one are kept apart from the data modules so that it loses only
# them (yang/README.md), and are left out here.
nested_notifications=(ieee802-dot1q-pfc-bridge-notifications)
if command -v yangcli >/dev/null; then
  ycli_home=$(mktemp -d)
  ycli_args=(--modpath="$PWD/yang:$PWD/$std" --batch-mode --run-command=quit --log-level=warn)
  for f in "${ordered[@]}"; do
    m=$(basename "$f" .yang)
    [[ " ${nested_notifications[*]} " == *" $m "* ]] || ycli_args+=(--module="$m")
  done
  if ! out=$(HOME=$ycli_home yangcli "${ycli_args[@]}" </dev/null 2>&1); then
    fail "yangcli failed:"$'\n'"$out"
  fi
  ours=$(printf '%s\n' "${ordered[@]}" | xargs -n1 basename | sed 's/[.]/[.]/g' | paste -sd'|')
  if grep -E "(^|[[:space:]/])($ours):[0-9]" <<<"$out"; then
    fail "yangcli reports the diagnostics above in our modules"
  fi
  rm -rf "$ycli_home"
fi

# pyang in a virtual environment (not packaged in Debian).
if [ "$("$venv/bin/pyang" --version 2>/dev/null)" != "pyang $PYANG_VERSION" ]; then
  echo "yang-check: installing pyang $PYANG_VERSION into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || { echo "yang-check: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "pyang==$PYANG_VERSION" "lxml==$LXML_VERSION"
fi
pyang=("$venv/bin/pyang" -Werror -p "$std" -p yang)
echo "yang-check: $("${pyang[0]}" --version)"
for f in "${ieee[@]}"; do
  quiet "${pyang[@]}" --ieee "$f"
done
for f in "${own[@]}"; do
  quiet "${pyang[@]}" --lint --lint-ensure-hyphenated-names --lint-modulename-prefix pfcd "$f"
done
# pfcd's own namespaces follow from the module's name (yang/README.md), so a new module's cannot
# be made up or copied from another's (pyang's --lint-namespace-prefix would want the name itself
# after the prefix, which a UUID is not).
for f in "${own[@]}"; do
  want="urn:uuid:$(python3 -c 'import sys, uuid; print(uuid.uuid5(uuid.UUID("b1846b43-0969-452c-9366-01a6f5ce776d"), sys.argv[1]))' "$(basename "$f" .yang)")"
  grep -q "^  namespace \"$want\";$" "$f" || fail "$f: its namespace must be \"$want\" (yang/README.md)"
done

if ((failures)); then
  echo "yang-check: $failures problem(s)" >&2
  exit 1
fi
echo "yang-check: ok (${#ieee[@]} IEEE-namespace and ${#own[@]} pfcd modules, $(ls yang/tests/invalid/*.xml | wc -l) refusals)"
