#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing, so that `npm test` (which
# runs this first, as `pretest`) and CI work on a fresh machine:
#   - chromium: test/e2e/console.test.ts drives it through playwright-core, which downloads no browser;
#   - etcd-server: the state store's tests (shared/state-store/) start real etcd 3.4 members on free
#     loopback ports. Where systemd runs, the package also starts its own etcd on 2379; the tests do
#     not use it;
#   - python3-elasticsearch: test/e2e/client-matrix.test.ts runs Python's elasticsearch client
#     (bookworm ships 7.17, which accepts an 8.x server that sends X-Elastic-Product) through
#     /usr/bin/python3;
#   - libjemalloc2: the image preloads jemalloc (Dockerfile `LD_PRELOAD`), and local clusters (the e2e
#     suite, `npm start`, the benches) do where the library exists (scripts/local-preload.ts), so that
#     the suite's memory bounds are measured under the allocator the services run with.
# Needs root or password-less sudo when something is missing; does nothing when all is there.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/etcd ] || missing+=(etcd-server)
[ -f /usr/lib/python3/dist-packages/elasticsearch/__init__.py ] || missing+=(python3-elasticsearch)
compgen -G '/usr/lib/*/libjemalloc.so.2' >/dev/null || missing+=(libjemalloc2)

if [ "${#missing[@]}" -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then as_root=(sudo -n); fi
  echo "test deps: installing Debian ${missing[*]}"
  "${as_root[@]}" apt-get update -q </dev/null
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
fi
echo "test deps: $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium: version unknown'); $(/usr/bin/etcd --version 2>/dev/null | head -n 1 || echo 'etcd: version unknown'); python3-elasticsearch $(/usr/bin/python3 -c 'import elasticsearch; print(elasticsearch.__versionstr__)' 2>/dev/null || echo 'version unknown')"
