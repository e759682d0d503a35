package trace

import "testing"

func TestRankResolver(t *testing.T) {
	defs := &Definitions{
		Groups: []Group{
			{Type: "comm_locations", Members: []uint64{0, 1, 2, 3}},
			{Type: "comm_group", Members: []uint64{3, 1, 1 << 32}},
			{Type: "comm_self"},
		},
		Comms: []Comm{
			{Name: "world", Group: 0, Parent: -1},
			{Name: "sub", Group: 1, Parent: 0},
			{Name: "self", Group: 2, Parent: 0},
			{Name: "no group", Group: -1, Parent: -1},
			{Name: "bad group", Group: 7, Parent: -1},
		},
	}
	r := NewRankResolver(defs)
	for _, c := range []struct {
		name            string
		comm, peer, own int32
		want            int32
		ok              bool
	}{
		{"world rank", 0, 2, 0, 2, true},
		{"world rank past the group", 0, 4, 0, 4, false},
		{"comm_group member 0", 1, 0, 1, 3, true},
		{"comm_group member 1", 1, 1, 3, 1, true},
		{"comm_group member beyond int32", 1, 2, 0, 2, false},
		{"comm_group past the group", 1, 3, 0, 3, false},
		{"comm_self rank 0 is the issuer", 2, 0, 5, 5, true},
		{"comm_self rank 1", 2, 1, 5, 1, false},
		{"communicator without group", 3, 1, 0, 1, false},
		{"group index out of range", 4, 1, 0, 1, false},
		{"undefined communicator", 9, 1, 0, 1, false},
		{"negative communicator", -1, 1, 0, 1, false},
		{"negative peer", 0, -1, 0, -1, false},
	} {
		got, ok := r.Global(c.comm, c.peer, c.own)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: Global(%d, %d, %d) = %d, %v; want %d, %v", c.name, c.comm, c.peer, c.own, got, ok, c.want, c.ok)
		}
	}
	if got, ok := NewRankResolver(nil).Global(0, 3, 1); got != 3 || ok {
		t.Errorf("no definitions: Global = %d, %v; want 3, false", got, ok)
	}
}
