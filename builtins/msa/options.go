package msa

import (
	"github.com/tracebook/tracebook/builtins/align"
)

// State is the state of a merged call-tree node or of an MSA column (Weber
// Figure 5.12).
type State uint8

const (
	// Equal: every process of the group takes part, all with one region.
	Equal State = iota
	// Gap: at least one process does not take part; those that do have
	// one region.
	Gap
	// Different: the processes that take part have different regions.
	Different
)

var stateNames = [...]string{"equal", "gap", "different"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(?)"
}

type options struct {
	guide    Guide
	limit    int
	align    align.Options
	alignOps []align.Option
}

// Option configures an MSA.
type Option func(*options)

// WithGuide selects the guide method (default GuideAuto).
func WithGuide(g Guide) Option { return func(o *options) { o.guide = g } }

// WithMatrixLimit sets the number of sequences up to which GuideAuto
// builds the similarity matrix (default 250).
func WithMatrixLimit(n int) Option { return func(o *options) { o.limit = n } }

// WithScoring sets the scores of the pairwise steps (default: align's
// match 2, mismatch -1, gap -1).
func WithScoring(match, mismatch, gap int) Option {
	return func(o *options) { o.alignOps = append(o.alignOps, align.WithScoring(match, mismatch, gap)) }
}

// WithMethod selects the flat method of the pairwise steps (default
// align.Auto: chosen by size).
func WithMethod(m align.Method) Option {
	return func(o *options) { o.alignOps = append(o.alignOps, align.WithMethod(m)) }
}

func collect(fn string, opts []Option) options {
	o := options{limit: DefaultMatrixLimit}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.guide < GuideAuto || o.guide > GuideRanking {
		fail(fn, "unknown guide method %d (GuideAuto, GuideMatrix or GuideRanking)", int(o.guide))
	}
	if o.limit < 0 {
		fail(fn, "matrix limit %d < 0", o.limit)
	}
	// align.Error is work.Error: align's *Error names fn and passes
	// through as it is.
	o.align = align.Resolve(fn, o.alignOps...)
	return o
}
