package trace

import "fmt"

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
		r.comms[i] = commRanks{ok: true, self: g.Type == "comm_self", world: g.Type == "comm_locations", members: g.Members}
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

// CommName returns the name of communicator c ("MPI_COMM_WORLD"), or "comm c" when the
// definitions do not name it.
func (d *Definitions) CommName(c int32) string {
	if d != nil && c >= 0 && int(c) < len(d.Comms) && d.Comms[c].Name != "" {
		return d.Comms[c].Name
	}
	return fmt.Sprintf("comm %d", c)
}
