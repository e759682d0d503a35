// Package p2p matches MPI point-to-point sends and receives (Knüpfer
// 3.4.5, 4.5.5, 5.5): the matcher core shared by ccg.Messages (driven from
// a graph's iterators) and profile.Messages (driven from a trace's event
// columns).
//
// MPI's non-overtaking rule makes the k-th send from rank a to rank b on
// communicator c with tag t match the k-th receive posted by b for
// (a, c, t). Run keeps one FIFO of pending events per (sender, receiver,
// communicator, tag) (eq. 4.33 keys them by issuer too; one list never
// holds both): an event takes the oldest pending partner, or is queued
// itself when there is none. The locations are visited in phases of h
// events each, round robin, so the pending events stay proportional to h
// (Fig. 5.34); the matches do not depend on h.
package p2p

import (
	"cmp"
	"slices"
)

// Event is one send or receive as the caller reads it from its location.
type Event struct {
	Send      bool  // true: a send (MpiSend, MpiIsend); false: a receive (MpiRecv, MpiIrecv)
	Peer      int32 // the partner's global rank
	Comm, Tag int32
	Bytes     int64
	Time      int64 // ns
}

// End is one side of a message: which location, its ordinal there among
// the location's sends and receives, its time and bytes.
type End struct {
	Loc   int32
	Seq   int64
	Time  int64
	Bytes int64
}

// Match is one matched message.
type Match struct {
	Comm, Tag  int32
	Send, Recv End
}

// Left is an event left without a partner.
type Left struct {
	End
	Send      bool
	Peer      int32 // the partner's global rank
	Comm, Tag int32
}

// Result is the outcome of Run besides the matches.
type Result struct {
	Matched    int64  // messages matched (calls of match)
	Pending    []Left // by location and order
	MaxPending int    // the largest number of events pending at once
	Events     int64  // events visited
}

// CompareSends is the order in which callers list matched messages: by
// send time, then sending location, then the send's ordinal there.
func CompareSends(aTime int64, aLoc int32, aSeq int64, bTime int64, bLoc int32, bSeq int64) int {
	switch {
	case aTime != bTime:
		return cmp.Compare(aTime, bTime)
	case aLoc != bLoc:
		return cmp.Compare(aLoc, bLoc)
	}
	return cmp.Compare(aSeq, bSeq)
}

// key is a pending list's key: sender, receiver, communicator and tag.
// One list serves both issuers (eq. 4.33 keeps two): it never holds sends
// and receives at once, since either would have matched the other.
type key struct {
	from, to, comm, tag int32
}

// fifo is a pending list: oldest first; sends tells what it holds.
type fifo struct {
	items []End
	head  int
	sends bool
}

func (q *fifo) push(p End) {
	if q.head > 0 && q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head >= 1024 && 2*q.head >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, p)
}

func (q *fifo) pop() (End, bool) {
	if q.head == len(q.items) {
		return End{}, false
	}
	p := q.items[q.head]
	q.head++
	return p, true
}

// Run matches the sends and receives of len(ranks) locations; ranks[i] is
// location i's global rank and next(i) returns location i's next send or
// receive (false: none left; next is not called again for i), and match
// is called with each message as it is matched (the caller keeps them in
// its own form and sorts them with CompareSends: a large run's messages
// are stored once). Phases take h >= 1 events per location.
func Run(ranks []int32, h int, next func(loc int) (Event, bool), match func(Match)) *Result {
	r := &Result{}
	lists := map[key]int32{} // index into fifos
	var fifos []fifo
	done := make([]bool, len(ranks))
	seqs := make([]int64, len(ranks))
	active := len(ranks)
	pending := 0
	for active > 0 {
		for i, own := range ranks {
			if done[i] {
				continue
			}
			for range h {
				e, ok := next(i)
				if !ok {
					done[i] = true
					active--
					break
				}
				here := End{Loc: int32(i), Seq: seqs[i], Time: e.Time, Bytes: e.Bytes}
				seqs[i]++
				r.Events++
				k := key{from: e.Peer, to: own, comm: e.Comm, tag: e.Tag}
				if e.Send {
					k = key{from: own, to: e.Peer, comm: e.Comm, tag: e.Tag}
				}
				qi, ok := lists[k]
				if !ok {
					qi = int32(len(fifos))
					fifos = append(fifos, fifo{})
					lists[k] = qi
				}
				q := &fifos[qi]
				if q.sends != e.Send {
					if p, ok := q.pop(); ok {
						pending--
						m := Match{Comm: e.Comm, Tag: e.Tag, Send: p, Recv: here}
						if e.Send {
							m.Send, m.Recv = here, p
						}
						r.Matched++
						match(m)
						continue
					}
					q.sends = e.Send // empty: now holds this issuer's events
				}
				q.push(here)
				pending++
				r.MaxPending = max(r.MaxPending, pending)
			}
		}
	}
	for k, qi := range lists {
		q := &fifos[qi]
		peer := k.from
		if q.sends {
			peer = k.to
		}
		for _, p := range q.items[q.head:] {
			r.Pending = append(r.Pending, Left{End: p, Send: q.sends, Peer: peer, Comm: k.comm, Tag: k.tag})
		}
	}
	slices.SortFunc(r.Pending, func(a, b Left) int {
		if a.Loc != b.Loc {
			return cmp.Compare(a.Loc, b.Loc)
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	return r
}
