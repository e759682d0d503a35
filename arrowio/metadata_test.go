package arrowio

import (
	"path/filepath"
	"testing"
)

func TestMetadataSurvivesParquetAndIPC(t *testing.T) {
	tb := MustTable(Int64("x", []int64{1, 2, 3}), Dict("s", []string{"a", "b", "a"})).WithMetadata(map[string]string{"k": "v1"})
	tb = tb.WithMetadata(map[string]string{"k": "v", "other": "w"})
	for _, ext := range []string{"parquet", "arrow"} {
		p := filepath.Join(t.TempDir(), "m."+ext)
		if err := write(p, tb); err != nil {
			t.Fatal(err)
		}
		back, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := back.Metadata("k"); !ok || v != "v" {
			t.Fatalf("%s: k = %q, %v", ext, v, ok)
		}
		if v, ok := back.Metadata("other"); !ok || v != "w" {
			t.Fatalf("%s: other = %q, %v", ext, v, ok)
		}
		if back.NumRows() != 3 {
			t.Fatalf("%s: %d rows", ext, back.NumRows())
		}
	}
	if _, ok := MustTable(Int64("x", nil)).Metadata("k"); ok {
		t.Fatal("metadata on a plain table")
	}
}
