package arrowio

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestRandomCorruptionNeverCrashes damages valid files at random bytes and reads them: the
// result must be a table or an error, within a second, and never a crash. It found that a
// damaged Arrow schema made arrow-go allocate without bound (a fatal out-of-memory that
// recover cannot catch); fbcheck.go guards against that now.
func TestRandomCorruptionNeverCrashes(t *testing.T) {
	iters := 1500
	if testing.Short() {
		iters = 150
	}
	dir := t.TempDir()
	for _, ext := range []string{".parquet", ".arrow"} {
		p := filepath.Join(dir, "valid"+ext)
		if err := Write(p, allTypes().Slice(0, 3)); err != nil {
			t.Fatal(err)
		}
		valid, _ := os.ReadFile(p)
		r := rand.New(rand.NewPCG(1, 1))
		for k := range iters {
			c := append([]byte(nil), valid...)
			for range 1 + r.IntN(4) {
				c[r.IntN(len(c))] = byte(r.IntN(256))
			}
			q := filepath.Join(dir, "c"+strconv.Itoa(k)+ext)
			os.WriteFile(q, c, 0o644)
			done := make(chan struct{})
			go func() {
				defer close(done)
				Read(q)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				os.WriteFile(filepath.Join(os.TempDir(), "arrowio-slow"+ext), c, 0o644)
				t.Fatalf("%s mutation %d: read did not finish in 5s (input saved to %s)", ext, k, os.TempDir())
			}
			os.Remove(q)
		}
	}
}
