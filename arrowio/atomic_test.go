//go:build unix

package arrowio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A written file gets 0666 less the umask, as os.Create gives (not
// os.CreateTemp's 0600); an existing file keeps its mode. Through every
// table writer.
func TestWriteModeFollowsUmask(t *testing.T) {
	tb := MustTable(Float64("f", []float64{1, 2}))
	writers := map[string]func(string, *Table) error{".csv": writeCSV, ".parquet": writeParquet, ".arrow": writeIPC}
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, umask := range []int{0o022, 0o027, 0o002} {
		syscall.Umask(umask)
		for ext, write := range writers {
			path := filepath.Join(t.TempDir(), "t"+ext)
			if err := write(path, tb); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := st.Mode().Perm(), fs.FileMode(0o666&^umask); got != want {
				t.Errorf("umask %03o: %s written with mode %v, want %v", umask, ext, got, want)
			}
			// An existing file keeps its mode.
			if err := os.Chmod(path, 0o604); err != nil {
				t.Fatal(err)
			}
			if err := write(path, tb); err != nil {
				t.Fatal(err)
			}
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o604 {
				t.Errorf("umask %03o: %s rewritten: mode %v (%v), want it kept at -rw----r--", umask, ext, st.Mode().Perm(), err)
			}
		}
	}
}

// The table writers write through internal/atomicfile (its tests cover
// symlinks, syncing, failures and stale temporary files); errors of the file
// system name the path.
func TestWriteErrorNamesPath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "t.parquet")
	err := writeParquet(missing, MustTable(Int64("a", []int64{1})))
	if err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing directory: error %v, want ErrNotExist naming %s", err, missing)
	}
}
