package projections

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Error is an error of decoding a Projections file: the file, the line
// (1-based; 0 when not applicable) and the byte offset of that line in the
// file's text (-1 when not applicable).
type Error struct {
	File   string
	Line   int
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d (byte %d): %v", e.File, e.Line, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Chare is a chare type of the .sts file.
type Chare struct {
	Name string
	Dims int // dimensions of a chare array's index; -1 for a plain chare or group
}

// Entry is an entry method of the .sts file.
type Entry struct {
	Name    string // as Charm++ wrote it, e.g. "recv(int n)"
	Chare   int    // index into Sts.Chares
	Message int    // message type id
}

// Sts is the content of a .sts file.
type Sts struct {
	Version    float64
	NumPEs     int
	Chares     []Chare           // by id
	Entries    map[int]Entry     // by id
	Messages   map[int]int64     // message type id -> size in bytes
	UserEvents map[int]string    // user event id -> name
	UserStats  map[int]string    // user stat id -> name
	PapiEvents []string          // PAPI counters recorded with every BEGIN/END_PROCESSING
	Info       map[string]string // MACHINE, USERNAME, HOSTNAME, COMMANDLINE, TIMESTAMP, CHARMVERSION...
}

// EntryName names entry id as Projections shows it, "Chare::entry", or
// "" when the .sts has no such entry.
func (s *Sts) EntryName(id int) string {
	e, ok := s.Entries[id]
	if !ok {
		return ""
	}
	if e.Chare >= 0 && e.Chare < len(s.Chares) && s.Chares[e.Chare].Name != "" {
		return s.Chares[e.Chare].Name + "::" + e.Name
	}
	return e.Name
}

// ReadStsFile reads a .sts file.
func ReadStsFile(path string) (*Sts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Offset: -1, Err: err}
	}
	defer f.Close()
	return ReadSts(f, path)
}

// maxDeclared bounds the counts a .sts declares (chares, PAPI events): they
// size slices, so a corrupt count must not allocate without bound.
const maxDeclared = 1 << 24

// ReadSts reads a .sts file's text from r; name names it in errors.
func ReadSts(r io.Reader, name string) (*Sts, error) {
	s := &Sts{Entries: map[int]Entry{}, Messages: map[int]int64{}, UserEvents: map[int]string{},
		UserStats: map[int]string{}, Info: map[string]string{}}
	br := bufio.NewReader(r)
	var off int64
	line := 0
	sawVersion, sawPEs := false, false
	declared := 0 // TOTAL_CHARES
	for {
		text, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, &Error{File: name, Line: line + 1, Offset: off, Err: rerr}
		}
		if text == "" && rerr == io.EOF {
			break
		}
		line++
		start := off
		off += int64(len(text))
		fail := func(format string, args ...any) error {
			return &Error{File: name, Line: line, Offset: start, Err: fmt.Errorf(format, args...)}
		}
		t := strings.TrimRight(text, "\r\n")
		key, rest, _ := strings.Cut(strings.TrimSpace(t), " ")
		rest = strings.TrimSpace(rest)
		f := strings.Fields(rest)
		num := func(i int) (int, error) {
			if i >= len(f) {
				return 0, fail("%s: missing field %d", key, i+1)
			}
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return 0, fail("%s: field %d: %q is not an integer", key, i+1, f[i])
			}
			return v, nil
		}
		count := func() (int, error) {
			v, err := num(0)
			if err == nil && (v < 0 || v > maxDeclared) {
				return 0, fail("%s %d out of range", key, v)
			}
			return v, err
		}
		switch key {
		case "VERSION":
			if len(f) < 1 {
				return nil, fail("VERSION without a value")
			}
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return nil, fail("VERSION %q is not a number", f[0])
			}
			s.Version, sawVersion = v, true
		case "PROCESSORS":
			v, err := count()
			if err != nil {
				return nil, err
			}
			s.NumPEs, sawPEs = v, true
		case "TOTAL_CHARES":
			v, err := count()
			if err != nil {
				return nil, err
			}
			declared = v // sized at the end, when the file's size bounds it
		case "CHARE":
			id, err := num(0)
			if err != nil {
				return nil, err
			}
			if id < 0 || id > maxDeclared {
				return nil, fail("CHARE id %d out of range", id)
			}
			q := strings.TrimSpace(strings.TrimPrefix(rest, f[0]))
			dims := -1
			if i := strings.LastIndexByte(q, '"'); i >= 0 && i < len(q)-1 {
				d, err := strconv.Atoi(strings.TrimSpace(q[i+1:]))
				if err != nil {
					return nil, fail("CHARE %d: dimensions %q are not an integer", id, strings.TrimSpace(q[i+1:]))
				}
				dims, q = d, q[:i+1]
			}
			nm, ok := unquote(q)
			if !ok {
				return nil, fail("CHARE %d: name %s is not quoted", id, q)
			}
			if id >= len(s.Chares) {
				if int64(id) > off*2+1024 { // ids beyond what the file could declare
					return nil, fail("CHARE id %d beyond TOTAL_CHARES %d", id, len(s.Chares))
				}
				s.Chares = append(s.Chares, make([]Chare, id+1-len(s.Chares))...)
			}
			s.Chares[id] = Chare{Name: nm, Dims: dims}
		case "ENTRY":
			// ENTRY CHARE <id> "<name>" <chare> <message>
			if len(f) < 5 || f[0] != "CHARE" {
				return nil, fail("ENTRY: want ENTRY CHARE <id> \"<name>\" <chare> <message>")
			}
			id, err := num(1)
			if err != nil {
				return nil, err
			}
			chare, err := num(len(f) - 2)
			if err != nil {
				return nil, err
			}
			msg, err := num(len(f) - 1)
			if err != nil {
				return nil, err
			}
			// the name: between the id and the last two fields
			q := strings.TrimSpace(rest)
			q = strings.TrimSpace(strings.TrimPrefix(q, f[0]))
			q = strings.TrimSpace(strings.TrimPrefix(q, f[1]))
			q = strings.TrimSpace(strings.TrimSuffix(q, f[len(f)-1]))
			q = strings.TrimSpace(strings.TrimSuffix(q, f[len(f)-2]))
			nm, ok := unquote(q)
			if !ok {
				return nil, fail("ENTRY %d: name %s is not quoted", id, q)
			}
			s.Entries[id] = Entry{Name: nm, Chare: chare, Message: msg}
		case "MESSAGE":
			id, err := num(0)
			if err != nil {
				return nil, err
			}
			size, err := num(1)
			if err != nil {
				return nil, err
			}
			s.Messages[id] = int64(size)
		case "EVENT", "STAT":
			id, err := num(0)
			if err != nil {
				return nil, err
			}
			nm := strings.TrimSpace(strings.TrimPrefix(rest, f[0]))
			if u, ok := unquote(nm); ok {
				nm = u
			}
			if key == "EVENT" {
				s.UserEvents[id] = nm
			} else {
				s.UserStats[id] = nm
			}
		case "TOTAL_PAPI_EVENTS":
			v, err := count()
			if err != nil {
				return nil, err
			}
			if int64(v) > off*2+1024 {
				return nil, fail("TOTAL_PAPI_EVENTS %d: more than the file could name", v)
			}
			s.PapiEvents = make([]string, v)
		case "PAPI_EVENT":
			id, err := num(0)
			if err != nil {
				return nil, err
			}
			if id < 0 || id >= len(s.PapiEvents) {
				return nil, fail("PAPI_EVENT %d beyond TOTAL_PAPI_EVENTS %d", id, len(s.PapiEvents))
			}
			if len(f) > 1 {
				s.PapiEvents[id] = f[1]
			}
		case "MACHINE", "USERNAME", "HOSTNAME", "COMMANDLINE", "TIMESTAMP", "CHARMVERSION", "SMPMODE":
			if u, ok := unquote(rest); ok {
				rest = u
			}
			s.Info[key] = rest
		}
		if rerr == io.EOF {
			break
		}
	}
	if declared > len(s.Chares) && int64(declared) <= off {
		s.Chares = append(s.Chares, make([]Chare, declared-len(s.Chares))...)
	}
	switch {
	case line == 0:
		return nil, &Error{File: name, Offset: -1, Err: errors.New("empty .sts file")}
	case !sawVersion:
		return nil, &Error{File: name, Offset: -1, Err: errors.New("no VERSION line: not a Projections .sts file")}
	case !sawPEs:
		return nil, &Error{File: name, Offset: -1, Err: errors.New("no PROCESSORS line")}
	}
	return s, nil
}

// unquote returns q without its surrounding double quotes.
func unquote(q string) (string, bool) {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' {
		return q[1 : len(q)-1], true
	}
	return "", false
}
