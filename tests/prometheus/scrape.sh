#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scrape.sh FILE...: a real scrape.  Debian's prometheus-node-exporter on a
# loopback port, its textfile collector (and nothing else) on a directory
# holding each FILE as FILE's name with .prom, as p2pmap-metrics.service
# writes it; /metrics fetched over HTTP.  Each file's every sample must be
# served with its value, the collector must report no error, and the
# exporter is stopped at the end whatever happened.  Prints TAP; exit 1 on
# a failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
tmp=$(mktemp -d)
pid=
stop() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap stop EXIT

exporter=$(command -v prometheus-node-exporter)
[ -n "$exporter" ]
tap $? "Debian's prometheus-node-exporter is installed (tests/deps.sh)" || { tap_done; exit 1; }
[ $# -gt 0 ] || { tap 1 "scrape.sh: no metrics file given"; tap_done; exit 1; }
mkdir "$tmp/textfile"
for f; do
	[ -s "$f" ] || { tap 1 "metrics file $f is there and not empty"; tap_done; exit 1; }
	cp "$f" "$tmp/textfile/$(basename "${f%.prom}").prom"
done
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tmp/textfile" \
	>"$tmp/exporter.log" 2>&1 &
pid=$!
python3 - "$port" "$tmp/scrape.txt" <<'PY'
import sys, time, urllib.request
url = "http://127.0.0.1:%s/metrics" % sys.argv[1]
for _ in range(100):
    try:
        body = urllib.request.urlopen(url, timeout=2).read()
        open(sys.argv[2], "wb").write(body)
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY
tap $? "node_exporter $("$exporter" --version 2>&1 | sed -n '1s/.*version \([^ ]*\).*/\1/p') answers on 127.0.0.1:$port/metrics" ||
	sed 's/^/# /' "$tmp/exporter.log"
python3 - "$tmp/scrape.txt" "$@" <<'PY'
import re, sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$')
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')

def samples(path):
    out = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise SystemExit("%s: not a sample: %r" % (path, line))
        labels, rest = [], m.group(3) or ""
        while rest.strip():
            lm = LABEL.match(rest)
            if not lm:
                raise SystemExit("%s: bad labels: %r" % (path, line))
            labels.append((lm.group(1), lm.group(2)))
            rest = rest[lm.end():]
        out[(m.group(1), tuple(sorted(labels)))] = float(m.group(4))
    return out

served = samples(sys.argv[1])
bad = 0
err = [v for (n, l), v in served.items() if n == "node_textfile_scrape_error"]
if err != [0.0]:
    print("# node_textfile_scrape_error: %s" % err)
    bad = 1
for path in sys.argv[2:]:
    want = samples(path)
    p2p = [k for k in want if k[0].startswith("p2pmap_")]
    missing = [k for k in want if served.get(k) != want[k]]
    for k in missing[:5]:
        print("# %s: not served as written: %s%s = %s (served: %s)" %
              (path, k[0], dict(k[1]), want[k], served.get(k)))
    if missing or not p2p:
        bad = 1
    else:
        print("# %s: %d p2pmap samples served" % (path, len(p2p)))
sys.exit(bad)
PY
tap $? "every p2pmap sample of $(echo "$@" | wc -w) file(s) is served with its value, node_textfile_scrape_error 0"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
! python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null
tap $? "node_exporter stopped"
tap_done
