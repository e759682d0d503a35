// Package atomicfile writes files the way DESIGN §7 asks of every export:
// through a temporary file that is synced and renamed, so a reader sees the
// old content or the whole new one; with the umask's mode; following
// symlinks; and leaving nothing behind when a write fails or was killed.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Write writes a file through write so that path holds either its old content or the
// whole new one, never a part: write fills a temporary file in the directory of path's
// target, which is synced and renamed over the target, and the directory is synced (best
// effort). A symlink at path is followed: the file it points to is replaced, the link stays.
// A new file gets mode 0666 less the umask, as os.Create gives; an existing one keeps its
// mode. The temporary file is removed on every failure, a panic of write included, and
// temporary files that a killed earlier write to path left behind (".<name>.tmp*": their
// writer is gone, or they are older than a day) are removed first.
//
// The writer write gets hides Close (Arrow and Parquet writers close an io.Closer they are
// given). Errors of write are returned as they are; the others are *fs.PathError naming path,
// never the temporary file.
func Write(path string, write func(w io.Writer) error) (err error) {
	target, err := followLinks(path)
	if err != nil {
		return &fs.PathError{Op: "resolve symlink", Path: path, Err: err}
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	removeStaleTemps(dir, base)
	f, tmp, err := createTemp(dir, base)
	if err != nil {
		return &fs.PathError{Op: "create temporary file", Path: path, Err: err}
	}
	done := false
	defer func() {
		if !done { // an error or a panic: no temporary file stays
			f.Close()
			os.Remove(tmp)
		}
	}()
	if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() {
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			return &fs.PathError{Op: "chmod", Path: path, Err: pathless(err)}
		}
	}
	if err := write(struct{ io.Writer }{f}); err != nil {
		return err
	}
	if err := fsync(f); err != nil {
		return &fs.PathError{Op: "sync", Path: path, Err: pathless(err)}
	}
	if err := f.Close(); err != nil {
		return &fs.PathError{Op: "close", Path: path, Err: pathless(err)}
	}
	if err := os.Rename(tmp, target); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		return &fs.PathError{Op: "rename", Path: path, Err: err}
	}
	done = true
	// The rename is durable once the directory is synced; not every
	// system can sync a directory, so this is best effort.
	if d, err := os.Open(dir); err == nil {
		_ = fsync(d)
		d.Close()
	}
	return nil
}

// fsync syncs a file to its device (a variable for the test of the order of sync and rename).
var fsync = (*os.File).Sync

// maxLinks bounds the symlinks followLinks follows (Linux's limit is 40).
const maxLinks = 40

// followLinks returns the file path names: path, or the end of the chain of symlinks starting
// at path, which need not exist yet (a dangling link names the file to create).
func followLinks(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil // not a link: the file, or a new one
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", pathless(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("more than %d symlinks", maxLinks)
}

// tempPrefix is the start of the names of the temporary files of writes to base; a pid and a
// random number follow.
func tempPrefix(base string) string { return "." + base + ".tmp" }

// createTemp creates a new temporary file for base in dir, open for writing, with mode 0666
// less the umask (os.CreateTemp's 0600 would leave the written file unreadable to others).
func createTemp(dir, base string) (*os.File, string, error) {
	for range 100 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		name := filepath.Join(dir, fmt.Sprintf("%s.%d.%s", tempPrefix(base), os.Getpid(), hex.EncodeToString(r[:])))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", pathless(err)
		}
		return f, name, nil
	}
	return nil, "", errors.New("no unused temporary file name")
}

// Ages after which a temporary file of a write is taken for left behind: one naming no pid
// (os.CreateTemp's, of earlier versions), and one whose pid a process has (the pid may have
// been reused after a kill).
const (
	staleTempAge      = time.Hour
	staleTempAgeByPid = 24 * time.Hour
)

// removeStaleTemps removes the temporary files of earlier writes to base in dir whose writer
// was killed: those naming a pid that no process has, and those older than staleTempAge
// (staleTempAgeByPid if their pid runs). Errors are ignored: cleaning up is a courtesy, not
// part of the write.
func removeStaleTemps(dir, base string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		age := time.Since(info.ModTime())
		// ".<base>.tmp.<pid>.<random>"; os.CreateTemp's ".<base>.tmp<random>" of earlier
		// versions names no pid.
		pid, ok := tempPid(name[len(prefix):])
		if !ok && age > staleTempAge || ok && pid != os.Getpid() && !processRuns(pid) || age > staleTempAgeByPid {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// tempPid reads the pid from the rest of a temporary file's name after its prefix.
func tempPid(rest string) (int, bool) {
	rest, ok := strings.CutPrefix(rest, ".")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, ".")
	pid, err := strconv.Atoi(digits)
	return pid, ok && err == nil && pid > 0
}

// processRuns reports whether a process pid exists (unknown counts as running).
func processRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// pathless strips the temporary file's name from an *fs.PathError, so that
// errors name the path written, never the temporary file.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
