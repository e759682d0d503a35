package arrowio

import (
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// seedBytes returns the data of a checked-in fuzz seed.
func seedBytes(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	s = s[strings.Index(s, "[]byte(")+len("[]byte(") : strings.LastIndex(s, ")")]
	q, err := strconv.Unquote(s)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(q)
}

// Randomly damaged Arrow IPC and Parquet files (a few bytes flipped, set to
// 0xff or random) are either rejected with an error or read into a table
// that renders: never a panic in the reader or later, in String or HTML.
// Before validate, a damaged dictionary index read fine and made String
// panic (found by FuzzReadIPC in make test-fuzz).
func TestDamagedFilesNeverPanic(t *testing.T) {
	for _, c := range []struct {
		seed, ext string
		read      func(string) (*Table, error)
	}{
		{"testdata/fuzz/FuzzReadIPC/seed-valid", ".arrow", ReadIPC},
		{"testdata/fuzz/FuzzReadParquet/seed-valid", ".parquet", ReadParquet},
	} {
		seed := seedBytes(t, c.seed)
		r := rand.New(rand.NewSource(1))
		path := filepath.Join(t.TempDir(), "damaged"+c.ext)
		for it := 0; it < 3000; it++ {
			d := append([]byte(nil), seed...)
			for k := 0; k < 1+r.Intn(4); k++ {
				i := r.Intn(len(d))
				switch r.Intn(3) {
				case 0:
					d[i] ^= byte(1 << r.Intn(8))
				case 1:
					d[i] = 0xff
				default:
					d[i] = byte(r.Intn(256))
				}
			}
			if err := os.WriteFile(path, d, 0o644); err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						os.WriteFile(filepath.Join(os.TempDir(), "damaged"+c.ext), d, 0o644)
						t.Fatalf("%s iteration %d: panic %v (input kept in %s)", c.ext, it, p, os.TempDir())
					}
				}()
				tb, err := c.read(path)
				if err != nil {
					return
				}
				_ = tb.String()
				_ = tb.HTML()
			}()
		}
	}
}
