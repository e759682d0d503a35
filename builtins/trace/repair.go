package trace

import (
	"fmt"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/work"
)

// CallRepairs counts the Enter/Leave events of one location that do not nest
// properly, by what the call-tree builder did with them (the rule is in the
// CallTree documentation). The zero value means properly nested.
//
// OuterLeaves+UnmatchedLeaves are the Leaves whose region is not the innermost
// open call's; LeavesWithoutCall are the Leaves with no call open at all;
// OpenAtEnd are the calls never left.
type CallRepairs struct {
	OuterLeaves       int64 // Leaves of an enclosing open call: closed it and the calls inside
	ClosedInside      int64 // calls closed by an OuterLeave (at its time), never left themselves
	UnmatchedLeaves   int64 // Leaves matching no open call while calls were open: ignored
	LeavesWithoutCall int64 // Leaves while no call was open: ignored
	OpenAtEnd         int64 // calls still open after the last event: closed at its time
}

// IsZero reports whether nothing was repaired.
func (r CallRepairs) IsZero() bool { return r == CallRepairs{} }

// Add returns the field-wise sum of r and s.
func (r CallRepairs) Add(s CallRepairs) CallRepairs {
	return CallRepairs{r.OuterLeaves + s.OuterLeaves, r.ClosedInside + s.ClosedInside,
		r.UnmatchedLeaves + s.UnmatchedLeaves, r.LeavesWithoutCall + s.LeavesWithoutCall, r.OpenAtEnd + s.OpenAtEnd}
}

// Count returns the number of repaired events and calls: every Leave that did
// not close the innermost open call plus every call closed without its own Leave.
func (r CallRepairs) Count() int64 {
	return r.OuterLeaves + r.ClosedInside + r.UnmatchedLeaves + r.LeavesWithoutCall + r.OpenAtEnd
}

// String lists the non-zero counts, e.g. "2 calls left open at the end (closed
// at the last event), 1 Leave matching no open call (ignored)"; "" when r is zero.
func (r CallRepairs) String() string {
	n := func(k int64, one, many string) string {
		if k == 1 {
			return "1 " + one
		}
		return arrowio.FormatCount(k) + " " + many
	}
	var parts []string
	if r.OpenAtEnd > 0 {
		parts = append(parts, n(r.OpenAtEnd, "call", "calls")+" left open at the end (closed at the last event)")
	}
	if r.OuterLeaves > 0 || r.ClosedInside > 0 {
		parts = append(parts, n(r.OuterLeaves, "Leave", "Leaves")+" of an enclosing call (closing "+n(r.ClosedInside, "call", "calls")+" never left inside)")
	}
	if r.UnmatchedLeaves > 0 {
		parts = append(parts, n(r.UnmatchedLeaves, "Leave", "Leaves")+" matching no open call (ignored)")
	}
	if r.LeavesWithoutCall > 0 {
		parts = append(parts, n(r.LeavesWithoutCall, "Leave", "Leaves")+" with no call open (ignored)")
	}
	return strings.Join(parts, ", ")
}

// CallRepairs counts the repairs p's call tree needs, equal to
// p.CallTree().Repairs but without building the tree: one pass over Kind and
// Ref with a stack of region ids (memory proportional to the call depth).
// Not cached.
func (p *Process) CallRepairs() CallRepairs {
	return countRepairs(p.Kind, p.Ref)
}

// countRepairs applies the CallTree repair rule to the events.
func countRepairs(kind []EventKind, ref []int32) CallRepairs {
	var r CallRepairs
	var stack []int32 // regions of the open calls
	for i, k := range kind {
		if i&(1<<20-1) == 1<<20-1 {
			work.Check()
		}
		switch k {
		case Enter:
			stack = append(stack, ref[i])
		case Leave:
			if d := LeaveDepth(stack, ref[i], &r); d >= 0 {
				stack = stack[:d]
			}
		}
	}
	r.OpenAtEnd = int64(len(stack))
	return r
}

// LeaveDepth applies the call-tree repair rule (see CallTree) to a Leave of
// region on a stack of the open calls' regions (outermost first): it returns
// how many calls stay open, len(stack)-1 when the Leave closes the innermost
// call (or its region is unknown, < 0), fewer when it closes an enclosing
// call and the calls inside it, and -1 when the Leave is ignored; it counts
// every repair in r. The caller closes the calls above the returned depth.
func LeaveDepth(stack []int32, region int32, r *CallRepairs) int {
	if n := len(stack) - 1; n >= 0 && stack[n] == region {
		return n
	}
	return r.leaveDepth(stack, region)
}

// leaveDepth is LeaveDepth past its common case.
func (r *CallRepairs) leaveDepth(stack []int32, region int32) int {
	n := len(stack)
	if n > 0 && region < 0 {
		return n - 1
	}
	return matchLeave(n, region, func(d int) int32 { return stack[d] }, r)
}

// MatchLeave applies the call-tree repair rule (see CallTree) to a Leave of
// region while n calls are open (regionAt(d) is the region of open call d,
// outermost 0): it returns the number d of calls that stay open (call d and
// every call inside it are closed), or -1 if the Leave is ignored, and counts the
// repair in r. The common case, a Leave of the innermost call, is for the
// caller to handle; this is for the rest, so that other builders of call
// structure whose stack is not a slice of region ids (the CCG) repair
// exactly as the call tree does. With such a slice, use LeaveDepth.
func MatchLeave(n int, region int32, regionAt func(int) int32, r *CallRepairs) int {
	return matchLeave(n, region, regionAt, r)
}

// matchLeave is the repair rule of CallTree for a Leave of region that does
// not close the innermost of the n open calls (region of open call d, 0 the
// outermost: regionAt(d)). It counts the repair in r and returns how many
// calls stay open, those above being closed; -1 if the Leave is ignored.
// The callers handle the common case, a Leave of the innermost call (or of
// an unknown region, < 0), inline.
func matchLeave(n int, region int32, regionAt func(int) int32, r *CallRepairs) int {
	if n == 0 {
		r.LeavesWithoutCall++
		return -1
	}
	j := n - 2
	for j >= 0 && regionAt(j) != region {
		j--
	}
	if j < 0 {
		r.UnmatchedLeaves++
		return -1
	}
	r.OuterLeaves++
	r.ClosedInside += int64(n - 1 - j)
	return j
}

// repairLine is the summary's sentence on call-stack repairs after "call
// stacks ", e.g. "repaired on 2 of 32 locations: 3 calls left open at the end ...";
// "" when every location is properly nested. One pass over the events.
func (t *Trace) repairLine() string {
	var total CallRepairs
	n := 0
	for _, p := range t.procs {
		if r := p.CallRepairs(); !r.IsZero() {
			n++
			total = total.Add(r)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("repaired on %s of %s locations: %s", arrowio.FormatCount(int64(n)),
		arrowio.FormatCount(int64(len(t.procs))), total)
}
