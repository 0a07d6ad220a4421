#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fleet's monitoring (monitoring/), tested with Prometheus's own tools:
# promtool check rules and test rules (tests/prometheus/p2pmap.test.yml:
# every alert fires on its series and stays quiet on the others), each
# alert's tests shown to fail on a rule that never fires and on one that
# always does; every metric the rules and the Grafana dashboard use is one
# that "p2pmap metrics" emits (and a renamed one is caught); promtool check
# metrics on what p2pmap metrics prints; the dashboard's queries parse and
# its verdict means what p2pmap check means; a real scrape through
# node_exporter (scrape.sh).  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/prometheus
rules=$top/monitoring/p2pmap.rules.yml
dashboard=$top/monitoring/grafana-p2pmap.json
p2pmap=$top/user/p2pmap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/tap.sh"

command -v promtool >/dev/null
tap $? "promtool is installed (Debian's prometheus package, tests/deps.sh)" || { tap_done; exit 1; }
make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds" || cat "$tmp/build.log"

promtool check rules "$rules" >"$tmp/check.out" 2>&1
tap $? "promtool check rules: $(grep -o '[0-9]* rules found' "$tmp/check.out")" ||
	sed 's/^/# /' "$tmp/check.out"
(cd "$here" && promtool test rules p2pmap.test.yml) >"$tmp/test.out" 2>&1
tap $? "promtool test rules: every alert fires on its series and on no other" ||
	sed 's/^/# /' "$tmp/test.out" | head -40

# Each alert broken two ways, in a copy of the rules: its tests must fail.
alerts=$(python3 -c 'import sys, yaml; print(" ".join(r["alert"] for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"] if "alert" in r))' "$rules")
tested=$(python3 -c 'import sys, yaml; print(" ".join(sorted({t["alertname"] for c in yaml.safe_load(open(sys.argv[1]))["tests"] for t in c.get("alert_rule_test", [])})))' "$here/p2pmap.test.yml")
[ "$(echo $alerts | tr ' ' '\n' | sort | tr '\n' ' ')" = "$tested " ]
tap $? "every alert has tests ($(echo $alerts | wc -w) alerts: $alerts)"
sed 's|\.\./\.\./monitoring/p2pmap\.rules\.yml|broken.rules.yml|' "$here/p2pmap.test.yml" >"$tmp/p2pmap.test.yml"
rc=0
for a in $alerts; do
	for how in "vector(1) == 0:never fires" "vector(1):always fires"; do
		python3 - "$rules" "$tmp/broken.rules.yml" "$a" "${how%%:*}" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for g in d["groups"]:
    for r in g["rules"]:
        if r.get("alert") == sys.argv[3]:
            r["expr"] = sys.argv[4]
yaml.safe_dump(d, open(sys.argv[2], "w"))
PY
		if (cd "$tmp" && promtool test rules p2pmap.test.yml) >/dev/null 2>&1; then
			echo "# $a ${how#*:}: its tests still pass"
			rc=1
		fi
	done
done
tap $rc "each alert's tests fail when it never fires and when it always fires"

# The names p2pmap metrics emits: every family() of user/output/metrics.c.
emitted=$(sed -n 's/.*family(f, "\(p2pmap_[a-z_]*\)".*/\1/p' "$top/user/output/metrics.c" | sort -u)
[ "$(echo "$emitted" | wc -l)" -ge 10 ]
tap $? "the emitted names read from user/output/metrics.c ($(echo "$emitted" | wc -l))"
# used FILE...: the p2pmap_ names of the rules' and dashboard's queries
used() {
	python3 - "$@" <<'PY'
import json, re, sys, yaml
exprs = []
for path in sys.argv[1:]:
    if path.endswith(".json"):
        d = json.load(open(path))
        exprs += [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
        exprs += [v.get("definition", "") for v in d["templating"]["list"]]
    else:
        exprs += [r["expr"] for g in yaml.safe_load(open(path))["groups"] for r in g["rules"]]
print("\n".join(sorted({n for e in exprs for n in re.findall(r"\bp2pmap_[a-z_]+", e)})))
PY
}
# unknown EMITTED FILE...: the names used that are not emitted
unknown() {
	local e=$1
	shift
	comm -23 <(used "$@") <(echo "$e")
}
out=$(unknown "$emitted" "$rules" "$dashboard")
[ -z "$out" ] && [ -n "$(used "$rules" "$dashboard")" ]
tap $? "the rules and the dashboard use only metrics p2pmap metrics emits ($(used "$rules" "$dashboard" | wc -l) names)" ||
	echo "$out" | sed 's/^/# not emitted: /'
sed 's/p2pmap_link_state/p2pmap_link_status/' "$rules" >"$tmp/renamed.rules.yml"
sed 's/p2pmap_pair_faults_total/p2pmap_pair_faults/' "$dashboard" >"$tmp/renamed.json"
[ "$(unknown "$emitted" "$tmp/renamed.rules.yml")" = p2pmap_link_status ] &&
	[ "$(unknown "$emitted" "$tmp/renamed.json")" = p2pmap_pair_faults ] &&
	[ "$(unknown "$(echo "$emitted" | sed 's/^p2pmap_param_errors$/p2pmap_param_error_count/')" "$rules")" = p2pmap_param_errors ]
tap $? "... a metric renamed in the rules, in the dashboard or in the CLI is caught"
out=$(comm -3 <(echo "$emitted") <(sed -n 's/^| `\(p2pmap_[a-z_]*\)`.*/\1/p' "$top/Documentation/METRICS.md" | sort -u))
[ -z "$out" ]
tap $? "Documentation/METRICS.md documents exactly the emitted metrics" || echo "$out" | sed 's/^/# /'

# promtool check metrics: the guest's real output (tests/guest/epyc.sh,
# 6.12 VT-d: 12 links mapped, a pair with no link faulting) and this
# machine's (no module).
"$p2pmap" metrics >"$tmp/live.prom"
for f in "$here/guest-epyc.prom" "$tmp/live.prom"; do
	promtool check metrics <"$f" >"$tmp/lint.out" 2>&1
	tap $? "promtool check metrics: clean on $(basename "$f") ($(grep -vc '^#' "$f") samples)" ||
		sed 's/^/# /' "$tmp/lint.out"
done
sed 's/p2pmap_device_faults_total/p2pmap_device_faults/g' "$here/guest-epyc.prom" |
	promtool check metrics >"$tmp/lint.out" 2>&1
[ $? != 0 ] && grep -q "_total" "$tmp/lint.out"
tap $? "... and it flags a counter without _total"
families=$(sed -n 's/^# TYPE \(p2pmap_[a-z_]*\) .*/\1/p' "$here/guest-epyc.prom" | sort)
[ "$families" = "$emitted" ]
tap $? "the guest's output has every emitted family" ||
	comm -3 <(echo "$families") <(echo "$emitted") | sed 's/^/# /'

# The dashboard: JSON, its panels, each query PromQL (as recording rules
# for promtool, Grafana's variables replaced), and its verdict query
# tested like the alerts.
python3 - "$dashboard" "$tmp/dash.rules.yml" "$tmp/verdict.expr" <<'PY'
import json, sys, yaml
d = json.load(open(sys.argv[1]))
titles = [p["title"] for p in d["panels"]]
for want in ("Verdict", "P2P matrix", "Links by state", "Fault rate per pair"):
    assert any(t.startswith(want) for t in titles), "no panel " + want
def sub(e):
    return e.replace("$instance", ".*").replace("$__rate_interval", "5m")
rules = [{"record": "dashboard:q%d" % i, "expr": sub(t["expr"])}
         for i, t in enumerate(t for p in d["panels"] for t in p["targets"])]
yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[2], "w"))
open(sys.argv[3], "w").write(sub(d["panels"][0]["targets"][0]["expr"]))
print("# %d panels, %d queries" % (len(titles), len(rules)))
PY
tap $? "the Grafana dashboard parses and has the verdict, the P2P matrix, link states and fault rates"
promtool check rules "$tmp/dash.rules.yml" >"$tmp/dash.out" 2>&1
tap $? "every dashboard query is valid PromQL ($(grep -o '[0-9]* rules found' "$tmp/dash.out"))" ||
	sed 's/^/# /' "$tmp/dash.out"
python3 - "$tmp/verdict.expr" "$tmp/verdict.test.yml" <<'PY'
import sys, yaml
expr = open(sys.argv[1]).read()
s = lambda h, rest: 'p2pmap_%s{instance="%s"%s}' % (rest[0], h, rest[1])
series = [
    # ok: loaded, links mapped, no fault
    {"series": s("ok", ("module_loaded", "")), "values": "1x10"},
    {"series": s("ok", ("link_state", ',initiator="a",target="b",state="mapped"')), "values": "1x10"},
    {"series": s("ok", ("link_state", ',initiator="a",target="b",state="pending"')), "values": "0x10"},
    {"series": s("ok", ("pair_faults_total", ',initiator="a",target="b",lower_bound="false"')), "values": "3x10"},
    # nolinks: loaded, nothing configured
    {"series": s("nolinks", ("module_loaded", "")), "values": "1x10"},
    # pending: a link not mapped
    {"series": s("pending", ("module_loaded", "")), "values": "1x10"},
    {"series": s("pending", ("link_state", ',initiator="a",target="b",state="pending"')), "values": "1x10"},
    # faulting: a pair's counter grows
    {"series": s("faulting", ("module_loaded", "")), "values": "1x10"},
    {"series": s("faulting", ("pair_faults_total", ',initiator="a",target="c",lower_bound="false"')), "values": "0+1x10"},
    # gone: the module not loaded
    {"series": s("gone", ("module_loaded", "")), "values": "0x10"},
]
want = [{"labels": '{instance="%s"}' % h, "value": v}
        for h, v in (("ok", 1), ("nolinks", 1), ("pending", 0), ("faulting", 0), ("gone", 0))]
yaml.safe_dump({"tests": [{"interval": "1m", "input_series": series,
                           "promql_expr_test": [{"expr": expr, "eval_time": "8m", "exp_samples": want}]}]},
               open(sys.argv[2], "w"))
PY
(cd "$tmp" && promtool test rules verdict.test.yml) >"$tmp/verdict.out" 2>&1
tap $? "the dashboard's verdict: OK (1) only where the module is loaded, every link mapped and no pair faulting" ||
	sed 's/^/# /' "$tmp/verdict.out" | head -30

# A real scrape (one host, one file): the guest's output, then this
# machine's, through node_exporter.
for f in "$here/guest-epyc.prom" "$tmp/live.prom"; do
	"$here/scrape.sh" "$f" >"$tmp/scrape.tap" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/scrape.tap"
	tap $rc "node_exporter serves $(basename "$f") (tests/prometheus/scrape.sh)"
done
printf '# HELP p2pmap_links x\n# TYPE p2pmap_links gauge\np2pmap_links 1\np2pmap_links 2\n' >"$tmp/broken.prom"
"$here/scrape.sh" "$tmp/broken.prom" >"$tmp/scrape-broken.tap" 2>&1
[ $? != 0 ] && grep -q "^not ok .*every p2pmap sample" "$tmp/scrape-broken.tap"
tap $? "... and the scrape check fails on a file node_exporter cannot serve"
pgrep -f "prometheus-node-exporter --web.listen-address=127.0.0.1" >/dev/null
[ $? != 0 ]
tap $? "no node_exporter of these tests is left running"
tap_done
