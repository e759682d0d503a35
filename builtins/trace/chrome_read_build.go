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
			stack = append(stack, chromeFrame{region: it.ref, end: end, item: i})
			emit(Enter, it.ts, it.ref)
		case 'B':
			closeX(it.ts, false)
			stack = append(stack, chromeFrame{region: it.ref, end: -1, item: i})
			emit(Enter, it.ts, it.ref)
		case 'E':
			closeX(it.ts, false)
			k := len(stack) - 1
			if k < 0 {
				return c.errAt(it.off, it.idx, fmt.Errorf("an E event on %s without a B event open (unbalanced B/E)", t.where()))
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

// where names the thread in errors: "pid 1 tid 2".
func (t *chromeThread) where() string {
	return fmt.Sprintf("pid %s tid %s", t.group.key, t.key)
}
