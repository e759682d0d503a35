package plotting

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image/color"
	"math"
	"slices"
	"unsafe"
)

// The data of a LiveTimeline's view, bounded by its Budget.
//
// Bars are embedded per lane and call level as base64 of unsigned varints, delta-coded: for each
// bar, zigzag(start - end of the previous bar), end - start, label id (into a string table) and,
// at merged levels, the number of bars merged. If all bars fit in the budget (with messages,
// markers, shades and samples, which are bounded first), they are embedded exactly, as one level
// of resolution 0. Otherwise levels k = k0, k0+1, ... are embedded while they fit: level k holds
// the bars merged at the resolution span/(liveColumns*2^k) ns by the rule of mergeBars (a run of
// bars narrower than the resolution, with gaps under it, becomes one group at most one resolution
// wide, labelled by its longest member). k0 is 0 unless level 0 alone does not fit, then the
// first negative k that does. Each level is one pass over the bars (sorted once per lane and
// level), so building is O(n log n) for unsorted bars and O(n * levels) otherwise.

const (
	// liveColumns is the number of columns of merged level 0 (about a wide screen's pixels).
	liveColumns = 2000
	// liveMinLevel is the coarsest level tried when level 0 does not fit (span/(2000/2^11) ns).
	liveMinLevel = -11
	// Shares of the budget for the parts embedded before the bars.
	liveMessageShare = 4 // messages: at most Budget/4
	liveSampleShare  = 8 // counter samples: at most Budget/8
	liveMarkerShare  = 16
	liveShadeShare   = 32
	liveSampleCols   = 4000 // counter lanes keep the min and max of each of this many columns
)

// liveData is the JSON embedded in the view.
type liveData struct {
	Title  string     `json:"title"`
	T0     int64      `json:"t0"` // initial range
	T1     int64      `json:"t1"`
	Lo     int64      `json:"lo"` // data range (reset goes to the initial range)
	Hi     int64      `json:"hi"`
	Labels []string   `json:"labels"`
	Colors []string   `json:"colors"` // per label id, as the static Figure colours them
	Legend []int      `json:"legend"` // label ids in legend order (Fill labels, then by total time)
	Lanes  []liveLane `json:"lanes"`
	// Levels from coarsest to finest; Res 0 is full detail.
	Levels   []liveLevel `json:"levels"`
	Msgs     string      `json:"msgs"` // base64 varints: from, to, zigzag send delta, zigzag recv-send, zigzag bytes, zigzag tag, comm id
	NMsgs    int         `json:"nmsgs"`
	Comms    []string    `json:"comms"`
	Markers  [][4]any    `json:"markers"` // lane, start, end, label
	Shades   [][4]any    `json:"shades"`  // lane (-1 all), start, end, label
	Notes    []string    `json:"notes"`
	Embedded int         `json:"bytes"` // bytes of bar data embedded
}

type liveLane struct {
	Name    string    `json:"name"`
	Kind    int       `json:"kind"`
	Info    string    `json:"info,omitempty"`
	Unit    string    `json:"unit,omitempty"`
	Depth   int       `json:"depth"`             // call levels
	Samples []float64 `json:"samples,omitempty"` // t0, v0, t1, v1, ...
}

type liveLevel struct {
	Res  float64    `json:"res"`  // ns per column; 0 = exact bars
	Bars [][]string `json:"bars"` // per lane, per call level: base64 varints
	N    int        `json:"n"`    // bars in the level
}

// liveIndex is a LiveTimeline's bars sorted per lane and call level, with label ids.
type liveIndex struct {
	labels  []string
	ids     [][]int32   // per lane, per bar: label id
	depth   []int       // per lane: call levels
	order   [][][]int32 // per lane, per level: bar indices sorted by start; nil if the lane's bars are sorted
	nbars   int
	lo, hi  int64
	total   []float64 // per label id: total time
	filled  []int32   // label ids with a Fill, in order of first occurrence
	explict map[int32]color.Color
}

// barLanes reports whether lanes of kind k hold bars.
func barLane(k LaneKind) bool { return k != LaneCounter }

// index validates lt and sorts its bars; errors name the lane and bar.
func (lt *LiveTimeline) index() (*liveIndex, error) {
	ix := &liveIndex{lo: math.MaxInt64, hi: math.MinInt64, explict: map[int32]color.Color{}}
	ids := map[string]int32{}
	// Most labels are shared strings (one name table): a small cache keyed by the string's
	// data pointer saves hashing the name of every bar.
	type cached struct {
		p  *byte
		n  int
		id int32
	}
	var cache [256]cached
	for li := range lt.Lanes {
		l := &lt.Lanes[li]
		if !barLane(l.Kind) && len(l.Bars) > 0 {
			return nil, fmt.Errorf("lane %d (%q) is a counter lane with %d bars", li, l.Name, len(l.Bars))
		}
		lid := make([]int32, len(l.Bars))
		depth := 0
		sorted := true
		for bi := range l.Bars {
			b := &l.Bars[bi]
			if b.End < b.Start || b.Level < 0 {
				return nil, fmt.Errorf("lane %d (%q) bar %d: invalid bar [%d, %d] at level %d", li, l.Name, bi, b.Start, b.End, b.Level)
			}
			if bi > 0 && b.Start < l.Bars[bi-1].Start {
				sorted = false
			}
			p := unsafe.StringData(b.Label)
			c := &cache[(uintptr(unsafe.Pointer(p))>>3)&255]
			var id int32
			if c.p == p && c.n == len(b.Label) && p != nil {
				id = c.id
			} else {
				var ok bool
				id, ok = ids[b.Label]
				if !ok {
					id = int32(len(ix.labels))
					ids[b.Label] = id
					ix.labels = append(ix.labels, b.Label)
					ix.total = append(ix.total, 0)
				}
				*c = cached{p, len(b.Label), id}
			}
			lid[bi] = id
			ix.total[id] += float64(b.End - b.Start)
			if b.Fill != nil && b.Label != "" {
				if _, ok := ix.explict[id]; !ok {
					ix.explict[id] = b.Fill
					ix.filled = append(ix.filled, id)
				}
			}
			depth = max(depth, b.Level+1)
			ix.lo, ix.hi = min(ix.lo, b.Start), max(ix.hi, b.End)
		}
		if l.Kind == LaneFolded || l.Kind == LaneStates {
			depth = min(depth, 1) // drawn at level 0 over the lane
		}
		var order [][]int32
		if !sorted {
			counts := make([]int32, depth)
			for _, b := range l.Bars {
				counts[min(b.Level, depth-1)]++
			}
			order = make([][]int32, depth)
			for d := range order {
				order[d] = make([]int32, 0, counts[d])
			}
			for bi, b := range l.Bars {
				d := min(b.Level, depth-1)
				order[d] = append(order[d], int32(bi))
			}
			for _, o := range order {
				slices.SortStableFunc(o, func(a, b int32) int { return cmp.Compare(l.Bars[a].Start, l.Bars[b].Start) })
			}
		}
		ix.ids = append(ix.ids, lid)
		ix.order = append(ix.order, order)
		ix.depth = append(ix.depth, depth)
		ix.nbars += len(l.Bars)
		for _, s := range l.Samples {
			ix.lo, ix.hi = min(ix.lo, s.Time), max(ix.hi, s.Time)
		}
		interruptPoint()
	}
	for i, m := range lt.Messages {
		if m.From < 0 || m.From >= len(lt.Lanes) || m.To < 0 || m.To >= len(lt.Lanes) {
			return nil, fmt.Errorf("message %d: lane %d or %d out of range (%d lanes)", i, m.From, m.To, len(lt.Lanes))
		}
		ix.lo, ix.hi = min(ix.lo, m.Send, m.Recv), max(ix.hi, m.Send, m.Recv)
	}
	for i, m := range lt.Markers {
		if m.Lane < 0 || m.Lane >= len(lt.Lanes) || m.End < m.Start {
			return nil, fmt.Errorf("marker %d: lane %d or interval [%d, %d] invalid", i, m.Lane, m.Start, m.End)
		}
	}
	for i, s := range lt.Shades {
		if s.Lane >= len(lt.Lanes) || s.End < s.Start {
			return nil, fmt.Errorf("shade %d: lane %d or interval [%d, %d] invalid", i, s.Lane, s.Start, s.End)
		}
	}
	if ix.lo > ix.hi {
		ix.lo, ix.hi = 0, 1
	}
	if ix.hi == ix.lo {
		ix.hi = ix.lo + 1
	}
	return ix, nil
}

// colors returns the colour of each label id as Timeline colours the same bars (label hash
// into the palette, collisions moved by total time; a label's first Fill wins), and the label
// ids in the order of Timeline's legend (Fill labels first, then by total time); slot is each
// label's palette slot (-1 for a label with a Fill).
func (ix *liveIndex) colors() (cols []color.Color, slot []int, legend []int) {
	var labels []string
	byName := map[string]int{}
	for id, l := range ix.labels {
		byName[l] = id
		if _, ok := ix.explict[int32(id)]; !ok && l != "" {
			labels = append(labels, l)
		}
	}
	slots := legendSlots(labels, func(l string) float64 { return ix.total[byName[l]] }, len(categorical), false)
	cols, slot = make([]color.Color, len(ix.labels)), make([]int, len(ix.labels))
	for id, l := range ix.labels {
		if c, ok := ix.explict[int32(id)]; ok {
			cols[id], slot[id] = c, -1
		} else {
			cols[id], slot[id] = Categorical(slots[l]), slots[l]
		}
	}
	for _, id := range ix.filled {
		legend = append(legend, int(id))
	}
	for _, l := range labels {
		legend = append(legend, byName[l])
	}
	return cols, slot, legend
}

// liveGroup is a bar of a level: a bar or a group of merged bars.
type liveGroup struct {
	start, end int64
	longest    int64
	label      int32
	n          int32
	idx        int32 // index of the longest member
}

// merger merges the bars of one lane and level, given in order of start, at resolution res
// ns as mergeBars does at one pixel; res 0 keeps the bars as they are. Integer durations d
// compare with the real res as d < res ⟺ d < ceil(res) and d <= res ⟺ d <= floor(res).
type merger struct {
	lt, le int64 // ceil(res), floor(res); 0, -1 for res 0
	g      liveGroup
	have   bool
}

func newMerger(res float64) merger {
	if res <= 0 {
		return merger{lt: 0, le: -1}
	}
	return merger{lt: int64(math.Ceil(res)), le: int64(math.Floor(res))}
}

// add takes bar i; it returns the previous group and true when bar i starts a new group.
func (m *merger) add(b *LiveBar, id, i int32) (liveGroup, bool) {
	d := b.End - b.Start
	g := &m.g
	if m.have && d < m.lt && g.end-g.start < m.lt && b.Start-g.end < m.lt && max(g.end, b.End)-g.start <= m.le {
		g.end = max(g.end, b.End)
		if d > g.longest {
			g.longest, g.label, g.idx = d, id, i
		}
		g.n++
		return liveGroup{}, false
	}
	prev, had := m.g, m.have
	m.g = liveGroup{start: b.Start, end: b.End, longest: d, label: id, n: 1, idx: i}
	m.have = true
	return prev, had
}

// mergeLane merges the bars of lane li at resolution res, calling emit with each group and
// its level, in order of start within a level. A lane whose bars are sorted is walked once for
// all its levels.
func (ix *liveIndex) mergeLane(lt *LiveTimeline, li int, res float64, emit func(level int, g liveGroup)) {
	bars, ids, depth := lt.Lanes[li].Bars, ix.ids[li], ix.depth[li]
	ms := make([]merger, depth)
	for d := range ms {
		ms[d] = newMerger(res)
	}
	if order := ix.order[li]; order != nil {
		for d, o := range order {
			for _, i := range o {
				if g, ok := ms[d].add(&bars[i], ids[i], i); ok {
					emit(d, g)
				}
			}
		}
	} else {
		for i := range bars {
			d := min(bars[i].Level, depth-1)
			if g, ok := ms[d].add(&bars[i], ids[i], int32(i)); ok {
				emit(d, g)
			}
		}
	}
	for d := range ms {
		if ms[d].have {
			emit(d, ms[d].g)
		}
	}
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// level encodes all lanes at resolution res (0: exact, without counts); it stops and returns
// ok false when the size passes limit.
func (ix *liveIndex) level(lt *LiveTimeline, res float64, limit int) (lv liveLevel, size int, ok bool) {
	lv.Res = res
	var bufs [][]byte
	var prev []int64
	for li := range lt.Lanes {
		interruptPoint()
		depth := ix.depth[li]
		for len(bufs) < depth {
			bufs = append(bufs, nil)
			prev = append(prev, 0)
		}
		for d := 0; d < depth; d++ {
			bufs[d], prev[d] = bufs[d][:0], 0
		}
		ix.mergeLane(lt, li, res, func(d int, g liveGroup) {
			buf := bufs[d]
			buf = binary.AppendUvarint(buf, zigzag(g.start-prev[d]))
			buf = binary.AppendUvarint(buf, uint64(g.end-g.start))
			buf = binary.AppendUvarint(buf, uint64(g.label))
			if res > 0 {
				buf = binary.AppendUvarint(buf, uint64(g.n))
			}
			bufs[d] = buf
			prev[d] = g.end
			lv.N++
		})
		row := make([]string, depth)
		for d := range row {
			size += base64.StdEncoding.EncodedLen(len(bufs[d])) + 3
			if size > limit {
				return lv, size, false
			}
			row[d] = base64.StdEncoding.EncodeToString(bufs[d])
		}
		lv.Bars = append(lv.Bars, row)
	}
	return lv, size, true
}

// data builds what the view embeds.
func (lt *LiveTimeline) data() (*liveData, *liveIndex, error) {
	ix, err := lt.index()
	if err != nil {
		return nil, nil, err
	}
	budget := lt.Budget
	if budget <= 0 {
		budget = DefaultLiveBudget
	}
	d := &liveData{Title: lt.Title, Lo: ix.lo, Hi: ix.hi, T0: ix.lo, T1: ix.hi, Labels: ix.labels, Notes: append([]string{}, lt.Notes...), Comms: []string{}}
	if lt.End > lt.Start {
		d.T0, d.T1 = lt.Start, lt.End
	}
	cols, _, legend := ix.colors()
	for _, c := range cols {
		d.Colors = append(d.Colors, hexColor(c))
	}
	d.Legend = legend
	if d.Labels == nil {
		d.Labels = []string{}
	}
	used := 0
	// Counter samples: min and max per column when a lane has more than 2*liveSampleCols.
	sampleLimit := budget / liveSampleShare
	for li, l := range lt.Lanes {
		ll := liveLane{Name: l.Name, Kind: int(l.Kind), Info: l.Info, Unit: l.Unit, Depth: ix.depth[li]}
		if len(l.Samples) > 0 {
			ll.Samples = reduceSamples(l.Samples, ix.lo, ix.hi)
			if used+len(ll.Samples)*12 > sampleLimit {
				d.Notes = append(d.Notes, fmt.Sprintf("counter lane %q left out: over the bound of the counter data", l.Name))
				ll.Samples = nil
			} else if len(ll.Samples)/2 < len(l.Samples) {
				d.Notes = append(d.Notes, fmt.Sprintf("counter lane %q: %d samples reduced to the min and max of %d columns", l.Name, len(l.Samples), liveSampleCols))
			}
			for i := range ll.Samples {
				if math.IsNaN(ll.Samples[i]) || math.IsInf(ll.Samples[i], 0) {
					ll.Samples[i] = 0
				}
			}
			used += len(ll.Samples) * 12
		}
		used += len(l.Name) + len(l.Info) + 40
		d.Lanes = append(d.Lanes, ll)
	}
	used += d.encodeMessages(lt, budget/liveMessageShare)
	used += d.encodeMarks(lt, budget)
	for _, l := range d.Labels {
		used += len(l) + 12
	}
	// Bars.
	left := budget - used
	if 4*ix.nbars <= left { // a bar takes at least 3 bytes, 4 in base64
		if lv, size, ok := ix.level(lt, 0, left); ok { // it stops once past left
			d.Levels = []liveLevel{lv}
			d.Embedded = size
			d.Notes = append(d.Notes, fmt.Sprintf("all %d bars embedded exactly", ix.nbars))
			return d, ix, nil
		}
	}
	span := float64(ix.hi - ix.lo)
	k0, last := 0, 0 // last: the size of the finest level so far
	var levels []liveLevel
	for k := 0; k >= liveMinLevel; k-- {
		lv, size, ok := ix.level(lt, span/(liveColumns*math.Exp2(float64(k))), left)
		if ok {
			k0, last = k, size
			levels = append(levels, lv)
			left -= size
			d.Embedded += size
			break
		}
	}
	if len(levels) == 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("no bars embedded: even merged at %s per column they pass the budget of %d bytes", fmtNs(span/liveColumns*math.Exp2(-liveMinLevel)), budget))
		return d, ix, nil
	}
	for k := k0 + 1; ; k++ {
		res := span / (liveColumns * math.Exp2(float64(k)))
		if res < 1 {
			break
		}
		if left < last { // a finer level is not smaller
			break
		}
		lv, size, ok := ix.level(lt, res, left)
		if !ok {
			break
		}
		last = size
		levels = append(levels, lv)
		left -= size
		d.Embedded += size
		if lv.N == ix.nbars { // nothing merged any more
			break
		}
	}
	d.Levels = levels
	finest := levels[len(levels)-1].Res
	d.Notes = append(d.Notes, fmt.Sprintf("%d bars; levels to %s per column embedded (budget %d bytes); below that, bars are merged — use tr.Window(a, b).Timeline() for full detail", ix.nbars, fmtNs(finest), budget))
	return d, ix, nil
}

// reduceSamples flattens samples to t, v pairs, keeping at most the first, min and max sample
// of each of liveSampleCols columns when there are more than 2*liveSampleCols.
func reduceSamples(s []LiveSample, lo, hi int64) []float64 {
	out := make([]float64, 0, 2*min(len(s), 3*liveSampleCols))
	if len(s) <= 2*liveSampleCols {
		for _, x := range s {
			out = append(out, float64(x.Time), x.Value)
		}
		return out
	}
	w := float64(hi-lo) / liveSampleCols
	for i := 0; i < len(s); {
		col := math.Floor(float64(s[i].Time-lo) / w)
		j, mn, mx := i, i, i
		for j < len(s) && math.Floor(float64(s[j].Time-lo)/w) == col {
			if s[j].Value < s[mn].Value {
				mn = j
			}
			if s[j].Value > s[mx].Value {
				mx = j
			}
			j++
		}
		keep := []int{i, mn, mx}
		slices.Sort(keep)
		keep = slices.Compact(keep)
		for _, k := range keep {
			out = append(out, float64(s[k].Time), s[k].Value)
		}
		i = j
	}
	return out
}

// encodeMessages embeds the messages sorted by send time, one in k when they pass limit bytes;
// it returns the bytes used.
func (d *liveData) encodeMessages(lt *LiveTimeline, limit int) int {
	n := len(lt.Messages)
	if n == 0 {
		return 0
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(lt.Messages[a].Send, lt.Messages[b].Send) })
	stride := 1
	for {
		var buf []byte
		comms := map[string]int{}
		d.Comms = d.Comms[:0]
		var prev int64
		count := 0
		for i := 0; i < n; i += stride {
			m := lt.Messages[order[i]]
			c, ok := comms[m.Comm]
			if !ok {
				c = len(d.Comms)
				comms[m.Comm] = c
				d.Comms = append(d.Comms, m.Comm)
			}
			buf = binary.AppendUvarint(buf, uint64(m.From))
			buf = binary.AppendUvarint(buf, uint64(m.To))
			buf = binary.AppendUvarint(buf, zigzag(m.Send-prev))
			buf = binary.AppendUvarint(buf, zigzag(m.Recv-m.Send))
			buf = binary.AppendUvarint(buf, zigzag(m.Bytes))
			buf = binary.AppendUvarint(buf, zigzag(int64(m.Tag)))
			buf = binary.AppendUvarint(buf, uint64(c))
			prev = m.Send
			count++
			if base64.StdEncoding.EncodedLen(len(buf)) > limit {
				break
			}
		}
		if size := base64.StdEncoding.EncodedLen(len(buf)); size <= limit {
			d.Msgs, d.NMsgs = base64.StdEncoding.EncodeToString(buf), count
			if stride > 1 {
				d.Notes = append(d.Notes, fmt.Sprintf("messages: one in %d drawn (%d of %d), over the bound of the message data", stride, count, n))
			}
			size := len(d.Msgs)
			for _, c := range d.Comms {
				size += len(c) + 3
			}
			return size
		}
		stride *= 2
	}
}

// encodeMarks embeds markers and shades, one in k of each when they pass their share.
func (d *liveData) encodeMarks(lt *LiveTimeline, budget int) int {
	used := 0
	// label(i) sizes row i without making it: rows are made only for those kept.
	add := func(what string, n, limit int, label func(i int) string, row func(i int) [4]any) [][4]any {
		out := [][4]any{}
		size := 0
		for i := 0; i < n; i++ {
			size += 40 + len(label(i))
		}
		stride := 1
		for size/stride > limit {
			stride *= 2
		}
		for i := 0; i < n; i += stride {
			out = append(out, row(i))
		}
		if stride > 1 {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: one in %d drawn (%d of %d), over the bound of their data", what, stride, len(out), n))
		}
		used += size / stride
		return out
	}
	d.Markers = add("markers", len(lt.Markers), budget/liveMarkerShare, func(i int) string { return lt.Markers[i].Label }, func(i int) [4]any {
		m := lt.Markers[i]
		return [4]any{m.Lane, m.Start, m.End, m.Label}
	})
	d.Shades = add("shaded intervals", len(lt.Shades), budget/liveShadeShare, func(i int) string { return lt.Shades[i].Label }, func(i int) [4]any {
		s := lt.Shades[i]
		return [4]any{s.Lane, s.Start, s.End, s.Label}
	})
	return used
}

// fmtNs writes a duration in ns in the unit that suits it, chosen as the time axes choose theirs.
func fmtNs(ns float64) string {
	name, mult := Nanoseconds.display(0, ns)
	return fmt.Sprintf("%.3g %s", ns*mult, name)
}
