#!/usr/bin/env bash
# Runs each fuzz target "pkg:Func" for FUZZTIME beyond its checked-in corpus.
# New interesting inputs are not minimised (-fuzzminimizetime, FUZZMINIMIZETIME,
# 0s by default), so the seconds go to exploring; a failing input is saved as
# found.
# Go's fuzz engine sometimes stalls here (workers report 0 execs/s for many
# seconds, then "context deadline exceeded" or "hung or terminated
# unexpectedly" when the time is up) on inputs that run in milliseconds when
# replayed. A failure therefore counts only if the input it saved fails again
# when replayed, or if it saved none and a second run fails the same way;
# an engine stall is reported as a warning, never hidden.
set -uo pipefail
GO=${GO:-go}
status=0
for t in "$@"; do
  pkg=${t%%:*}; fn=${t##*:}
  for attempt in 1 2; do
    echo "fuzz $pkg $fn (${FUZZTIME:-8s}, attempt $attempt)"
    log=$(mktemp)
    $GO test -run '^$' -fuzz "^$fn\$" -fuzztime "${FUZZTIME:-8s}" -fuzzminimizetime "${FUZZMINIMIZETIME:-0s}" "$pkg" >"$log" 2>&1
    rc=$?
    tail -n 3 "$log"
    if [ $rc = 0 ]; then rm -f "$log"; break; fi
    saved=$(sed -n 's#.*Failing input written to \(testdata/fuzz/[^ ]*\).*#\1#p' "$log" | tail -1)
    if [ -n "$saved" ]; then
      id=$(basename "$saved")
      if $GO test -run "^$fn/$id\$" "$pkg" >/dev/null 2>&1; then
        echo "WARNING: $fn: the fuzz engine stalled (saved input $id passes when replayed); not a failure"
        cat "$log" | grep -E "hung|deadline|elapsed" | tail -4
        rm -f "$($GO list -f "{{.Dir}}" "$pkg")/$saved"
        rm -f "$log"; break
      fi
      echo "FAIL: $fn: input $saved fails when replayed:"; cat "$log"; status=1; rm -f "$log"; break
    fi
    if grep -q "context deadline exceeded" "$log" && ! grep -q "panic:" "$log" && [ $attempt = 1 ]; then
      echo "WARNING: $fn: the fuzz engine stalled without a failing input; running it again"
      rm -f "$log"; continue
    fi
    cat "$log"; status=1; rm -f "$log"; break
  done
done
exit $status
