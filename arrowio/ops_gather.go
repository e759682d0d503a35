package arrowio

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// opChunk is the number of rows an operation processes between two looks at its job (a few
// milliseconds of work).
const opChunk = 1 << 16

// gather returns the rows idx of a, in that order; a negative index gives a null row. The
// common column types are gathered here, in chunks that look at the job; the others by
// arrow-go's Take kernel.
func gather(j *opJob, a arrow.Array, idx []int32) arrow.Array {
	switch a := a.(type) {
	case *array.Int64:
		return gatherFixed(j, a, a.Int64Values(), idx)
	case *array.Int32:
		return gatherFixed(j, a, a.Int32Values(), idx)
	case *array.Float64:
		return gatherFixed(j, a, a.Float64Values(), idx)
	case *array.Boolean:
		return gatherBool(j, a, idx)
	case *array.String:
		return gatherString(j, a, idx)
	case *array.Dictionary:
		if ind, ok := a.Indices().(*array.Int32); ok {
			ix := gatherFixed(j, ind, ind.Int32Values(), idx)
			defer ix.Release()
			return array.NewDictionaryArray(a.DataType().(*arrow.DictionaryType), ix, a.Dictionary())
		}
	}
	return gatherTake(j, a, idx)
}

// validityOf returns the validity bitmap of the gathered rows and the null count; nil if none
// is null.
func validityOf(a arrow.Array, idx []int32) (*memory.Buffer, int) {
	nulls := 0
	hasNulls := a.NullN() > 0
	for _, i := range idx {
		if i < 0 || hasNulls && a.IsNull(int(i)) {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	bits := make([]byte, bitutil.BytesForBits(int64(len(idx))))
	for k, i := range idx {
		if i >= 0 && (!hasNulls || a.IsValid(int(i))) {
			bitutil.SetBit(bits, k)
		}
	}
	return memory.NewBufferBytes(bits), nulls
}

// wrap makes an array of type dt and n rows over buffers that Go slices already hold (no copy):
// the validity bitmap (nil: no nulls) and the value buffers.
func wrap(dt arrow.DataType, n int, valid *memory.Buffer, nulls int, values ...[]byte) arrow.Array {
	bufs := []*memory.Buffer{valid}
	for _, v := range values {
		bufs = append(bufs, memory.NewBufferBytes(v))
	}
	data := array.NewData(dt, n, bufs, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// bitmap returns the validity bitmap of valid (false: null) and the null count; nil if no row
// is null.
func bitmap(valid []bool) (*memory.Buffer, int) {
	nulls := 0
	for _, v := range valid {
		if !v {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	bits := make([]byte, bitutil.BytesForBits(int64(len(valid))))
	for k, v := range valid {
		if v {
			bitutil.SetBit(bits, k)
		}
	}
	return memory.NewBufferBytes(bits), nulls
}

func gatherFixed[T int32 | int64 | float64](j *opJob, a arrow.Array, vals []T, idx []int32) arrow.Array {
	out := make([]T, len(idx))
	for lo := 0; lo < len(idx); lo += opChunk {
		hi := min(lo+opChunk, len(idx))
		for k, i := range idx[lo:hi] {
			if i >= 0 {
				out[lo+k] = vals[i]
			}
		}
		j.step(hi - lo)
	}
	valid, nulls := validityOf(a, idx)
	return wrap(a.DataType(), len(idx), valid, nulls, arrow.GetBytes(out))
}

func gatherBool(j *opJob, a *array.Boolean, idx []int32) arrow.Array {
	bits := make([]byte, bitutil.BytesForBits(int64(len(idx))))
	for lo := 0; lo < len(idx); lo += opChunk {
		hi := min(lo+opChunk, len(idx))
		for k, i := range idx[lo:hi] {
			if i >= 0 && a.Value(int(i)) {
				bitutil.SetBit(bits, lo+k)
			}
		}
		j.step(hi - lo)
	}
	valid, nulls := validityOf(a, idx)
	return wrap(a.DataType(), len(idx), valid, nulls, bits)
}

func gatherString(j *opJob, a *array.String, idx []int32) arrow.Array {
	total := 0
	for _, i := range idx {
		if i >= 0 {
			total += a.ValueLen(int(i))
		}
	}
	if total > math.MaxInt32 {
		return gatherTake(j, a, idx) // needs large offsets: let Take report it
	}
	offs := make([]int32, len(idx)+1)
	data := make([]byte, 0, total)
	for lo := 0; lo < len(idx); lo += opChunk {
		hi := min(lo+opChunk, len(idx))
		for k, i := range idx[lo:hi] {
			if i >= 0 {
				data = append(data, a.Value(int(i))...)
			}
			offs[lo+k+1] = int32(len(data))
		}
		j.step(hi - lo)
	}
	valid, nulls := validityOf(a, idx)
	return wrap(a.DataType(), len(idx), valid, nulls, arrow.GetBytes(offs), data)
}

// gatherTake gathers with arrow-go's Take kernel, chunk by chunk, for the column types that
// gather does not handle itself.
func gatherTake(j *opJob, a arrow.Array, idx []int32) arrow.Array {
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	const chunk = 1 << 20
	for lo := 0; lo < len(idx) || lo == 0; lo += chunk {
		hi := min(lo+chunk, len(idx))
		valid := make([]bool, hi-lo)
		for k, i := range idx[lo:hi] {
			valid[k] = i >= 0
		}
		b := array.NewInt32Builder(mem)
		b.AppendValues(idx[lo:hi], valid)
		ix := b.NewArray()
		b.Release()
		p, err := compute.TakeArray(context.Background(), a, ix)
		ix.Release()
		if err != nil {
			opFail(j.op, "", "gathering a %s column: %v", a.DataType(), err)
		}
		parts = append(parts, p)
		j.step(hi - lo)
		if hi == len(idx) {
			break
		}
	}
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0]
	}
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		opFail(j.op, "", "gathering a %s column: %v", a.DataType(), err)
	}
	return out
}

// gatherTable gathers the rows idx of every column of t, keeping the schema; big tables on
// two cores, a column at a time each.
func gatherTable(j *opJob, t *Table, idx []int32) *Table {
	rec := t.record()
	cols := make([]arrow.Array, rec.NumCols())
	workers := 1
	if len(idx) >= 1<<16 && len(cols) > 1 {
		workers = min(2, runtime.GOMAXPROCS(0))
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failure any // the first panic of a worker (an interrupt), re-raised here
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return failure != nil }
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if failure == nil {
						failure = r
					}
					mu.Unlock()
				}
			}()
			for c := int(next.Add(1) - 1); c < len(cols) && !failed(); c = int(next.Add(1) - 1) {
				cols[c] = gather(j, rec.Column(c), idx)
			}
		}()
	}
	wg.Wait()
	for _, c := range cols {
		if c != nil {
			defer c.Release()
		}
	}
	if failure != nil {
		panic(failure)
	}
	return &Table{rec: array.NewRecordBatch(rec.Schema(), cols, int64(len(idx)))}
}
