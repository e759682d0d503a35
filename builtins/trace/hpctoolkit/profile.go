package hpctoolkit

import "io"

// Profile is one profile of profile.db: an application thread (or GPU
// stream), or a summary across threads.
type Profile struct {
	Summary bool // a summary profile (the first is always the canonical summary)
	IDs     []ID // its hierarchical identifier tuple, largest first (node, rank, thread)
}

// ID is one identification of a hierarchical identifier tuple.
type ID struct {
	Kind       uint8 // index into Meta.IDNames
	IsPhysical bool  // PhysicalID identifies it (else LogicalID does)
	LogicalID  uint32
	PhysicalID uint64
}

// ReadProfiles reads the profile list of the profile.db file name, with
// each profile's identifier tuple.
func ReadProfiles(name string) ([]Profile, error) {
	f, size, err := openFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readProfiles(name, f, size)
}

func readProfiles(name string, f io.ReaderAt, size int64) (ps []Profile, err error) {
	h, err := readHeader(name, f, size, "prof", profileFooter, 2)
	if err != nil {
		return nil, err
	}
	info, tuples := h.Sections[0], h.Sections[1]
	si, err := readSection(name, f, info)
	if err != nil {
		return nil, err
	}
	st, err := readSection(name, f, tuples)
	if err != nil {
		return nil, err
	}
	defer catch(&err)
	if info.Size == 0 {
		return nil, nil
	}
	p := si.u64(info.Pointer, "pProfiles")
	n := uint64(si.u32(info.Pointer+8, "nProfiles"))
	sz := uint64(si.u8(info.Pointer+0xc, "szProfile"))
	if n > 0 && sz < 0x2c {
		si.fail(int64(info.Pointer+0xc), "szProfile %d is smaller than 44", sz)
	}
	si.at(p, int(min(n*sz, info.Size+1)), "profile descriptions")
	ps = make([]Profile, n)
	for i := range ps {
		o := p + uint64(i)*sz
		ps[i].Summary = si.u32(o+0x28, "flags")&1 != 0
		t := si.u64(o+0x20, "pIdTuple")
		if t == 0 {
			continue
		}
		nIDs := uint64(st.u16(t, "nIds"))
		st.at(t+8, int(16*nIDs), "identifier tuple")
		ps[i].IDs = make([]ID, nIDs)
		for j := range ps[i].IDs {
			q := t + 8 + 16*uint64(j)
			ps[i].IDs[j] = ID{Kind: st.u8(q, "kind"), IsPhysical: st.u16(q+2, "flags")&1 != 0,
				LogicalID: st.u32(q+4, "logicalId"), PhysicalID: st.u64(q+8, "physicalId")}
		}
	}
	return ps, nil
}
