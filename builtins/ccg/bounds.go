package ccg

import (
	"fmt"
	"math"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
)

// Bounds are the deviation bounds of the soft properties (Knüpfer 3.3.1 and
// 5.6.1). Zero means exact (that property is compared like a hard property,
// which is also fast: it becomes part of the hash); a negative value means
// unlimited. The zero Bounds value is lossless compression.
type Bounds struct {
	// Abs bounds every timestamp: |t' - t| <= Abs ns (eq. 3.5), enforced
	// globally by the deviation intervals of Lemmas 4-5.
	Abs int64
	// Rel bounds every stored duration: |d' - d| <= Rel*d (eq. 3.6). A
	// duration of 0 therefore stays 0 unless Rel is unlimited.
	Rel float64
	// Bytes bounds the byte count of point-to-point messages (len_send/receive).
	Bytes int64
	// CollBytes bounds the bytes sent and received by a collective (len_collective).
	CollBytes int64
	// Counter bounds metric samples relatively (r_counter): an
	// accumulated counter's increments (the differences of successive
	// samples, as which it is stored: Knüpfer 3.2.1), |d' - d| <=
	// Counter*|d|, so a counter that only grows keeps every value within
	// Counter too; other metric values, |v' - v| <= Counter*|v|.
	Counter float64
	// MPIRel, if > 0, bounds the durations inside MPI calls (regions of
	// paradigm "mpi"; by name "MPI_..." where the paradigm is unknown)
	// and inside whatever they call more tightly than Rel: every duration
	// between consecutive events there within MPIRel, so the time spent in
	// each MPI call too (the seed's dur_send/receive and dur_collective of
	// 5.6.1, there absolute: a relative bound adds up like Rel does, so it
	// holds for the whole call by construction). The tighter of Rel and
	// MPIRel applies; 0 (the default) leaves MPI calls to Rel. Replay's
	// 1e-9 keeps every MPI call shorter than a second exact.
	MPIRel float64
	// Requests says whether the request ids of non-blocking operations are
	// kept: 0 (the default) keeps them exactly, -1 lets calls that differ
	// only in their ids share nodes (then Messages cannot pair receives
	// with their posting records: it matches them in completion order).
	// Ids are stored as differences from the location's latest one (see
	// encodeReq), which repeat when the ids count up, so exact ids cost
	// little; a bound in between has no meaning for differences and is an
	// error.
	Requests int64
}

// Lossless is the zero Bounds: every property exact.
var Lossless = Bounds{}

// Unlimited makes every soft property free (maximum compression: only
// the hard properties, i.e. the call structure and message envelopes, stay
// exact).
var Unlimited = Bounds{Abs: -1, Rel: -1, Bytes: -1, CollBytes: -1, Counter: -1, Requests: -1}

// String renders the bounds, e.g. "abs 1 µs, rel 1%".
func (b Bounds) String() string {
	if b == Lossless {
		return "lossless"
	}
	var parts []string
	parts = append(parts, "abs "+absString(b.Abs), "rel "+relString(b.Rel))
	if b.Bytes != 0 {
		parts = append(parts, "bytes "+intBound(b.Bytes))
	}
	if b.CollBytes != 0 {
		parts = append(parts, "collective bytes "+intBound(b.CollBytes))
	}
	if b.Counter != 0 {
		parts = append(parts, "counters "+relString(b.Counter))
	}
	if b.Requests != 0 {
		parts = append(parts, "request ids free")
	}
	if b.MPIRel > 0 {
		parts = append(parts, "MPI calls "+relString(b.MPIRel))
	}
	return strings.Join(parts, ", ")
}

func absString(v int64) string {
	switch {
	case v < 0:
		return "unlimited"
	case v == 0:
		return "0"
	}
	return arrowio.FormatDuration(v)
}

func relString(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "unbounded"
	case v < 0:
		return "unlimited"
	case v == 0:
		return "0"
	}
	return fmt.Sprintf("%.4g%%", v*100)
}

func intBound(v int64) string {
	if v < 0 {
		return "unlimited"
	}
	return fmt.Sprint(v)
}

// check panics with an *Error naming fn if a bound is not a number.
func (b Bounds) check(fn string) {
	if b.Requests > 0 {
		fail(fn, "Bounds.Requests is %d; use 0 (request ids exact) or -1 (free)", b.Requests)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Rel", b.Rel}, {"Counter", b.Counter}, {"MPIRel", b.MPIRel}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			fail(fn, "Bounds.%s is %v; use a number (0 exact, < 0 unlimited)", f.name, f.v)
		}
	}
	if b.MPIRel < 0 {
		fail(fn, "Bounds.MPIRel is %v; use 0 (MPI calls bounded by Rel alone) or a bound > 0", b.MPIRel)
	}
}

// widen returns the effective bounds for re-compressing a graph built with
// b into one with nb (Knüpfer 4.4.1, eq. 4.22-4.23): what the new graph may
// add on top of what b may already have used. ok is false when nb is
// narrower than b in some property.
func (b Bounds) widen(nb Bounds) (eff Bounds, ok bool) {
	ok = true
	ai := func(old, nw int64) int64 {
		switch {
		case nw < 0:
			return -1
		case old < 0 || nw < old:
			ok = false
			return 0
		}
		return nw - old
	}
	// Relative: stored d1 within r0 of d, new d2 within r of d1:
	// |d2-d| <= r0 d + r (1+r0) d <= r1 d  <=>  r <= (r1-r0)/(1+r0).
	rf := func(old, nw float64) float64 {
		switch {
		case nw < 0:
			return -1
		case old < 0 || nw < old:
			ok = false
			return 0
		}
		return (nw - old) / (1 + old)
	}
	eff = Bounds{Abs: ai(b.Abs, nb.Abs), Rel: rf(b.Rel, nb.Rel), Bytes: ai(b.Bytes, nb.Bytes),
		CollBytes: ai(b.CollBytes, nb.CollBytes), Counter: rf(b.Counter, nb.Counter), Requests: ai(b.Requests, nb.Requests)}
	// Durations in MPI calls: composed like Rel from the bound that held
	// there (the tighter of Rel and MPIRel) to the one that must.
	switch m := rf(b.mpiRel(), nb.mpiRel()); {
	case m > 0:
		eff.MPIRel = m
	case m == 0: // as tight as before: nothing more may change
		eff.MPIRel = math.SmallestNonzeroFloat64
	}
	return eff, ok
}

// mpiRel is the relative bound of durations inside MPI calls: the
// tighter of Rel and MPIRel (< 0 unlimited).
func (b Bounds) mpiRel() float64 {
	if b.MPIRel > 0 && (b.Rel < 0 || b.MPIRel < b.Rel) {
		return b.MPIRel
	}
	return b.Rel
}

// union returns the wider of two bounds in every property (a merged graph
// keeps the guarantee of its least accurate part).
func (b Bounds) union(c Bounds) Bounds {
	wi := func(x, y int64) int64 {
		if x < 0 || y < 0 {
			return -1
		}
		return max(x, y)
	}
	wf := func(x, y float64) float64 {
		if x < 0 || y < 0 {
			return -1
		}
		return max(x, y)
	}
	u := Bounds{Abs: wi(b.Abs, c.Abs), Rel: wf(b.Rel, c.Rel), Bytes: wi(b.Bytes, c.Bytes),
		CollBytes: wi(b.CollBytes, c.CollBytes), Counter: wf(b.Counter, c.Counter), Requests: wi(b.Requests, c.Requests)}
	if b.MPIRel > 0 && c.MPIRel > 0 { // 0: none
		u.MPIRel = max(b.MPIRel, c.MPIRel)
	}
	return u
}

// interval is a deviation interval [lo, hi] in ns (Knüpfer 4.2.4).
type interval struct{ lo, hi int64 }

// none is the empty interval (of observed deviations: nothing observed).
var none = interval{1, 0}

func (a interval) empty() bool { return a.lo > a.hi }

func (a interval) hull(v int64) interval {
	if a.empty() {
		return interval{v, v}
	}
	if v < a.lo {
		a.lo = v
	}
	if v > a.hi {
		a.hi = v
	}
	return a
}

func (a interval) hullI(b interval) interval {
	if b.empty() {
		return a
	}
	return a.hull(b.lo).hull(b.hi)
}

// shift returns a + s, empty if a is.
func (a interval) shift(s int64) interval {
	if a.empty() {
		return a
	}
	return interval{a.lo + s, a.hi + s}
}
