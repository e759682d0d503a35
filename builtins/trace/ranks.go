package trace

import (
	"fmt"
	"sync"
)

// RankResolver turns the Peer of a message record (the partner's rank in
// the record's communicator) into the partner's global rank, through the
// communicator's group:
//
//   - a "comm_group" lists, for each communicator rank, the rank in
//     MPI_COMM_WORLD: rank peer is Members[peer];
//   - a "comm_locations" group is MPI_COMM_WORLD itself: rank peer is peer
//     (when peer < len(Members));
//   - a "comm_self" group's rank 0 is the issuing location's own rank.
//
// A global rank is the location group (Process.Rank) of that number, as
// in the traces Score-P writes. When the communicator or the rank cannot be
// resolved (no definitions, an undefined communicator or one without a
// group, a rank outside its group, a negative peer), Global returns peer
// itself with ok false: tables in pipit's schema carry global ranks
// already and no communicator groups.
//
// A RankResolver is read-only after NewRankResolver and safe for
// concurrent use.
type RankResolver struct {
	comms []commRanks
}

type commRanks struct {
	ok, self, world bool
	members         []uint64
	invOnce         sync.Once
	inv             map[int32]int32 // a comm_group's global rank -> its rank in the communicator (Local)
}

// NewRankResolver prepares the resolution of every communicator of defs
// (nil: none resolves).
func NewRankResolver(defs *Definitions) *RankResolver {
	r := &RankResolver{}
	if defs == nil {
		return r
	}
	r.comms = make([]commRanks, len(defs.Comms))
	for i, c := range defs.Comms {
		if c.Group < 0 || int(c.Group) >= len(defs.Groups) {
			continue
		}
		g := &defs.Groups[c.Group]
		x := &r.comms[i]
		x.ok, x.self, x.world, x.members = true, g.Type == "comm_self", g.Type == "comm_locations", g.Members
	}
	return r
}

// Global returns the global rank of rank peer of communicator comm, as
// seen by a location of global rank own; ok is false when it falls back to
// peer (see RankResolver).
func (r *RankResolver) Global(comm, peer, own int32) (rank int32, ok bool) {
	if comm < 0 || int(comm) >= len(r.comms) || peer < 0 {
		return peer, false
	}
	c := &r.comms[comm]
	switch {
	case !c.ok:
	case c.self:
		if peer == 0 {
			return own, true
		}
	case c.world:
		if int(peer) < len(c.members) {
			return peer, true
		}
	case int(peer) < len(c.members) && c.members[peer] <= 1<<31-1:
		return int32(c.members[peer]), true
	}
	return peer, false
}

// Self reports whether comm is an MPI_COMM_SELF (its group is of type
// "comm_self"): every location has its own under this one definition, so
// its operations synchronise with no other location.
func (r *RankResolver) Self(comm int32) bool {
	return comm >= 0 && int(comm) < len(r.comms) && r.comms[comm].ok && r.comms[comm].self
}

// Size returns the number of members comm's group lists, 0 when the
// communicator or its group is unknown.
func (r *RankResolver) Size(comm int32) int {
	if comm < 0 || int(comm) >= len(r.comms) || !r.comms[comm].ok {
		return 0
	}
	return len(r.comms[comm].members)
}

// Local is the inverse of Global: the rank in communicator comm of the
// location of global rank global. It returns global itself for
// MPI_COMM_WORLD and when the communicator or its group is unknown (as
// Global does), 0 for MPI_COMM_SELF, and -1 for a global rank that is no
// member of a "comm_group".
func (r *RankResolver) Local(comm, global int32) int32 {
	if comm < 0 || int(comm) >= len(r.comms) {
		return global
	}
	c := &r.comms[comm]
	switch {
	case !c.ok || c.world:
		return global
	case c.self:
		return 0
	}
	c.invOnce.Do(func() {
		c.inv = make(map[int32]int32, len(c.members))
		for i, x := range c.members {
			if x <= 1<<31-1 {
				if _, dup := c.inv[int32(x)]; !dup {
					c.inv[int32(x)] = int32(i)
				}
			}
		}
	})
	if x, ok := c.inv[global]; ok {
		return x
	}
	return -1
}

// CommName returns the name of communicator c ("MPI_COMM_WORLD"), or "comm c" when the
// definitions do not name it.
func (d *Definitions) CommName(c int32) string {
	if d != nil && c >= 0 && int(c) < len(d.Comms) && d.Comms[c].Name != "" {
		return d.Comms[c].Name
	}
	return fmt.Sprintf("comm %d", c)
}
