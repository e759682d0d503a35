package trace

import (
	"fmt"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// chromeItemLess orders the events of a thread: by ts; at equal ts X
// events first, longer first (an enclosing call before its children), then
// the others in file order; events with a level (WriteChrome's) in file
// order.
func chromeItemLess(a, b *chromeItem) int {
	if a.ts != b.ts {
		if a.ts < b.ts {
			return -1
		}
		return 1
	}
	ax, bx := a.ph == 'X', b.ph == 'X'
	if a.level >= 0 && b.level >= 0 {
		ax, bx = false, false // WriteChrome's events: in the order written
	}
	if ax != bx {
		if ax {
			return -1
		}
		return 1
	}
	if ax && a.dur != b.dur {
		if a.dur > b.dur {
			return -1
		}
		return 1
	}
	switch {
	case a.idx < b.idx:
		return -1
	case a.idx > b.idx:
		return 1
	}
	return 0
}

// chromeFrame is an open call of a thread.
type chromeFrame struct {
	region int32
	end    int64 // X: its end (ns, file time); B: -1
	item   int   // index of its B or X in the thread's items
	pos    int   // index of its Enter in the thread's events
}

// thread sorts t's events and turns them into the model's events of t.proc
// (times from offset), nesting B/E and X as the package doc says.
func (c *chromeReader) thread(t *chromeThread, offset int64) error {
	items := t.items
	less := func(a, b chromeItem) int { return chromeItemLess(&a, &b) }
	switch {
	case t.unsorted:
		slices.SortFunc(items, less) // stable: the file order is in the key
	case t.nScan < len(items): // the items read are in order: merge the messages in
		tail := items[t.nScan:]
		if !slices.IsSortedFunc(tail, less) {
			slices.SortFunc(tail, less)
		}
		if t.nScan > 0 && chromeItemLess(&items[t.nScan-1], &tail[0]) > 0 {
			merged := make([]chromeItem, 0, len(items))
			a, b := items[:t.nScan], tail
			for len(a) > 0 && len(b) > 0 {
				if chromeItemLess(&b[0], &a[0]) < 0 {
					merged, b = append(merged, b[0]), b[1:]
				} else {
					merged, a = append(merged, a[0]), a[1:]
				}
			}
			items = append(append(merged, a...), b...)
		}
	}
	n := 0
	for i := range items {
		n++
		if items[i].ph == 'X' {
			n++
		}
	}
	p := t.proc
	p.makeEvents(n)
	emit := func(k EventKind, ts int64, ref int32) { p.addEvent(k, ts-offset, ref) }
	var stack []chromeFrame
	var consumed map[int]bool // E events already applied by earlyEnd
	// closeX leaves the X calls on top of the stack that end before ts (or
	// at it, unless strict); down to level when it is not -1 (WriteChrome's
	// exact order of events of one ts)
	closeX := func(ts int64, strict bool, level int32) {
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			if level >= 0 {
				if len(stack) <= int(level) || f.end < 0 || f.end > ts {
					return
				}
			} else if f.end < 0 || f.end > ts || strict && f.end == ts {
				return
			}
			emit(Leave, f.end, f.region)
			stack = stack[:len(stack)-1]
		}
	}
	for i := range items {
		it := &items[i]
		if i&0xfffff == 0xfffff {
			if err := work.Err(); err != nil {
				return err
			}
		}
		switch it.ph {
		case 'X':
			closeX(it.ts, false, it.level)
			end := it.ts + it.dur
			if k := len(stack) - 1; k >= 0 && stack[k].end >= 0 && end > stack[k].end {
				end = stack[k].end
				c.clipped++
			}
			stack = append(stack, chromeFrame{region: it.ref, end: end, item: i, pos: len(p.Kind)})
			emit(Enter, it.ts, it.ref)
		case 'B':
			closeX(it.ts, false, it.level)
			stack = append(stack, chromeFrame{region: it.ref, end: -1, item: i, pos: len(p.Kind)})
			emit(Enter, it.ts, it.ref)
		case 'E':
			closeX(it.ts, false, -1)
			k := len(stack) - 1
			if k < 0 {
				return c.errAt(it.off, it.idx, fmt.Errorf("an E event on %s without a B event open (unbalanced B/E)", t.where()))
			}
			if consumed[i] {
				continue // its call was ended by an E of an enclosing call at the same ts
			}
			if j, moved, later := sameTimeEnd(stack, items, i); j >= 0 {
				// the E ends an enclosing B: the calls inside it whose E
				// events follow at its ts end first, and the calls begun at
				// its ts (moved, on top) begin after it
				if consumed == nil {
					consumed = map[int]bool{}
				}
				for _, e := range later {
					consumed[e] = true
				}
				pos := len(p.Kind)
				if moved < len(stack) {
					pos = stack[moved].pos
				}
				n := moved - j
				p.Kind = slices.Insert(p.Kind, pos, make([]EventKind, n)...)
				p.Time = slices.Insert(p.Time, pos, make([]int64, n)...)
				p.Ref = slices.Insert(p.Ref, pos, make([]int32, n)...)
				for q := 0; q < n; q++ { // innermost first
					p.Kind[pos+q], p.Time[pos+q], p.Ref[pos+q] = Leave, it.ts-offset, stack[moved-1-q].region
				}
				for m := moved; m < len(stack); m++ {
					stack[m].pos += n
				}
				stack = append(stack[:j], stack[moved:]...)
				c.reordered++
				continue
			}
			if f := stack[k]; f.end >= 0 {
				x := &items[f.item]
				return c.errAt(it.off, it.idx, fmt.Errorf("an E event on %s ends a B event while the X event %d (byte %d) begun inside it is still open (improperly nested)", t.where(), x.idx, x.off))
			}
			emit(Leave, it.ts, stack[k].region)
			b := &items[stack[k].item]
			stack = stack[:k]
			if k > 0 && stack[k-1].end >= 0 && stack[k-1].end < it.ts {
				x := &items[stack[k-1].item]
				return c.errAt(it.off, it.idx, fmt.Errorf("an E event on %s ends the B event %d (byte %d) after the end of the X event %d (byte %d) enclosing it (improperly nested)", t.where(), b.idx, b.off, x.idx, x.off))
			}
		default: // an instant of the model
			closeX(it.ts, true, it.level)
			emit(it.kind, it.ts, it.ref)
		}
	}
	closeX(1<<63-1, false, -1)
	for k := len(stack) - 1; k >= 0; k-- {
		if stack[k].end >= 0 { // an X under a B never ended
			b, x := &items[stack[len(stack)-1].item], &items[stack[k].item]
			return c.errAt(b.off, b.idx, fmt.Errorf("a B event on %s never ended inside the X event %d (byte %d) (improperly nested)", t.where(), x.idx, x.off))
		}
	}
	return nil
}

// sameTimeEnd finds the call that the named E event items[i] ends when it
// was written out of order among events of its ts: the innermost open B
// call j of its name, under (from the top of the stack) B calls begun at
// its ts (stack[moved:], which begin after it) and then B calls whose E
// events come later at its ts (stack[j+1:moved], which end before it; later
// are those E events). j is -1 when the E is not such an event, and ends
// the innermost call as usual.
func sameTimeEnd(stack []chromeFrame, items []chromeItem, i int) (j, moved int, later []int) {
	it := &items[i]
	k := len(stack) - 1
	if it.ref < 0 || k < 1 || stack[k].region == it.ref {
		return -1, 0, nil
	}
	j = k
	for j >= 0 && stack[j].region != it.ref {
		j--
	}
	if j < 0 || stack[j].end >= 0 {
		return -1, 0, nil
	}
	m := k
	for m > j && stack[m].end < 0 && items[stack[m].item].ts == it.ts {
		m--
	}
	for q := m; q > j; q-- {
		if stack[q].end >= 0 {
			return -1, 0, nil
		}
		found := -1
		for e := i + 1; e < len(items) && items[e].ts == it.ts; e++ {
			if items[e].ph == 'E' && items[e].ref == stack[q].region && !slices.Contains(later, e) {
				found = e
				break
			}
		}
		if found < 0 {
			return -1, 0, nil
		}
		later = append(later, found)
	}
	return j, m + 1, later
}

// where names the thread in errors: "pid 1 tid 2".
func (t *chromeThread) where() string {
	return fmt.Sprintf("pid %s tid %s", t.group.key, t.key)
}
