package otf2

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// specRecord is one line of testdata/otf2-spec/records.txt.
type specRecord struct {
	event bool
	typ   uint8
	name  string
	where string // global, local, both (definitions); singleton, sized (events)
	since string
}

func readSpec(t *testing.T) []specRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "otf2-spec", "records.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []specRecord
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			t.Fatalf("records.txt line %q", sc.Text())
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n > 255 {
			t.Fatalf("records.txt line %q", sc.Text())
		}
		out = append(out, specRecord{event: f[0] == "event", typ: uint8(n), name: f[2], where: f[3], since: strings.TrimPrefix(f[4], "since=")})
	}
	if len(out) < 100 {
		t.Fatalf("records.txt lists %d records", len(out))
	}
	return out
}

// TestKindsMatchSpec fails when a definition or event record kind of the
// OTF2 3.0 layout files is missing from the reader's names, or when the
// reader knows a kind the layout files do not define.
func TestKindsMatchSpec(t *testing.T) {
	spec := readSpec(t)
	inSpec := map[[2]any]bool{}
	for _, r := range spec {
		switch {
		case r.event:
			inSpec[[2]any{"event", r.typ}] = true
			if got := EventName(r.typ); got != r.name {
				t.Errorf("event %d: EventName %q, spec %q", r.typ, got, r.name)
			}
		default:
			if r.where != "local" {
				inSpec[[2]any{"global", r.typ}] = true
				if got := DefName(r.typ); got != r.name {
					t.Errorf("global definition %d: DefName %q, spec %q", r.typ, got, r.name)
				}
			}
			if r.where != "global" {
				if got := LocalDefName(r.typ); got != r.name {
					t.Errorf("local definition %d: LocalDefName %q, spec %q", r.typ, got, r.name)
				}
			}
		}
	}
	for _, k := range GlobalDefKinds() {
		if !inSpec[[2]any{"global", k}] {
			t.Errorf("DefName knows %d %s, not in the spec", k, DefName(k))
		}
	}
	for _, k := range EventKinds() {
		if !inSpec[[2]any{"event", k}] {
			t.Errorf("EventName knows %d %s, not in the spec", k, EventName(k))
		}
	}
}

// TestEventFramingMatchesSpec writes each event kind of the spec between
// two known events: a singleton record (no record length, one compressed
// value) or a sized record of 40 bytes, then a Leave. The reader must
// deliver both and find the Leave intact, so it frames every kind as the
// spec does.
func TestEventFramingMatchesSpec(t *testing.T) {
	for _, r := range readSpec(t) {
		if !r.event {
			continue
		}
		var record []byte
		if r.where == "singleton" {
			record = cat([]byte{r.typ}, cu(5))
		} else {
			record = rec(r.typ, bytes.Repeat([]byte{1, 0}, 20))
		}
		data := chunkFile(cat(timestamp(1), record, timestamp(2), []byte{EvLeave}, cu(3)))
		type ev struct {
			typ    uint8
			time   uint64
			region uint32
		}
		var got []ev
		n, err := readEvents("x.evt", bytes.NewReader(data), 1<<18, &LocalDefs{}, func(e *Event) error {
			got = append(got, ev{e.Type, e.Time, e.Region})
			return nil
		})
		if err != nil {
			t.Errorf("%s (%s): %v", r.name, r.where, err)
			continue
		}
		if n != 2 || got[0].typ != r.typ || got[0].time != 1 || got[1] != (ev{EvLeave, 2, 3}) {
			t.Errorf("%s (%s): events %+v", r.name, r.where, got)
		}
	}
}

// TestDefinitionFramingMatchesSpec does the same for every global
// definition kind: a record of the kind with 40 bytes that the reader
// either decodes or skips, followed by a String definition that must be
// read intact. Kinds the reader does not model are counted in Skipped.
func TestDefinitionFramingMatchesSpec(t *testing.T) {
	for _, r := range readSpec(t) {
		if r.event || r.where == "local" {
			continue
		}
		payload := bytes.Repeat([]byte{1, 0}, 20)
		if r.typ == defString {
			payload = cat(cu(9), str("abc"))
		}
		data := chunkFile(rec(r.typ, payload), rec(defString, cu(7), str("after")))
		g, err := readGlobalDefs("x.def", bytes.NewReader(data), 1<<18)
		if err != nil {
			t.Errorf("%s: %v", r.name, err)
			continue
		}
		want := int64(1)
		if r.typ == defString {
			want = 2
		}
		if g.Strings[7] != "after" || g.Counts[r.name] != want {
			t.Errorf("%s: strings %v counts %v", r.name, g.Strings, g.Counts)
		}
	}
}
