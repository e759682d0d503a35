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

// Local inverts Global; Size and Self read the communicator's group.
func TestRankResolverLocal(t *testing.T) {
	defs := &Definitions{
		Groups: []Group{
			{Type: "comm_locations", Members: []uint64{0, 1, 2, 3}},
			{Type: "comm_group", Members: []uint64{3, 1, 1 << 32}},
			{Type: "comm_self", Members: []uint64{0}},
		},
		Comms: []Comm{{Name: "world", Group: 0, Parent: -1}, {Name: "sub", Group: 1, Parent: 0},
			{Name: "self", Group: 2, Parent: 0}, {Name: "no group", Group: -1, Parent: -1}},
	}
	r := NewRankResolver(defs)
	for _, c := range []struct {
		name         string
		comm, global int32
		want         int32
	}{
		{"world", 0, 2, 2}, {"comm_group member", 1, 3, 0}, {"comm_group member 1", 1, 1, 1},
		{"no member of the comm_group", 1, 2, -1}, {"self", 2, 7, 0}, {"no group", 3, 5, 5}, {"undefined", 9, 5, 5},
	} {
		if got := r.Local(c.comm, c.global); got != c.want {
			t.Errorf("%s: Local(%d, %d) = %d, want %d", c.name, c.comm, c.global, got, c.want)
		}
		if c.want >= 0 && c.comm <= 1 {
			if g, ok := r.Global(c.comm, c.want, 0); !ok || g != c.global {
				t.Errorf("%s: Global(Local) = %d, %v; want %d", c.name, g, ok, c.global)
			}
		}
	}
	for comm, want := range []int{4, 3, 1, 0} {
		if got := r.Size(int32(comm)); got != want {
			t.Errorf("Size(%d) = %d, want %d", comm, got, want)
		}
	}
	if got := r.Size(9); got != 0 {
		t.Errorf("Size of an undefined communicator = %d", got)
	}
	for comm, want := range []bool{false, false, true, false} {
		if got := r.Self(int32(comm)); got != want {
			t.Errorf("Self(%d) = %v, want %v", comm, got, want)
		}
	}
}
