//go:build unix

package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeText is a write function of Write writing s.
func writeText(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A symlink is followed: the file it names is replaced, the link stays.
func TestWriteFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "data")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "real.csv")
	if err := os.WriteFile(target, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	mustLink := func(to, at string) {
		if err := os.Symlink(to, at); err != nil {
			t.Fatal(err)
		}
	}
	rel := filepath.Join(dir, "rel.csv")
	mustLink("data/real.csv", rel)
	abs := filepath.Join(dir, "abs.csv")
	mustLink(target, abs)
	chain := filepath.Join(dir, "chain.csv")
	mustLink("rel.csv", chain)
	for i, link := range []string{rel, abs, chain} {
		text := fmt.Sprintf("new %d\n", i)
		if err := Write(link, writeText(text)); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced by a file (%v)", filepath.Base(link), err)
		}
		if got := readText(t, target); got != text {
			t.Errorf("%s: the target holds %q, want %q", filepath.Base(link), got, text)
		}
		if st, err := os.Stat(target); err != nil || st.Mode().Perm() != 0o640 {
			t.Errorf("%s: the target's mode is %v (%v), want it kept at -rw-r-----", filepath.Base(link), st.Mode().Perm(), err)
		}
	}
	if got := names(t, sub); !slices.Equal(got, []string{"real.csv"}) {
		t.Errorf("the target's directory holds %q, want only real.csv", got)
	}
	// A dangling link names the file to create.
	dangling := filepath.Join(dir, "dangling.csv")
	mustLink("data/new.csv", dangling)
	if err := Write(dangling, writeText("created\n")); err != nil {
		t.Fatal(err)
	}
	if got := readText(t, filepath.Join(sub, "new.csv")); got != "created\n" {
		t.Errorf("through a dangling link: data/new.csv holds %q", got)
	}
	// A loop of links is an error naming the path.
	loop := filepath.Join(dir, "loop.csv")
	mustLink("loop.csv", loop)
	if err := Write(loop, writeText("x")); err == nil || !strings.Contains(err.Error(), loop) {
		t.Errorf("a symlink loop: error %v, want one naming %s", err, loop)
	}
}

// The file is synced before it is renamed over the destination, and the
// directory after.
func TestWriteSyncsBeforeRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var synced []string
	defer func(f func(*os.File) error) { fsync = f }(fsync)
	fsync = func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if st.IsDir() {
			synced = append(synced, "dir")
		} else {
			synced = append(synced, "file with the destination holding "+strings.TrimSpace(readText(t, path)))
		}
		return f.Sync()
	}
	if err := Write(path, writeText("new\n1\n")); err != nil {
		t.Fatal(err)
	}
	want := []string{"file with the destination holding old", "dir"}
	if !slices.Equal(synced, want) {
		t.Errorf("synced %q, want %q", synced, want)
	}
	// A failed sync fails the write, naming the path, and leaves the old file.
	fsync = func(*os.File) error { return syscall.EIO }
	err := Write(path, writeText("newer\n"))
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), path) {
		t.Errorf("failed sync: error %v, want EIO naming %s", err, path)
	}
	if got := readText(t, path); got != "new\n1\n" {
		t.Errorf("after a failed sync the file holds %q", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"t.csv"}) {
		t.Errorf("after a failed sync the directory holds %q", got)
	}
}

// A failed or panicking write leaves the old file and no temporary file,
// and the error names the path.
func TestWriteFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Errorf("write's error: got %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r != "writer panic" {
				t.Errorf("recovered %v, want the writer's panic", r)
			}
		}()
		Write(path, func(w io.Writer) error { io.WriteString(w, "partial"); panic("writer panic") })
	}()
	if got := readText(t, path); got != "old\n" {
		t.Errorf("after failed writes the file holds %q", got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"t.csv"}) {
		t.Errorf("after failed writes the directory holds %q, want only t.csv", got)
	}
}

// A write removes the temporary files killed earlier writes to the same
// path left: those of a dead writer and old ones; it keeps those of live
// writers and of other files.
func TestWriteRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no process to take a dead pid from:", err)
	}
	dead := cmd.Process.Pid
	tmp := func(base string, pid int, random string) string {
		return fmt.Sprintf(".%s.tmp.%d.%s", base, pid, random)
	}
	files := []struct {
		name  string
		age   time.Duration
		stays bool
	}{
		{tmp("t.csv", dead, "0a"), 0, false},                      // its writer is gone
		{tmp("t.csv", os.Getpid(), "0b"), 0, true},                // a write in progress here
		{tmp("t.csv", os.Getppid(), "0c"), time.Hour, true},       // a live writer's
		{tmp("t.csv", os.Getppid(), "0d"), 48 * time.Hour, false}, // too old even so
		{".t.csv.tmp123456789", 2 * time.Hour, false},             // os.CreateTemp's, old
		{".t.csv.tmp987654321", 0, true},                          // os.CreateTemp's, recent
		{tmp("u.csv", dead, "0e"), 0, true},                       // another file's
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if f.age > 0 {
			at := time.Now().Add(-f.age)
			if err := os.Chtimes(p, at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := Write(path, writeText("new\n")); err != nil {
		t.Fatal(err)
	}
	have := names(t, dir)
	for _, f := range files {
		if slices.Contains(have, f.name) != f.stays {
			t.Errorf("%s (%v old): present %v, want %v", f.name, f.age, !f.stays, f.stays)
		}
	}
	if got := readText(t, path); got != "new\n" {
		t.Errorf("t.csv holds %q", got)
	}
}

// Writing goes through a temporary file: a reader never sees a part.
func TestWriteReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.bin")
	big := bytes.Repeat([]byte("x"), 1<<20)
	if err := Write(path, func(w io.Writer) error {
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("during the write the destination exists (%v)", err)
		}
		_, err := w.Write(big)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, big) {
		t.Errorf("read back %d bytes (%v), want %d", len(b), err, len(big))
	}
}
