package arrowio

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestRandomCorruptionNeverCrashes damages valid files (a few bytes flipped in one bit, set to
// 0xff or to random values) and reads them: the result must be a table that renders (String,
// HTML) or an error, within 5 s, and never a crash. It found that a damaged Arrow schema made
// arrow-go allocate without bound (a fatal out-of-memory that recover cannot catch; fbcheck.go
// guards against that now), and that a damaged dictionary index read without error and made
// String panic (validate.go).
func TestRandomCorruptionNeverCrashes(t *testing.T) {
	iters := 3000
	if testing.Short() {
		iters = 150
	}
	dir := t.TempDir()
	for _, ext := range []string{".parquet", ".arrow"} {
		p := filepath.Join(dir, "valid"+ext)
		if err := write(p, allTypes().Slice(0, 3)); err != nil {
			t.Fatal(err)
		}
		valid, _ := os.ReadFile(p)
		r := rand.New(rand.NewPCG(1, 1))
		for k := range iters {
			c := append([]byte(nil), valid...)
			for range 1 + r.IntN(4) {
				i := r.IntN(len(c))
				switch r.IntN(3) {
				case 0:
					c[i] ^= byte(1 << r.IntN(8))
				case 1:
					c[i] = 0xff
				default:
					c[i] = byte(r.IntN(256))
				}
			}
			q := filepath.Join(dir, "c"+strconv.Itoa(k)+ext)
			os.WriteFile(q, c, 0o644)
			done := make(chan string)
			go func() {
				defer func() {
					if p := recover(); p != nil {
						done <- fmt.Sprint(p)
					}
					close(done)
				}()
				if tb, err := Read(q); err == nil {
					_ = tb.String()
					_ = tb.HTML()
				}
			}()
			select {
			case p, panicked := <-done:
				if panicked {
					os.WriteFile(filepath.Join(os.TempDir(), "arrowio-panic"+ext), c, 0o644)
					t.Fatalf("%s mutation %d: panic %s (input saved to %s)", ext, k, p, os.TempDir())
				}
			case <-time.After(5 * time.Second):
				os.WriteFile(filepath.Join(os.TempDir(), "arrowio-slow"+ext), c, 0o644)
				t.Fatalf("%s mutation %d: read did not finish in 5s (input saved to %s)", ext, k, os.TempDir())
			}
			os.Remove(q)
		}
	}
}
