"""Python's `elasticsearch` client (Debian's python3-elasticsearch, 7.17) against a Folio cluster.

Run by test/e2e/client-matrix.test.ts as `/usr/bin/python3 python-client-check.py URL INDEX`:
`helpers.bulk` loads INDEX (which must not exist), `helpers.scan` walks it and the shared `cities`
sample (read only), and each check prints one line `PASS name: detail` or `FAIL name: detail`.
Exits 1 when any check failed. The client's own product check runs on its first request
(a 7.14+ client refuses a server without `X-Elastic-Product: Elasticsearch`).
See https://elasticsearch-py.readthedocs.io/en/7.x/helpers.html
"""
import sys
import time

import elasticsearch
from elasticsearch import Elasticsearch, helpers

URL, INDEX = sys.argv[1], sys.argv[2]
CITIES = 135233
DOCS = 2000
failed = []


def check(name, ok, detail):
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
    if not ok:
        failed.append(name)


es = Elasticsearch([URL], timeout=120)

try:
    info = es.info()
    check("info (product check)", info["version"]["number"].startswith("8."), f"client {elasticsearch.__versionstr__}, server {info['version']['number']}")
except Exception as e:  # the product check raises UnsupportedProductError
    check("info (product check)", False, repr(e))
    sys.exit(1)

# helpers.bulk: index DOCS documents in chunks of 500, refresh at the end.
actions = ({"_index": INDEX, "_id": f"py-{i:05d}", "_source": {"n": i, "title": f"document {i}", "tags": ["even" if i % 2 == 0 else "odd"]}} for i in range(DOCS))
ok, errors = helpers.bulk(es, actions, chunk_size=500, refresh=True)
check("helpers.bulk", ok == DOCS and errors == [], f"{ok} indexed, {len(errors)} errors")

# helpers.bulk reports per-item failures (raise_on_error=False): creating an existing _id is a 409.
ok, errors = helpers.bulk(es, [{"_op_type": "create", "_index": INDEX, "_id": "py-00000", "_source": {"n": 0}}], raise_on_error=False)
statuses = [e["create"]["status"] for e in errors]
check("helpers.bulk item errors", ok == 0 and statuses == [409], f"{ok} indexed, statuses {statuses}")

# helpers.scan over the bulk-loaded index: every document once, sources as indexed.
hits = list(helpers.scan(es, index=INDEX, size=300, scroll="1m"))
ids = [h["_id"] for h in hits]
sources_ok = all(h["_source"]["n"] == int(h["_id"][3:]) for h in hits)
check("helpers.scan (bulk index)", len(ids) == DOCS and len(set(ids)) == DOCS and sources_ok, f"{len(ids)} hits, {len(set(ids))} distinct")

# helpers.scan with a query and preserve_order (sorted scroll).
hits = list(helpers.scan(es, index=INDEX, query={"query": {"term": {"tags": "odd"}}, "sort": [{"n": "asc"}]}, size=250, preserve_order=True))
ns = [h["_source"]["n"] for h in hits]
check("helpers.scan (query, preserve_order)", ns == list(range(1, DOCS, 2)), f"{len(ns)} hits in order: {ns == sorted(ns)}")

# helpers.scan over all cities: the exact total is walked, no hit twice.
started = time.time()
ids = [h["_id"] for h in helpers.scan(es, index="cities", size=5000, scroll="2m", _source=False)]
check("helpers.scan (cities)", len(ids) == CITIES and len(set(ids)) == CITIES, f"{len(ids)} hits, {len(set(ids))} distinct in {time.time() - started:.1f} s")

# scan clears its scroll at the end: no scroll context is left open by the walks above (the
# caller cleared every scroll before this script), so clearing all frees none (404, num_freed 0).
cleared = es.clear_scroll(scroll_id="_all", ignore=(404,))
check("helpers.scan clears its scrolls", cleared.get("succeeded") is True and cleared.get("num_freed") == 0, str(cleared))

es.indices.delete(index=INDEX)
print(f"{'FAIL' if failed else 'PASS'} python3-elasticsearch: {len(failed)} of the checks failed", flush=True)
sys.exit(1 if failed else 0)
