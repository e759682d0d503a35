package msa

import (
	"slices"

	"github.com/tracebook/tracebook/builtins/align"
	"github.com/tracebook/tracebook/builtins/work"
)

// Progressive MSA (Weber 5.2.1-5.2.2): the block grows by pairwise
// alignments of a new sequence with its partner, a sequence already in the
// block; gaps the alignment opens in the partner are opened in every row
// ("once a gap, always a gap").

// aligner holds the options of the pairwise steps and counts what ran.
type aligner struct {
	o       align.Options
	methods map[align.Method]int
	heur    bool
	steps   int
}

// path aligns a with c by align's exact methods, chosen by size as in
// hierarchical alignment, as align.Path does (align's tie rule, doc.go),
// for a block built on reversed sequences (see progressive): a and c are
// reversed, so path returns align.Path of the sequences read forwards,
// reversed.
func (al *aligner) path(a, c []int32) []align.Op {
	ra, rc := slices.Clone(a), slices.Clone(c)
	slices.Reverse(ra)
	slices.Reverse(rc)
	var ops []align.Op
	var m align.Method
	var heur bool
	if slices.Equal(ra, rc) {
		ops, m = make([]align.Op, len(ra)), align.Special // all OpDiag
	} else {
		ops, m, heur = align.Path(ra, rc, al.o)
	}
	slices.Reverse(ops)
	if al.methods == nil {
		al.methods = map[align.Method]int{}
	}
	al.methods[m]++
	al.heur = al.heur || heur
	al.steps++
	return ops
}

// merge adds o's counts to al.
func (al *aligner) merge(o *aligner) {
	for m, n := range o.methods {
		if al.methods == nil {
			al.methods = map[align.Method]int{}
		}
		al.methods[m] += n
	}
	al.heur = al.heur || o.heur
	al.steps += o.steps
}

// builder is a growing MSA block. Columns have stable ids in a linked
// list (id 0 is the head), so opening a gap column in every row costs O(1);
// positions are assigned when the block is finished.
type builder struct {
	seqs [][]int32
	col  [][]int32 // per row: column id of each symbol; nil until added
	next []int32   // next column id, -1 at the end
	sym  []int32   // a symbol of each column
	more map[int32][]int32
	al   *aligner
	lcs  []int32 // scratch
}

func newBuilder(seqs [][]int32, al *aligner) *builder {
	return &builder{seqs: seqs, col: make([][]int32, len(seqs)), next: []int32{-1}, sym: []int32{-1}, al: al}
}

func (b *builder) newColumn(after int32, s int32) int32 {
	id := int32(len(b.next))
	b.next = append(b.next, b.next[after])
	b.sym = append(b.sym, s)
	b.next[after] = id
	return id
}

func (b *builder) has(c, s int32) bool {
	return b.sym[c] == s || slices.Contains(b.more[c], s)
}

func (b *builder) addSym(c, s int32) {
	if b.has(c, s) {
		return
	}
	if b.more == nil {
		b.more = map[int32][]int32{}
	}
	b.more[c] = append(b.more[c], s)
}

// start puts row r alone into the empty block.
func (b *builder) start(r int) {
	s := b.seqs[r]
	cs := make([]int32, len(s))
	last := int32(0)
	for i, x := range s {
		last = b.newColumn(last, x)
		cs[i] = last
	}
	b.col[r] = cs
}

// add adds row n to the block by ops, its pairwise alignment with row p
// (in the block).
func (b *builder) add(p, n int, ops []align.Op) {
	work.Check()
	ns := b.seqs[n]
	colP := b.col[p]
	cn := make([]int32, len(ns))
	prev := int32(0)
	k, j := 0, 0
	for i := 0; i < len(ops); {
		switch ops[i] {
		case align.OpDiag:
			c := colP[k]
			cn[j] = c
			b.addSym(c, ns[j])
			prev = c
			k, j, i = k+1, j+1, i+1
		case align.OpGapB:
			prev = colP[k]
			k, i = k+1, i+1
		default: // a run of new symbols against gaps of the partner
			r0 := j
			for i < len(ops) && ops[i] == align.OpGapA {
				j, i = j+1, i+1
			}
			stop := int32(-1)
			if k < len(colP) {
				stop = colP[k]
			}
			b.place(ns[r0:j], cn[r0:j], prev, stop)
		}
	}
	b.col[n] = cn
}

// lcsCells bounds the matching of a run of new symbols against the gap
// columns it falls between; beyond it the matching is greedy.
const lcsCells = 1 << 20

// place assigns columns to run, symbols of the new sequence that the
// pairwise alignment put against gaps of the partner between columns prev
// and stop. The block may already hold columns there (gaps of the partner
// opened for other rows): a symbol goes into such a column when the column
// holds the same symbol (the most such matches, in order), otherwise into a
// new column, a gap in every other row.
func (b *builder) place(run, out []int32, prev, stop int32) {
	var cands []int32
	for c := b.next[prev]; c != stop && c != -1; c = b.next[c] {
		cands = append(cands, c)
	}
	match := make([]int32, len(run)) // candidate index+1 matched to each run symbol, 0 none
	switch {
	case len(cands) == 0:
	case len(run)*len(cands) <= lcsCells:
		b.lcsMatch(run, cands, match)
	default:
		at := 0
		for i, s := range run {
			for q := at; q < len(cands); q++ {
				if b.has(cands[q], s) {
					match[i], at = int32(q+1), q+1
					break
				}
			}
		}
	}
	// Unmatched symbols open columns right before the next matched column
	// (or stop): next to the partner symbol they precede, the placement
	// the late tie rule gives them in the pairwise alignment. (The block
	// is built on reversed sequences, see progressive: read forwards, that
	// is right after the previous one, align's early rule.)
	last, q := prev, -1 // q: index of the last candidate passed
	for i, s := range run {
		if m := match[i]; m > 0 {
			last, q = cands[m-1], int(m-1)
			b.addSym(last, s)
			out[i] = last
			continue
		}
		next := len(cands)
		for k := i + 1; k < len(run); k++ {
			if match[k] > 0 {
				next = int(match[k] - 1)
				break
			}
		}
		if next-1 > q {
			last, q = cands[next-1], next-1
		}
		last = b.newColumn(last, s)
		out[i] = last
	}
}

// lcsMatch matches run to cands (a symbol to a column holding it) by a
// longest common subsequence.
func (b *builder) lcsMatch(run, cands []int32, match []int32) {
	n, m := len(run), len(cands)
	w := m + 1
	need := (n + 1) * w
	if cap(b.lcs) < need {
		b.lcs = make([]int32, need)
	}
	d := b.lcs[:need]
	clear(d[:w])
	for i := 1; i <= n; i++ {
		d[i*w] = 0
		for j := 1; j <= m; j++ {
			v := max(d[(i-1)*w+j], d[i*w+j-1])
			if b.has(cands[j-1], run[i-1]) {
				v = max(v, d[(i-1)*w+j-1]+1)
			}
			d[i*w+j] = v
		}
	}
	for i, j := n, m; i > 0 && j > 0; {
		switch {
		case b.has(cands[j-1], run[i-1]) && d[i*w+j] == d[(i-1)*w+j-1]+1:
			match[i-1] = int32(j)
			i, j = i-1, j-1
		case d[(i-1)*w+j] >= d[i*w+j-1]:
			i--
		default:
			j--
		}
	}
}

// finish numbers the columns and returns each row's column positions and
// the block width.
func (b *builder) finish() ([][]int32, int) {
	pos := make([]int32, len(b.next))
	w := 0
	for c := b.next[0]; c != -1; c = b.next[c] {
		pos[c] = int32(w)
		w++
	}
	out := make([][]int32, len(b.col))
	for r, cs := range b.col {
		o := make([]int32, len(cs))
		for i, c := range cs {
			o[i] = pos[c]
		}
		out[r] = o
	}
	return out, w
}

// progressive aligns seqs following steps; every row must be reached (the
// steps of a guide order reach all of them).
//
// Ties follow align's rule (the shorter sequence's calls as early as the
// score allows; of three calls against two, the third is the extra one),
// so the MSA of two sequences is their pairwise alignment by align, and a
// merged tree pairs iteration k with iteration k. The builder (and its
// placement of new calls against gap columns of the block, place) is
// written for the mirror rule, calls as late as possible: the block is
// built on the reversed sequences, whose pairwise steps are align's
// alignments of the forward sequences reversed (path), and then read
// backwards.
func progressive(seqs [][]int32, steps []Step, al *aligner) ([][]int32, int) {
	rev := make([][]int32, len(seqs))
	for r, s := range seqs {
		rev[r] = slices.Clone(s)
		slices.Reverse(rev[r])
	}
	b := newBuilder(rev, al)
	switch {
	case len(seqs) == 0:
		return nil, 0
	case len(steps) == 0:
		b.start(0)
	default:
		b.start(steps[0].Partner)
		ops := stepPaths(rev, steps, al)
		for i, st := range steps {
			b.add(st.Partner, st.New, ops[i])
			ops[i] = nil
		}
	}
	for r := range seqs {
		if b.col[r] == nil {
			panic("msa: internal error: guide order misses a sequence")
		}
	}
	cols, width := b.finish()
	for _, c := range cols {
		slices.Reverse(c)
		for i := range c {
			c[i] = int32(width) - 1 - c[i]
		}
	}
	return cols, width
}

// stepPaths computes the pairwise alignment of every step. A step aligns
// the new sequence with its partner's own sequence, not with the block,
// so the steps are independent: large MSAs run them on both cores.
func stepPaths(seqs [][]int32, steps []Step, al *aligner) [][]align.Op {
	ops := make([][]align.Op, len(steps))
	var cells int64
	for _, st := range steps {
		cells += int64(len(seqs[st.Partner])) * int64(len(seqs[st.New]))
	}
	if len(steps) < 4 || cells < 1<<22 {
		for i, st := range steps {
			ops[i] = al.path(seqs[st.Partner], seqs[st.New])
		}
		return ops
	}
	als := [2]*aligner{al, {o: al.o}}
	eachIndex(len(steps), true, func(w, i int) {
		st := steps[i]
		ops[i] = als[w].path(seqs[st.Partner], seqs[st.New])
	})
	other := als[1]
	al.merge(other)
	return ops
}
