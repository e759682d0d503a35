package msa

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/internal/mix"
	"github.com/tracebook/tracebook/builtins/part"
	"github.com/tracebook/tracebook/builtins/trace"
	"github.com/tracebook/tracebook/builtins/work"
)

// Stage 1 of Table 5.9 under the partial contract (package part): the
// processes grouped by identical call trees, regions identified by name.
// "msa.stage1" computes the classes of a subset of the processes of a
// trace (a *Classes), and Classes.Merge joins the classes of a disjoint
// subset: a class joins the class with an identical tree, or stays one of
// its own. Each class carries its tree (region names and shape), so a
// partial is self-contained and its size is that of the distinct trees.

func init() {
	part.Register("msa.stage1", func(params []byte) (part.Method, error) {
		d := part.NewDec(params)
		d.Version("parameter", stage1Version)
		if err := d.Done(); err != nil {
			return nil, work.Errorf("msa.stage1", "parameters: %v", err)
		}
		return Stage1Method(), nil
	}, func(*trace.Trace) []part.Method { return []part.Method{Stage1Method()} })
}

const stage1Version = 1

// Stage1Method is Stage 1 of the hierarchical MSA (Weber Table 5.9) as a
// method of the partial contract ("msa.stage1"): its partial, a *Classes,
// groups a subset of the processes of a trace by identical call trees.
// It has no parameters: the grouping depends on the call trees alone.
func Stage1Method() part.Method { return stage1Method{} }

type stage1Method struct{}

func (stage1Method) Name() string   { return "msa.stage1" }
func (stage1Method) Params() []byte { return []byte{stage1Version} }
func (stage1Method) Rounds() int    { return 1 }

func (stage1Method) Decide(int, part.Partial) ([]byte, error) { return nil, nil }

// Compute groups procs by identical call trees.
func (stage1Method) Compute(tr *trace.Trace, procs []*trace.Process, round int, decision []byte) (p part.Partial, err error) {
	err = work.Try(func() {
		defer work.RecoverAs("msa.stage1")
		p = computeClasses(procs)
	})
	return p, err
}

func (stage1Method) Decode(round int, data []byte) (part.Partial, error) {
	c, err := decodeClasses(data)
	if err != nil {
		return nil, work.Errorf("msa.stage1", "decoding classes: %v", err)
	}
	return c, nil
}

// Classes are processes grouped by identical call trees (Stage 1 of Weber's
// Table 5.9), the partial of Stage1Method: classes in order of their first
// member, members by their index in the trace.
type Classes struct {
	names   []string // the symbols' region names
	symHash []uint64 // hash of each name
	byName  map[string]int32
	cls     []treeClass
	byHash  map[uint64][]int32 // tree hash -> classes
}

// treeClass is one class: its call tree in pre-order (node 0 the root ε)
// and its members.
type treeClass struct {
	hash    uint64
	sym     []int32 // symbol of each node, -1 for ε
	end     []int32 // one past each node's subtree
	members []int32 // trace.Process.Index, ascending
}

var nameSeed = maphash.MakeSeed()

func newClasses() *Classes {
	return &Classes{byName: map[string]int32{}, byHash: map[uint64][]int32{}}
}

func (c *Classes) symbol(name string) int32 {
	s, ok := c.byName[name]
	if !ok {
		s = int32(len(c.names))
		c.names = append(c.names, name)
		c.symHash = append(c.symHash, maphash.String(nameSeed, name))
		c.byName[name] = s
	}
	return s
}

// hash mixes each node's region name with its children's hashes in order
// (as hashTree does with symbols), so that equal trees of different
// partials, whose symbols are numbered differently, hash alike. buf is
// scratch space, returned for reuse.
func (c *Classes) hash(sym, end []int32, buf []uint64) (uint64, []uint64) {
	n := len(sym)
	h := slices.Grow(buf[:0], n)[:n]
	for i := n - 1; i >= 0; i-- {
		acc := uint64(0x9e3779b97f4a7c15)
		if sym[i] >= 0 {
			acc ^= c.symHash[sym[i]]
		}
		for j := i + 1; j < int(end[i]); j = int(end[j]) {
			acc = bits.RotateLeft64(acc, 23) ^ h[j]
			acc *= 0xff51afd7ed558ccd
		}
		h[i] = mix.Mix64(acc ^ uint64(end[i]-int32(i)))
	}
	return h[0], h
}

// find returns the class of the tree (sym, end) with hash h, -1 if none.
func (c *Classes) find(h uint64, sym, end []int32) int32 {
	for _, k := range c.byHash[h] {
		if cl := &c.cls[k]; slices.Equal(cl.sym, sym) && slices.Equal(cl.end, end) {
			return k
		}
	}
	return -1
}

// add puts a tree with its members into its class, or into a new class.
func (c *Classes) add(h uint64, sym, end []int32, members []int32) {
	if k := c.find(h, sym, end); k >= 0 {
		cl := &c.cls[k]
		cl.members = append(cl.members, members...)
		slices.Sort(cl.members)
		return
	}
	c.byHash[h] = append(c.byHash[h], int32(len(c.cls)))
	c.cls = append(c.cls, treeClass{hash: h, sym: sym, end: end, members: members})
}

// sortClasses orders the classes by first member.
func (c *Classes) sortClasses() {
	slices.SortFunc(c.cls, func(x, y treeClass) int { return int(x.members[0]) - int(y.members[0]) })
	clear(c.byHash)
	for k, cl := range c.cls {
		c.byHash[cl.hash] = append(c.byHash[cl.hash], int32(k))
	}
}

// computeClasses groups procs by identical call trees. Only the first
// tree of each class is copied.
func computeClasses(procs []*trace.Process) *Classes {
	c := newClasses()
	symOf := map[*trace.Trace][]int32{} // region id -> symbol (-2: not yet named), per trace
	var sym []int32
	var hbuf []uint64
	for i, p := range procs {
		if i&255 == 255 {
			work.Check()
		}
		t := p.CallTree()
		ids := symOf[p.Trace]
		sym = slices.Grow(sym[:0], t.Len())[:t.Len()]
		for x, r := range t.Region {
			if r < 0 {
				sym[x] = -1
				continue
			}
			if int(r) >= len(ids) {
				k := len(ids)
				ids = slices.Grow(ids, int(r)+1-k)[:int(r)+1]
				for ; k < len(ids); k++ {
					ids[k] = -2
				}
				symOf[p.Trace] = ids
			}
			if ids[r] == -2 {
				ids[r] = c.symbol(p.RegionName(r))
			}
			sym[x] = ids[r]
		}
		var h uint64
		h, hbuf = c.hash(sym, t.End, hbuf)
		if k := c.find(h, sym, t.End); k >= 0 {
			c.cls[k].members = append(c.cls[k].members, int32(p.Index))
			continue
		}
		c.add(h, slices.Clone(sym), slices.Clone(t.End), []int32{int32(p.Index)})
	}
	for k := range c.cls {
		slices.Sort(c.cls[k].members)
	}
	c.sortClasses()
	return c
}

// Len returns the number of classes (distinct call trees).
func (c *Classes) Len() int { return len(c.cls) }

// Members returns the processes of class i by their index in the trace,
// ascending.
func (c *Classes) Members(i int) []int {
	if i < 0 || i >= len(c.cls) {
		fail("msa.Classes.Members", "class %d out of range (%d classes)", i, len(c.cls))
	}
	out := make([]int, len(c.cls[i].members))
	for k, m := range c.cls[i].members {
		out[k] = int(m)
	}
	return out
}

// Merge absorbs o, the classes of a disjoint subset of the processes, into
// c. A process in both is an error.
func (c *Classes) Merge(o part.Partial) error {
	d, ok := o.(*Classes)
	if !ok || d == nil {
		return part.Mismatch("msa.Classes", c, o)
	}
	have := map[int32]bool{}
	for _, cl := range c.cls {
		for _, m := range cl.members {
			have[m] = true
		}
	}
	for _, cl := range d.cls {
		for _, m := range cl.members {
			if have[m] {
				return work.Errorf("msa.Classes.Merge", "process %d is in both partials", m)
			}
		}
	}
	remap := make([]int32, len(d.names))
	for s, name := range d.names {
		remap[s] = c.symbol(name)
	}
	for _, cl := range d.cls {
		sym := make([]int32, len(cl.sym))
		for x, s := range cl.sym {
			sym[x] = s
			if s >= 0 {
				sym[x] = remap[s]
			}
		}
		// The hash is of names, not symbols: the same in both partials.
		c.add(cl.hash, sym, slices.Clone(cl.end), slices.Clone(cl.members))
	}
	c.sortClasses()
	return nil
}

// MarshalBinary encodes the classes canonically: whatever the merge order,
// symbols numbered in order of first appearance (classes in order, nodes
// in pre-order).
//
//	uv(version 1) uv(names) names, uv(classes), per class: uv(nodes),
//	per node uv(symbol+1) uv(subtree size), uv(members), member deltas
func (c *Classes) MarshalBinary() ([]byte, error) {
	canon := make([]int32, len(c.names))
	for i := range canon {
		canon[i] = -1
	}
	var names []string
	for _, cl := range c.cls {
		for _, s := range cl.sym {
			if s >= 0 && canon[s] < 0 {
				canon[s] = int32(len(names))
				names = append(names, c.names[s])
			}
		}
	}
	var e part.Enc
	e.Uint(stage1Version)
	e.Uint(uint64(len(names)))
	for _, n := range names {
		e.String(n)
	}
	e.Uint(uint64(len(c.cls)))
	for _, cl := range c.cls {
		e.Uint(uint64(len(cl.sym)))
		for x, s := range cl.sym {
			if s >= 0 {
				s = canon[s]
			}
			e.Uint(uint64(s + 1))
			e.Uint(uint64(cl.end[x] - int32(x)))
		}
		e.Uint(uint64(len(cl.members)))
		prev := int32(-1)
		for _, m := range cl.members {
			e.Uint(uint64(m - prev))
			prev = m
		}
	}
	return e.B, nil
}

// decodeClasses reads MarshalBinary's encoding, checking every tree's
// shape and that no process is in two classes.
func decodeClasses(data []byte) (*Classes, error) {
	d := part.NewDec(data)
	d.Version("Classes", stage1Version)
	c := newClasses()
	nn := d.Len(1)
	for range nn {
		name := d.String()
		if _, dup := c.byName[name]; dup && d.Err() == nil {
			d.Fail("region name %q twice", name)
		}
		c.symbol(name)
	}
	nc := d.Len(3)
	seen := map[int32]bool{}
	for range nc {
		if d.Err() != nil {
			break
		}
		n := d.Len(2)
		if n == 0 && d.Err() == nil {
			d.Fail("a class with an empty tree")
		}
		sym, end := make([]int32, n), make([]int32, n)
		var stack []int32
		for x := range n {
			s, size := d.Uint(), d.Uint()
			if d.Err() != nil {
				break
			}
			if s > uint64(nn) || (x == 0) != (s == 0) || size < 1 || size > uint64(n-x) {
				d.Fail("node %d: symbol %d, subtree of %d nodes (of %d names, %d nodes)", x, s, size, nn, n)
				break
			}
			sym[x], end[x] = int32(s)-1, int32(x)+int32(size)
			for len(stack) > 0 && end[stack[len(stack)-1]] <= int32(x) {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && end[x] > end[stack[len(stack)-1]] {
				d.Fail("node %d: its subtree ends after its parent's", x)
				break
			}
			stack = append(stack, int32(x))
		}
		if d.Err() == nil && end[0] != int32(n) {
			d.Fail("the root's subtree has %d of %d nodes", end[0], n)
		}
		nm := d.Len(1)
		if nm == 0 && d.Err() == nil {
			d.Fail("a class without members")
		}
		members := make([]int32, nm)
		prev := int64(-1)
		for k := range members {
			delta := d.Uint()
			if d.Err() != nil {
				break
			}
			if delta == 0 || delta > 1<<31 || prev+int64(delta) > 1<<31-1 {
				d.Fail("member delta %d", delta)
				break
			}
			prev += int64(delta)
			members[k] = int32(prev)
			if seen[members[k]] {
				d.Fail("process %d in two classes", prev)
				break
			}
			seen[members[k]] = true
		}
		if d.Err() != nil {
			break
		}
		h, _ := c.hash(sym, end, nil)
		c.cls = append(c.cls, treeClass{hash: h, sym: sym, end: end, members: members})
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	for k := 1; k < len(c.cls); k++ {
		if c.cls[k].members[0] <= c.cls[k-1].members[0] {
			return nil, fmt.Errorf("classes %d and %d are not in order of their first members", k-1, k)
		}
	}
	c.sortClasses()
	return c, nil
}

// String is the headline, e.g. "Stage 1: 16 processes in 3 classes of
// identical call trees".
func (c *Classes) String() string {
	n := 0
	for _, cl := range c.cls {
		n += len(cl.members)
	}
	return fmt.Sprintf("Stage 1: %s processes in %s classes of identical call trees", arrowio.FormatCount(int64(n)), arrowio.FormatCount(int64(len(c.cls))))
}

// Table returns one row per class: its processes (by index in the trace),
// their number, and the size of their call tree.
func (c *Classes) Table() *arrowio.Table {
	cls, size, nodes := make([]int32, len(c.cls)), make([]int64, len(c.cls)), make([]int64, len(c.cls))
	which := make([]string, len(c.cls))
	for k, cl := range c.cls {
		cls[k], size[k], nodes[k] = int32(k), int64(len(cl.members)), int64(len(cl.sym)-1)
		s := make([]string, len(cl.members))
		for i, m := range cl.members {
			s[i] = fmt.Sprint(m)
		}
		which[k] = strings.Join(s, ", ")
	}
	return arrowio.MustTable(arrowio.Int32("Class", cls), arrowio.Int64("Processes", size),
		arrowio.Int64("Calls", nodes), arrowio.String("Process Indexes", which))
}
