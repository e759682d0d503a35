package hpctoolkit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Error is a decoding error: the file, the byte offset of the field at
// fault (-1 when none applies) and the cause.
type Error struct {
	File   string
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("hpctoolkit: %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("hpctoolkit: %s: offset %d: %v", e.File, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrVersion is the cause of the Error for a file whose major version is
// not 4.
var ErrVersion = errors.New("unsupported format version")

// MajorVersion is the major version of the formats this package reads.
const MajorVersion = 4

// Footers, the last 8 bytes of each file.
const (
	metaFooter    = "_meta.db"
	profileFooter = "_prof.db"
	traceFooter   = "trace.db"
)

// section is a region of a file: [Pointer, Pointer+Size).
type section struct {
	Size, Pointer uint64
}

// header is the common file header of every *.db file.
type header struct {
	Minor    uint8
	Sections []section
}

// span is bytes of a file held in memory: b holds the file's bytes from
// offset base. Its accessors panic with *Error when the bytes asked for are
// not there; the exported functions recover it (see catch).
type span struct {
	file string
	base int64
	b    []byte
}

func (s *span) fail(off int64, format string, args ...any) {
	panic(&Error{File: s.file, Offset: off, Err: fmt.Errorf(format, args...)})
}

// at returns the n bytes at file offset off; what names them in errors.
func (s *span) at(off uint64, n int, what string) []byte {
	if off < uint64(s.base) || off-uint64(s.base) > uint64(len(s.b)) || uint64(len(s.b))-(off-uint64(s.base)) < uint64(n) {
		s.fail(int64(min(off, 1<<62)), "%s (%d bytes) lies outside the bytes read [%d, %d)", what, n, s.base, s.base+int64(len(s.b)))
	}
	i := off - uint64(s.base)
	return s.b[i : i+uint64(n)]
}

func (s *span) u8(off uint64, what string) uint8 { return s.at(off, 1, what)[0] }
func (s *span) u16(off uint64, what string) uint16 {
	return binary.LittleEndian.Uint16(s.at(off, 2, what))
}
func (s *span) u32(off uint64, what string) uint32 {
	return binary.LittleEndian.Uint32(s.at(off, 4, what))
}
func (s *span) u64(off uint64, what string) uint64 {
	return binary.LittleEndian.Uint64(s.at(off, 8, what))
}

// str returns the NUL-terminated string at off, which must lie in sec
// (when sec.Size > 0) and in the span.
func (s *span) str(off uint64, sec section, what string) string {
	s.at(off, 1, what)
	if sec.Size > 0 && (off < sec.Pointer || off >= sec.Pointer+sec.Size) {
		s.fail(int64(min(off, 1<<62)), "%s points outside its section [%d, %d)", what, sec.Pointer, sec.Pointer+sec.Size)
	}
	end := uint64(len(s.b))
	if sec.Size > 0 {
		end = min(end, sec.Pointer+sec.Size-uint64(s.base))
	}
	b := s.b[off-uint64(s.base) : end]
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	s.fail(int64(off), "%s is not NUL-terminated", what)
	return ""
}

// catch turns the *Error panics of a span into an error; other panics
// propagate.
func catch(err *error) {
	if r := recover(); r != nil {
		e, ok := r.(*Error)
		if !ok {
			panic(r)
		}
		*err = e
	}
}

// readHeader reads and checks the common header of the file f (size
// bytes): magic, format, major version, nSections section pointers
// (each within the file) and the footer.
func readHeader(name string, f io.ReaderAt, size int64, format, footer string, nSections int) (header, error) {
	n := 0x10 + 16*nSections
	if size < int64(n)+8 {
		return header{}, &Error{File: name, Offset: size, Err: fmt.Errorf("file too short for a %s header (%d bytes; want at least %d)", format, size, n+8)}
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, 0); err != nil {
		return header{}, &Error{File: name, Offset: 0, Err: err}
	}
	if string(b[:10]) != "HPCTOOLKIT" {
		return header{}, &Error{File: name, Offset: 0, Err: fmt.Errorf("not an HPCToolkit database file (magic %q)", b[:10])}
	}
	if string(b[10:14]) != format {
		return header{}, &Error{File: name, Offset: 10, Err: fmt.Errorf("format %q, want %q", b[10:14], format)}
	}
	if b[14] != MajorVersion {
		return header{}, &Error{File: name, Offset: 14, Err: fmt.Errorf("%w %d.%d (this reader reads %d.x)", ErrVersion, b[14], b[15], MajorVersion)}
	}
	h := header{Minor: b[15]}
	for i := 0; i < nSections; i++ {
		o := 0x10 + 16*i
		sec := section{Size: binary.LittleEndian.Uint64(b[o:]), Pointer: binary.LittleEndian.Uint64(b[o+8:])}
		if sec.Pointer > uint64(size) || sec.Size > uint64(size)-sec.Pointer {
			return header{}, &Error{File: name, Offset: int64(o), Err: fmt.Errorf("section %d [%d, +%d bytes) lies beyond the end of the file (%d bytes): truncated or corrupt", i+1, sec.Pointer, sec.Size, size)}
		}
		h.Sections = append(h.Sections, sec)
	}
	foot := make([]byte, 8)
	if _, err := f.ReadAt(foot, size-8); err != nil {
		return header{}, &Error{File: name, Offset: size - 8, Err: err}
	}
	if string(foot) != footer {
		return header{}, &Error{File: name, Offset: size - 8, Err: fmt.Errorf("footer %q, want %q: truncated file?", foot, footer)}
	}
	return h, nil
}

// readSection reads the bytes of sec into a span.
func readSection(name string, f io.ReaderAt, sec section) (*span, error) {
	b := make([]byte, sec.Size) // readHeader checked it lies within the file
	if _, err := f.ReadAt(b, int64(sec.Pointer)); err != nil {
		return nil, &Error{File: name, Offset: int64(sec.Pointer), Err: err}
	}
	return &span{file: name, base: int64(sec.Pointer), b: b}, nil
}

// openFile opens name and returns its size.
func openFile(name string) (*os.File, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, &Error{File: name, Offset: -1, Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, &Error{File: name, Offset: -1, Err: err}
	}
	return f, st.Size(), nil
}

// index returns the element index of pointer p into the array of n
// elements of stride bytes at base, failing (at field offset at) when p
// does not point to an element.
func (s *span) index(p, base uint64, n uint64, stride uint64, at uint64, what string) int32 {
	if stride == 0 || p < base || (p-base)%stride != 0 || (p-base)/stride >= n {
		s.fail(int64(min(at, 1<<62)), "%s %d does not point to one of the %d elements at %d", what, p, n, base)
	}
	return int32((p - base) / stride)
}
