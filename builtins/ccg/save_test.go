//go:build unix

package ccg

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// Save writes as every export does (DESIGN §7): mode 0666 less the umask
// for a new file, the mode kept for an existing one, a symlink followed,
// and the temporary files of killed earlier saves removed.
func TestSaveModeSymlinkAndStaleTemps(t *testing.T) {
	g := Build(traceOf(4, figure34().p).Process(0), Lossless)
	dir := t.TempDir()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)

	path := filepath.Join(dir, "a.ccg")
	if err := g.save(path); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("a new file has mode %v (%v), want -rw-r--r-- (umask 022)", st.Mode().Perm(), err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := g.save(path); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("a saved-over file has mode %v (%v), want it kept at -rw-r-----", st.Mode().Perm(), err)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	// Through a symlink: the link stays, its target gets the graph.
	if err := os.WriteFile(filepath.Join(dir, "target.ccg"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.ccg")
	if err := os.Symlink("target.ccg", link); err != nil {
		t.Fatal(err)
	}
	if err := g.save(link); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("saving through a symlink replaced the link (%v)", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "target.ccg")); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the link's target holds %d bytes (%v), want the graph's %d", len(got), err, len(want))
	}
	if _, err := Load(link); err != nil {
		t.Errorf("loading through the link: %v", err)
	}

	// A killed save left temporary files: the next save removes them.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no process to take a dead pid from:", err)
	}
	stale := []string{fmt.Sprintf(".a.ccg.tmp.%d.1f2e", cmd.Process.Pid), ".a.ccg.tmp4242"}
	for _, name := range stale {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-2 * time.Hour)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.save(path); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, e := range ents {
		have = append(have, e.Name())
	}
	if wantNames := []string{"a.ccg", "link.ccg", "target.ccg"}; !slices.Equal(have, wantNames) {
		t.Errorf("after a save the directory holds %q, want %q (no temporary file)", have, wantNames)
	}
}
