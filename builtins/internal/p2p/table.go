package p2p

import (
	"slices"

	"github.com/tracebook/tracebook/arrowio"
)

// Table is the one table of matched messages, shared by ccg.Messages and
// profile.Messages so that the two have the same columns, types and units
// (docs/surface.md): Sender and Receiver (global ranks, Int32), Send
// Process and Recv Process (location names, dictionary), Comm (its name,
// dictionary), Tag (Int32), Bytes (B) (the send's), Send (ns), Recv Posted
// (ns), Recv (ns) (times of the send, of the receive's posting and of its
// completion: time points, shown exactly, so without the unit metadata
// that arrowio renders as durations) and Latency (ns) (receive completion
// minus send, unit ns).
type Table struct {
	SendLoc, RecvLoc            []int32 // per message: the locations, indices into Ranks and Names
	Comm, Tag                   []int32
	Bytes, Send, RecvPost, Recv []int64

	Ranks    []int32  // the global rank of each location
	Names    []string // the name of each location
	CommName func(comm int32) string
}

// Columns of Table, in order.
var TableColumns = []string{"Sender", "Receiver", "Send Process", "Recv Process", "Comm", "Tag", "Bytes (B)",
	"Send (ns)", "Recv Posted (ns)", "Recv (ns)", "Latency (ns)"}

// Build returns the table of the first n messages.
func (t Table) Build(n int) *arrowio.Table {
	m := t
	from, to, lat := make([]int32, n), make([]int32, n), make([]int64, n)
	comm := make([]int32, n)
	code := map[int32]int32{}
	var names []string
	for i := range n {
		from[i], to[i] = t.Ranks[m.SendLoc[i]], t.Ranks[m.RecvLoc[i]]
		lat[i] = m.Recv[i] - m.Send[i]
		c, ok := code[m.Comm[i]]
		if !ok {
			c = int32(len(names))
			code[m.Comm[i]] = c
			names = append(names, t.CommName(m.Comm[i]))
		}
		comm[i] = c
	}
	c := TableColumns
	return arrowio.MustTable(arrowio.Int32(c[0], from), arrowio.Int32(c[1], to),
		arrowio.DictCodes(c[2], slices.Clone(m.SendLoc[:n]), nil, t.Names),
		arrowio.DictCodes(c[3], slices.Clone(m.RecvLoc[:n]), nil, t.Names),
		arrowio.DictCodes(c[4], comm, nil, names),
		arrowio.Int32(c[5], slices.Clone(m.Tag[:n])),
		arrowio.Int64(c[6], slices.Clone(m.Bytes[:n])).WithUnit("B"),
		arrowio.Int64(c[7], slices.Clone(m.Send[:n])),
		arrowio.Int64(c[8], slices.Clone(m.RecvPost[:n])),
		arrowio.Int64(c[9], slices.Clone(m.Recv[:n])),
		arrowio.Int64(c[10], lat).WithUnit("ns"))
}
