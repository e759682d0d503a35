#!/usr/bin/env bash
# The command line as a batch job or a CI step uses it (make test-scripts):
# examples/nightly/main.go run by `tracebook run` on generated runs with a slow
# rank (exit 1) and on two equal runs (exit 0), its figure and Parquet
# export; `tracebook check` on the same traces, with its JUnit XML read back
# by Python's xml.etree.
set -euo pipefail
bin=$(realpath "$1")
repo=$(realpath "$(dirname "$0")/..")
out=$(realpath -m "$2")
rm -rf "$out" && mkdir -p "$out" && cd "$out"
fail() { echo "test-scripts: $*" >&2; exit 1; }

# two runs written as events tables by a script: the baseline, and the same
# program with rank 5 30% slower
"$bin" run -e '
cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations = 16, 20
arrowio.WriteParquet("base.parquet", synth.Generate(cfg).Events())
cfg.Seed++ // other noise, same program
arrowio.WriteParquet("again.parquet", synth.Generate(cfg).Events())
cfg.SlowRank, cfg.SlowFactor = 5, 1.3
arrowio.WriteParquet("slow.parquet", synth.Generate(cfg).Events())
fmt.Println("written")' > gen.txt
grep -qx written gen.txt || fail "generating the runs: $(cat gen.txt)"

# the example script: generated runs with a slow rank -> exit 1
set +e
"$bin" run --figures "$out/nightly" "$repo/examples/nightly/main.go" > nightly.txt 2> nightly.err
rc=$?
set -e
[ $rc = 1 ] || fail "nightly/main.go on a slowed run: exit $rc, want 1: $(cat nightly.err)"
grep -q '^time per process: .* (+[0-9.]*%, limit +5.0%)$' nightly.txt || fail "nightly/main.go: no verdict line: $(cat nightly.txt)"
grep -q 'figure 1 written to .*/nightly-1.png' nightly.err || fail "nightly/main.go: the figure is not said on stderr: $(cat nightly.err)"
[ -s nightly-1.png ] && [ -s changes.parquet ] || fail "nightly/main.go: no figure or Parquet file"
# the same program with other noise, given as arguments -> exit 0
"$bin" run --figures "$out/equal" "$repo/examples/nightly/main.go" base.parquet again.parquet 5% > equal.txt 2> equal.err ||
	fail "nightly/main.go on a run with other noise: exit $?: $(cat equal.err)"
grep -q '^time per process: .* ([+-][0-9.]*%, limit +5.0%)$' equal.txt || fail "nightly/main.go on a run with other noise: $(cat equal.txt)"
# the Parquet export reads back in the session
"$bin" run -e 't, err := arrowio.ReadParquet("changes.parquet"); if err != nil { panic(err) }; t.NumRows() > 0' > rows.txt
grep -qx true rows.txt || fail "changes.parquet: $(cat rows.txt)"
echo "test-scripts: examples/nightly/main.go ok (exit 1 on the slowed run, 0 on other noise)"

# tracebook check: the same program with other noise passes, the slowed run fails
"$bin" check --baseline base.parquet --run again.parquet --junit again.xml > again.txt ||
	fail "check on a run with other noise: exit $?: $(cat again.txt)"
grep -q '^ok: ' again.txt || fail "check: no ok headline: $(cat again.txt)"
set +e
"$bin" check --baseline base.parquet --run slow.parquet --junit slow.xml > slow.txt 2> slow.err
rc=$?
set -e
[ $rc = 1 ] || fail "check on the slowed run: exit $rc, want 1: $(cat slow.txt slow.err)"
grep -q '^FAIL: run .* slower than baseline' slow.txt || fail "check: no FAIL headline: $(cat slow.txt)"
/usr/bin/python3 - <<'PY' || fail "check's JUnit XML"
import xml.etree.ElementTree as ET
for name, failures in (("again.xml", 0), ("slow.xml", 1)):
    suite = ET.parse(name).getroot()
    assert suite.tag == "testsuite" and suite.get("name") == "tracebook check", (name, suite.tag, suite.attrib)
    cases = suite.findall("testcase")
    found = sum(len(c.findall("failure")) for c in cases)
    assert cases and found == failures, (name, len(cases), found)
PY
echo "test-scripts: tracebook check ok (exit 0 on other noise, 1 on the slowed run, JUnit read back)"
