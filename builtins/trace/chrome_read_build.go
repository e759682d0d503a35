package trace

import (
	"fmt"
	"slices"

	"github.com/tracebook/tracebook/builtins/work"
)

// chromeItemLess orders the events of a thread: by ts; at equal ts X
// events first, longer first (an enclosing call before its children), then
// the others in file order.
func chromeItemLess(a, b *chromeItem) int {
	if a.ts != b.ts {
		if a.ts < b.ts {
			return -1
		}
		return 1
	}
	ax, bx := a.ph == 'X', b.ph == 'X'
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
	p.Kind, p.Time, p.Ref = make([]EventKind, 0, n), make([]int64, 0, n), make([]int32, 0, n)
	emit := func(k EventKind, ts int64, ref int32) {
		p.Kind = append(p.Kind, k)
		p.Time = append(p.Time, ts-offset)
		p.Ref = append(p.Ref, ref)
	}
	var stack []chromeFrame
	var consumed map[int]bool // E events already applied by earlyEnd
	// closeX leaves the X calls on top of the stack that end before ts (or
	// at it, unless strict)
	closeX := func(ts int64, strict bool) {
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			if f.end < 0 || f.end > ts || strict && f.end == ts {
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
			closeX(it.ts, false)
			end := it.ts + it.dur
			if k := len(stack) - 1; k >= 0 && stack[k].end >= 0 && end > stack[k].end {
				end = stack[k].end
				c.clipped++
			}
			stack = append(stack, chromeFrame{region: it.ref, end: end, item: i, pos: len(p.Kind)})
			emit(Enter, it.ts, it.ref)
		case 'B':
			closeX(it.ts, false)
			stack = append(stack, chromeFrame{region: it.ref, end: -1, item: i, pos: len(p.Kind)})
			emit(Enter, it.ts, it.ref)
		case 'E':
			closeX(it.ts, false)
			k := len(stack) - 1
			if k < 0 {
				return c.errAt(it.off, it.idx, fmt.Errorf("an E event on %s without a B event open (unbalanced B/E)", t.where()))
			}
			if consumed[i] {
				continue // its call was ended by an E of an enclosing call at the same ts
			}
			if j, later := earlyEnd(stack, items, i); j >= 0 {
				// the E ends an enclosing B, before the E events of the calls
				// inside it that come later at the same ts: it ends those first
				if consumed == nil {
					consumed = map[int]bool{}
				}
				for _, e := range later {
					consumed[e] = true
				}
				for m := len(stack) - 1; m >= j; m-- {
					emit(Leave, it.ts, stack[m].region)
				}
				stack = stack[:j]
				c.reordered++
				continue
			}
			if j := reorderedEnd(stack, items, it); j >= 0 {
				// the E ends an enclosing B, after B events begun at its
				// own ts: it ends its call before them
				pos := stack[j+1].pos
				p.Kind = slices.Insert(p.Kind, pos, Leave)
				p.Time = slices.Insert(p.Time, pos, it.ts-offset)
				p.Ref = slices.Insert(p.Ref, pos, stack[j].region)
				for m := j + 1; m < len(stack); m++ {
					stack[m].pos++
				}
				stack = slices.Delete(stack, j, j+1)
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
			closeX(it.ts, true)
			emit(it.kind, it.ts, it.ref)
		}
	}
	closeX(1<<63-1, false)
	for k := len(stack) - 1; k >= 0; k-- {
		if stack[k].end >= 0 { // an X under a B never ended
			b, x := &items[stack[len(stack)-1].item], &items[stack[k].item]
			return c.errAt(b.off, b.idx, fmt.Errorf("a B event on %s never ended inside the X event %d (byte %d) (improperly nested)", t.where(), x.idx, x.off))
		}
	}
	return nil
}

// earlyEnd returns the open call that the named E event items[i] ends when
// the calls inside that call are all B calls ended by E events that come
// later at the same ts (written after it out of order), with those E
// events' indices; -1 when it does not.
func earlyEnd(stack []chromeFrame, items []chromeItem, i int) (int, []int) {
	it := &items[i]
	k := len(stack) - 1
	if it.ref < 0 || k < 1 || stack[k].region == it.ref {
		return -1, nil
	}
	j := k
	for j >= 0 && stack[j].region != it.ref {
		j--
	}
	if j < 0 || stack[j].end >= 0 {
		return -1, nil
	}
	var later []int
	for m := k; m > j; m-- {
		if stack[m].end >= 0 {
			return -1, nil
		}
		found := -1
		for e := i + 1; e < len(items) && items[e].ts == it.ts; e++ {
			if items[e].ph == 'E' && items[e].ref == stack[m].region && !slices.Contains(later, e) {
				found = e
				break
			}
		}
		if found < 0 {
			return -1, nil
		}
		later = append(later, found)
	}
	return j, later
}

// reorderedEnd returns the open call that the named E event it ends when
// it is written after B events begun at its own ts: the innermost B of its
// name under B calls that all begun at its ts, none of its name; -1 when it
// ends the innermost call as usual. Events of one timestamp come in any
// order in some files (pipit's to_chrome sorts them unstably by time).
func reorderedEnd(stack []chromeFrame, items []chromeItem, it *chromeItem) int {
	k := len(stack) - 1
	if it.ref < 0 || k < 1 || stack[k].region == it.ref {
		return -1
	}
	j := k
	for j >= 0 && stack[j].end < 0 && stack[j].region != it.ref && items[stack[j].item].ts == it.ts {
		j--
	}
	if j < 0 || j == k || stack[j].end >= 0 || stack[j].region != it.ref {
		return -1
	}
	return j
}

// where names the thread in errors: "pid 1 tid 2".
func (t *chromeThread) where() string {
	return fmt.Sprintf("pid %s tid %s", t.group.key, t.key)
}
