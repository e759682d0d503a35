package work

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tracebook/tracebook/arrowio"
)

// MemoryError is the error of a request for more memory than is available.
type MemoryError struct {
	What      string // what the memory is for: "align.Strings: DP matrix"
	Need      int64  // bytes
	Available int64  // bytes
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s needs %s of memory, only %s is available", e.What,
		arrowio.FormatBytes(e.Need), arrowio.FormatBytes(e.Available))
}

// Available returns the bytes this process can still allocate: the
// smallest of the machine's MemAvailable, the cgroup's limit minus its
// usage and the TRACEBOOK_MEMORY_LIMIT environment variable (bytes, or with
// a K/M/G suffix; for tests and shared machines). ok is false if none is
// known.
func Available() (n int64, ok bool) {
	consider := func(v int64) {
		if v >= 0 && (!ok || v < n) {
			n, ok = v, true
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) >= 2 && f[0] == "MemAvailable:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					consider(kb * 1024)
				}
			}
		}
	}
	if limit, err := readInt("/sys/fs/cgroup/memory.max"); err == nil {
		if used, err := readInt("/sys/fs/cgroup/memory.current"); err == nil {
			consider(max(0, limit-used))
		}
	}
	if s := os.Getenv("TRACEBOOK_MEMORY_LIMIT"); s != "" {
		if v, err := ParseBytes(s); err == nil {
			consider(v)
		}
	}
	return n, ok
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64) // "max" fails: no limit
}

// ParseBytes reads a byte count: "1048576", "512K", "64M", "2G", "1.5GiB"
// (powers of 1024), as the environment variables that set memory limits
// are written.
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:len(s)-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("work: %q is not a byte count", s)
	}
	return int64(v * float64(mult)), nil
}

// Reserve checks that need bytes (an estimate, made before allocating) fit
// in the memory still available; it returns a *MemoryError naming what
// when they do not. Requests under 64 MiB pass without a look, unless
// TRACEBOOK_MEMORY_LIMIT is set.
func Reserve(what string, need int64) error {
	if need < 64<<20 && os.Getenv("TRACEBOOK_MEMORY_LIMIT") == "" {
		return nil
	}
	avail, ok := Available()
	if !ok || need <= avail {
		return nil
	}
	return &MemoryError{What: what, Need: need, Available: avail}
}
