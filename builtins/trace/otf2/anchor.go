package otf2

import (
	"bufio"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tracebook/tracebook/internal/regular"
)

// Anchor is the content of an archive's anchor file (NAME.otf2).
type Anchor struct {
	Format          uint8 // anchor file format, 1..3
	TraceFormat     uint8
	Version         [3]uint8 // OTF2 version that wrote the archive
	ChunkSizeEvents uint64
	ChunkSizeDefs   uint64
	Substrate       uint8 // 1 posix, 2 sion, 3 none
	Compression     uint8 // 1 none, 2 zlib
	NumLocations    uint64
	NumGlobalDefs   uint64
	Machine         string
	Creator         string
	Description     string
	Properties      [][2]string // name, value (format >= 2)
	TraceID         uint64      // format >= 2
	NumSnapshots    uint32      // format >= 3
	NumThumbnails   uint32      // format >= 3
}

const (
	substratePosix    = 1
	compressionNone   = 1
	chunkSizeMin      = 256 * 1024
	chunkSizeMax      = 16 * 1024 * 1024
	unchunkedHeader   = 2
	chunkHeaderLength = 18
)

// readAnchor parses an anchor file's bytes.
func readAnchor(file string, data []byte) (a Anchor, err error) {
	defer catch(&err)
	d := &decoder{file: file, buf: data}
	d.header()
	if magic := d.str(); magic != "OTF2" {
		d.fail("not an OTF2 anchor file (magic %q)", magic)
	}
	a.Format = d.u8()
	if a.Format == 0 {
		d.fail("invalid anchor format 0")
	}
	a.TraceFormat = d.u8()
	a.Version = [3]uint8{d.u8(), d.u8(), d.u8()}
	a.ChunkSizeEvents = d.u64full()
	a.ChunkSizeDefs = d.u64full()
	a.Substrate = d.u8()
	a.Compression = d.u8()
	a.NumLocations = d.u64full()
	a.NumGlobalDefs = d.u64full()
	a.Machine, a.Creator, a.Description = d.str(), d.str(), d.str()
	if a.Format > 1 {
		n := d.u32full()
		if uint64(n)*2 > uint64(len(d.buf)-d.pos) {
			d.fail("property count %d exceeds the file", n)
		}
		for i := uint32(0); i < n; i++ {
			a.Properties = append(a.Properties, [2]string{d.str(), d.str()})
		}
		a.TraceID = d.u64full()
	}
	if a.Format > 2 {
		a.NumSnapshots = d.u32full()
		a.NumThumbnails = d.u32full()
	}
	if a.Format <= 3 {
		if m := d.u8(); m != markEndOfFile {
			d.failAt(d.pos-1, "expected end-of-file marker, found byte %#x", m)
		}
	}
	switch {
	case a.Substrate != substratePosix:
		d.fail("unsupported file substrate %d (only POSIX files are supported)", a.Substrate)
	case a.Compression != compressionNone:
		d.fail("unsupported compression %d", a.Compression)
	case a.ChunkSizeEvents < chunkSizeMin || a.ChunkSizeEvents > chunkSizeMax:
		d.fail("invalid event chunk size %d", a.ChunkSizeEvents)
	case a.ChunkSizeDefs < chunkSizeMin || a.ChunkSizeDefs > chunkSizeMax:
		d.fail("invalid definition chunk size %d", a.ChunkSizeDefs)
	}
	return a, nil
}

// header reads the two-byte header of an unchunked buffer (anchor and
// definition files): the chunk-header marker and the byte order.
func (d *decoder) header() {
	if m := d.u8(); m != markChunkHeader {
		d.failAt(d.pos-1, "expected buffer header marker 3, found %#x", m)
	}
	d.flip(d.pos, 0)
	switch e := d.u8(); e {
	case endianBig:
		d.be = true
	case endianLittle:
		d.be = false
	default:
		d.failAt(d.pos-1, "invalid byte-order mark %#x", e)
	}
}

// Archive is an opened OTF2 archive: anchor and global definitions.
type Archive struct {
	Path   string // anchor file
	Dir    string // directory of per-location files (anchor path without .otf2)
	Anchor Anchor
	Defs   *GlobalDefs
}

// Open reads the anchor file at path and the archive's global definitions.
func Open(path string) (*Archive, error) {
	data, err := regular.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Offset: -1, Err: err}
	}
	anchor, err := readAnchor(path, data)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".otf2") {
		return nil, &Error{File: path, Offset: -1, Err: errors.New("anchor file name must end in .otf2")}
	}
	base := strings.TrimSuffix(path, ".otf2")
	a := &Archive{Path: path, Dir: base, Anchor: anchor}
	defPath := base + ".def"
	f, err := regular.Open(defPath)
	if err != nil {
		return nil, &Error{File: defPath, Offset: -1, Err: err}
	}
	defer f.Close()
	a.Defs, err = readGlobalDefs(defPath, bufio.NewReaderSize(f, 1<<16), int(anchor.ChunkSizeDefs))
	if err != nil {
		return nil, err
	}
	if uint64(len(a.Defs.Locations)) != anchor.NumLocations {
		return nil, &Error{File: defPath, Offset: -1, Err: fmt.Errorf("%d location definitions, anchor file declares %d", len(a.Defs.Locations), anchor.NumLocations)}
	}
	return a, nil
}

// LocationFile returns the path of location loc's file with extension ext
// ("evt" or "def").
func (a *Archive) LocationFile(loc uint64, ext string) string {
	return filepath.Join(a.Dir, fmt.Sprintf("%d.%s", loc, ext))
}
