#!/usr/bin/env bash
# Installs what pfcd needs (scripts/deps.sh), builds the daemon and starts it: with no settings
# file, the embedded lab on 127.0.0.1:830 with its state in ./pfcd-state. pfcd prints how to
# connect and 'pfcd ready' once it listens; Ctrl-C stops it.
#
#   scripts/run.sh                        the lab, as README's tour uses it
#   scripts/run.sh --listen 127.0.0.1:8830 --state-dir /tmp/pfcd    any pfcd option (pfcd --help)
#   PFCD_PROFILE=release scripts/run.sh   an optimised build (longer to build)
#
# The default build profile is `test` (cargo test's: optimised a little, shares its build with
# the test suite); the first build compiles libyang from source and takes several minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
if ! command -v cargo >/dev/null 2>&1; then
  echo "run: cargo is missing: install Rust (https://rustup.rs), then run this again" >&2
  exit 1
fi

profile=${PFCD_PROFILE:-test}
case "$profile" in
  release) dir=target/release ;;
  test | dev) dir=target/debug ;;
  *) echo "run: PFCD_PROFILE is test, dev or release, not '$profile'" >&2; exit 1 ;;
esac
echo "run: building pfcd (cargo build --profile $profile --bin pfcd)"
cargo build --profile "$profile" --bin pfcd
echo "run: starting $dir/pfcd $*"
exec "$dir/pfcd" "$@"
