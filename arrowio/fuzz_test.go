package arrowio

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/Fuzz*/ and run with every `go test`; regenerate the
// generated seeds with `go test -run TestWriteFuzzSeeds -update-seeds`.
var updateSeeds = flag.Bool("update-seeds", false, "rewrite the generated fuzz seeds in testdata/fuzz")

func readBytes(t *testing.T, data []byte, ext string, read func(string) (*Table, error)) (*Table, error) {
	path := filepath.Join(t.TempDir(), "in"+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return read(path)
}

// FuzzReadCSV checks that ReadCSV never panics and that what it reads survives a write and a
// second read unchanged (same names, types and values).
func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("a,b\n1,x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := readBytes(t, data, ".csv", ReadCSV)
		if err != nil {
			return
		}
		path := filepath.Join(t.TempDir(), "again.csv")
		if err := writeCSV(path, tb); err != nil {
			if errors.Is(err, ErrCSVLineEnd) {
				return // refused, not changed: see TestCSVLineEndRefused
			}
			t.Fatalf("writing what was read: %v", err)
		}
		again, err := ReadCSV(path)
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		if !reflect.DeepEqual(tb.ColumnNames(), again.ColumnNames()) || tb.NumRows() != again.NumRows() {
			t.Fatalf("shape changed: %q %d -> %q %d", tb.ColumnNames(), tb.NumRows(), again.ColumnNames(), again.NumRows())
		}
		for i, fd := range tb.Schema().Fields() {
			if g := again.Schema().Field(i).Type; !reflect.DeepEqual(g, fd.Type) {
				t.Fatalf("column %q: type %s -> %s", fd.Name, fd.Type, g)
			}
			a, b := colValues(t, tb, fd.Name), colValues(t, again, fd.Name)
			for j := range a {
				fa, okA := a[j].(float64)
				fb, okB := b[j].(float64)
				if okA && okB && math.IsNaN(fa) && math.IsNaN(fb) {
					continue
				}
				if !reflect.DeepEqual(a[j], b[j]) {
					t.Fatalf("column %q row %d: %#v -> %#v", fd.Name, j, a[j], b[j])
				}
			}
		}
		_ = tb.String()
		_ = tb.HTML()
	})
}

// FuzzReadParquet checks that ReadParquet returns a table or an error, never panics, and that
// a table it returns can be rendered and written again.
func FuzzReadParquet(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := readBytes(t, data, ".parquet", ReadParquet)
		if err != nil {
			return
		}
		_ = tb.String()
		_ = tb.HTML()
		if err := writeParquet(filepath.Join(t.TempDir(), "again.parquet"), tb); err != nil {
			t.Fatalf("writing what was read: %v", err)
		}
	})
}

// FuzzReadIPC is FuzzReadParquet for Arrow IPC files.
func FuzzReadIPC(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := readBytes(t, data, ".arrow", ReadIPC)
		if err != nil {
			return
		}
		_ = tb.String()
		_ = tb.HTML()
	})
}

// TestWriteFuzzSeeds writes valid and damaged files as seeds (only with -update-seeds).
func TestWriteFuzzSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("run with -update-seeds to regenerate testdata/fuzz")
	}
	small := allTypes().Slice(0, 3)
	dir := t.TempDir()
	for fuzz, ext := range map[string]string{"FuzzReadParquet": ".parquet", "FuzzReadIPC": ".arrow", "FuzzReadCSV": ".csv"} {
		path := filepath.Join(dir, "seed"+ext)
		if err := write(path, small); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		seeds := map[string][]byte{"valid": b, "truncated": b[:len(b)/2]}
		if ext != ".csv" {
			c := bytes.Clone(b)
			for i := len(c) / 3; i < len(c)/3+16; i++ {
				c[i] ^= 0x5a
			}
			seeds["corrupt"] = c
		}
		if ext == ".arrow" {
			// compressed, with a dictionary batch; and the same with the dictionary buffer
			// declaring 500 GB (once a fatal out-of-memory error)
			seeds["lz4-dictionary"], seeds["dictionary-buffer-500g"] = hugeDictionaryIPC(t)
		}
		out := filepath.Join("testdata", "fuzz", fuzz)
		os.MkdirAll(out, 0o755)
		for name, data := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
			if err := os.WriteFile(filepath.Join(out, "seed-"+name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCSVLineEndRefused: a value holding "\r\n" read back from CSV as "\n" (found by FuzzReadCSV,
// testdata/fuzz/FuzzReadCSV/13adba4395ee1f18); writing it is now an error naming the cell.
func TestCSVLineEndRefused(t *testing.T) {
	tb, err := readBytes(t, []byte("x\n\"q\r\r\r\nz\"\n"), ".csv", ReadCSV)
	if err != nil {
		t.Fatal(err)
	}
	err = writeCSV(filepath.Join(t.TempDir(), "out.csv"), tb)
	if !errors.Is(err, ErrCSVLineEnd) || !strings.Contains(err.Error(), `column "x" row 0`) {
		t.Fatalf("writing a value with \\r\\n: %v", err)
	}
	ok, err := readBytes(t, []byte("x\nq\n"), ".csv", ReadCSV)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeCSV(filepath.Join(t.TempDir(), "ok.csv"), ok); err != nil {
		t.Fatal(err)
	}
}
