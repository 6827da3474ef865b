#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing, so that `npm test` (which
# runs this first, as `pretest`) and CI work on a fresh machine:
#   - chromium: test/e2e/console.test.ts drives it through playwright-core, which downloads no browser;
#   - etcd-server: the state store's tests (shared/state-store/) start real etcd 3.4 members on free
#     loopback ports. Where systemd runs, the package also starts its own etcd on 2379; the tests do
#     not use it.
# Needs root or password-less sudo when something is missing; does nothing when all is there.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/etcd ] || missing+=(etcd-server)

if [ "${#missing[@]}" -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then as_root=(sudo -n); fi
  echo "test deps: installing Debian ${missing[*]}"
  "${as_root[@]}" apt-get update -q </dev/null
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
fi
echo "test deps: $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium: version unknown'); $(/usr/bin/etcd --version 2>/dev/null | head -n 1 || echo 'etcd: version unknown')"
