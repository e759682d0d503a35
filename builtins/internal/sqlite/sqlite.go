// Package sqlite reads SQLite 3 database files, read-only and in pure Go:
// the tables of a file's schema and full scans of their rows, enough to
// read the exports of tools that write SQLite (Nsight Systems). It reads
// the file format directly (the 100-byte header, table b-trees, record
// format, overflow pages); it runs no SQL: a table's column names are
// taken from its CREATE TABLE statement. Indexes, WITHOUT ROWID tables,
// UTF-16 databases and write-ahead logs are not read.
//
// Errors are *Error values naming the file, the page and the byte offset.
// Page numbers and sizes read from the file are checked against its size:
// the reader never panics and never allocates more than the file holds.
package sqlite

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Error is an error reading a database: Page is the page (from 1, 0 for
// the header) and Offset the byte offset in the file.
type Error struct {
	Path   string
	Page   uint32
	Offset int64
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("sqlite: %s: page %d, offset %d: %v", e.Path, e.Page, e.Offset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Type is the storage class of a value.
type Type uint8

// Storage classes.
const (
	Null Type = iota
	Integer
	Float
	Text
	Blob
)

// Value is one value of a row. Bytes (of Text and Blob values) is valid
// during the Scan callback only.
type Value struct {
	Type  Type
	Int   int64
	Float float64
	Bytes []byte
}

// String returns a Text value as a string ("" for other types).
func (v Value) String() string {
	if v.Type != Text {
		return ""
	}
	return string(v.Bytes)
}

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.Type == Null }

// DB is an open database.
type DB struct {
	r        io.ReaderAt
	path     string
	size     int64
	pageSize int64
	usable   int64
	npages   uint32
	tables   map[string]*table
	names    []string
}

type table struct {
	name    string
	root    uint32
	columns []string
	rowid   int // column aliasing the rowid (INTEGER PRIMARY KEY), -1 if none
}

// Open reads the header and schema of the database of size bytes in r;
// path names it in errors.
func Open(r io.ReaderAt, size int64, path string) (*DB, error) {
	db := &DB{r: r, path: path, size: size, tables: map[string]*table{}}
	var h [100]byte
	if size < 100 {
		return nil, db.errf(0, 0, "file of %d bytes is shorter than the 100-byte header", size)
	}
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return nil, db.errf(0, 0, "not an SQLite 3 database (no \"SQLite format 3\" magic)")
	}
	ps := int64(binary.BigEndian.Uint16(h[16:]))
	if ps == 1 {
		ps = 65536
	}
	if ps < 512 || ps&(ps-1) != 0 {
		return nil, db.errf(0, 16, "page size %d is not a power of two from 512 to 65536", ps)
	}
	db.pageSize = ps
	db.usable = ps - int64(h[20])
	if db.usable < 480 {
		return nil, db.errf(0, 20, "usable page size %d below 480", db.usable)
	}
	if h[18] > 1 || h[19] > 1 {
		return nil, db.errf(0, 18, "write-ahead log databases (version %d/%d) are not read", h[18], h[19])
	}
	if enc := binary.BigEndian.Uint32(h[56:]); enc > 1 {
		return nil, db.errf(0, 56, "text encoding %d (UTF-16) is not read", enc)
	}
	n := size / ps
	if n > math.MaxUint32 {
		n = math.MaxUint32
	}
	db.npages = uint32(n)
	if hdr := binary.BigEndian.Uint32(h[28:]); hdr != 0 && binary.BigEndian.Uint32(h[24:]) == binary.BigEndian.Uint32(h[92:]) && hdr < db.npages {
		db.npages = hdr
	}
	if db.npages == 0 {
		return nil, db.errf(0, 0, "no pages")
	}
	schema := &table{name: "sqlite_schema", root: 1, columns: []string{"type", "name", "tbl_name", "rootpage", "sql"}, rowid: -1}
	err := db.scan(schema, []int{0, 1, 3, 4}, func(_ int64, v []Value) error {
		if v[0].String() != "table" {
			return nil
		}
		name := v[1].String()
		if v[2].Type != Integer || v[2].Int < 0 || v[2].Int > math.MaxUint32 {
			return db.errf(1, 0, "table %q: root page %v is not a page number", name, v[2].Int)
		}
		t := &table{name: name, root: uint32(v[2].Int), rowid: -1}
		if t.root == 0 {
			return nil // a virtual table: no b-tree
		}
		sql := v[3].String()
		if strings.Contains(strings.ToUpper(sql[max(0, strings.LastIndexByte(sql, ')')):]), "WITHOUT ROWID") {
			return nil
		}
		var err error
		t.columns, t.rowid, err = parseCreate(sql)
		if err != nil {
			return db.errf(1, 0, "table %q: %v", name, err)
		}
		if _, dup := db.tables[name]; !dup {
			db.names = append(db.names, name)
		}
		db.tables[name] = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db, nil
}

func (db *DB) errf(page uint32, off int64, format string, args ...any) error {
	return &Error{Path: db.path, Page: page, Offset: off, Err: fmt.Errorf(format, args...)}
}

// Tables returns the names of the tables, in schema order.
func (db *DB) Tables() []string { return append([]string(nil), db.names...) }

// Columns returns the column names of a table, nil if there is none.
func (db *DB) Columns(name string) []string {
	if t := db.tables[name]; t != nil {
		return append([]string(nil), t.columns...)
	}
	return nil
}

// Scan calls fn with the rowid and the values of the named columns of
// every row of a table, in rowid order. Column names are matched without
// regard to case; a column a row does not hold (added later by ALTER
// TABLE) is NULL. An error of fn stops the scan and is returned.
func (db *DB) Scan(name string, columns []string, fn func(rowid int64, vals []Value) error) error {
	t := db.tables[name]
	if t == nil {
		return &Error{Path: db.path, Err: fmt.Errorf("no table %q", name)}
	}
	idx := make([]int, len(columns))
	for i, c := range columns {
		idx[i] = -1
		for j, tc := range t.columns {
			if strings.EqualFold(c, tc) {
				idx[i] = j
				break
			}
		}
		if idx[i] < 0 {
			return &Error{Path: db.path, Page: t.root, Err: fmt.Errorf("table %q has no column %q", name, c)}
		}
	}
	return db.scan(t, idx, fn)
}

// page reads page n into buf.
func (db *DB) page(n uint32, buf []byte) error {
	if n == 0 || n > db.npages {
		return fmt.Errorf("page number %d out of the file's %d pages", n, db.npages)
	}
	_, err := db.r.ReadAt(buf[:db.pageSize], int64(n-1)*db.pageSize)
	return err
}

type frame struct {
	page  uint32
	buf   []byte
	hdr   int // offset of the b-tree header in buf
	cells int
	next  int // next cell to visit; cells means the right-most pointer
}

// scan walks the table b-tree of t depth first.
func (db *DB) scan(t *table, idx []int, fn func(int64, []Value) error) error {
	visited := make([]uint64, (int(db.npages)+64)/64)
	seen := func(p uint32) bool {
		if visited[p/64]&(1<<(p%64)) != 0 {
			return true
		}
		visited[p/64] |= 1 << (p % 64)
		return false
	}
	vals := make([]Value, len(idx))
	var rec, ovf []byte // the record; the buffer of records with overflow pages
	var types []uint64
	var stack []*frame
	var free [][]byte
	push := func(p uint32, from uint32, off int64) error {
		if p == 0 || p > db.npages {
			return db.errf(from, off, "child page %d out of the file's %d pages", p, db.npages)
		}
		if seen(p) {
			return db.errf(from, off, "page %d is reached twice (a loop in the b-tree)", p)
		}
		if len(stack) > 64 {
			return db.errf(p, int64(p-1)*db.pageSize, "b-tree deeper than 64 levels")
		}
		var buf []byte
		if k := len(free); k > 0 {
			buf, free = free[k-1], free[:k-1]
		} else {
			buf = make([]byte, db.pageSize)
		}
		if err := db.page(p, buf); err != nil {
			return db.errf(p, int64(p-1)*db.pageSize, "%v", err)
		}
		h := 0
		if p == 1 {
			h = 100
		}
		switch buf[h] {
		case 5, 13:
		default:
			return db.errf(p, int64(p-1)*db.pageSize+int64(h), "page type %d is not a table b-tree page", buf[h])
		}
		f := &frame{page: p, buf: buf, hdr: h, cells: int(binary.BigEndian.Uint16(buf[h+3:]))}
		hl := 8
		if buf[h] == 5 {
			hl = 12
		}
		if h+hl+2*f.cells > int(db.usable) {
			return db.errf(p, int64(p-1)*db.pageSize+int64(h+3), "%d cells do not fit in the page", f.cells)
		}
		stack = append(stack, f)
		return nil
	}
	if err := push(t.root, 1, 0); err != nil {
		return err
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		buf, h := f.buf, f.hdr
		base := int64(f.page-1) * db.pageSize
		interior := buf[h] == 5
		hl := 8
		if interior {
			hl = 12
		}
		if f.next > f.cells || !interior && f.next == f.cells {
			free = append(free, buf)
			stack = stack[:len(stack)-1]
			continue
		}
		i := f.next
		f.next++
		if interior && i == f.cells {
			if err := push(binary.BigEndian.Uint32(buf[h+8:]), f.page, base+int64(h+8)); err != nil {
				return err
			}
			continue
		}
		ptrOff := h + hl + 2*i
		c := int(binary.BigEndian.Uint16(buf[ptrOff:]))
		if c < h+hl || c >= int(db.usable) {
			return db.errf(f.page, base+int64(ptrOff), "cell %d at offset %d outside the page's cell area", i, c)
		}
		cell := buf[c:db.usable]
		if interior {
			if len(cell) < 4 {
				return db.errf(f.page, base+int64(c), "truncated interior cell")
			}
			if err := push(binary.BigEndian.Uint32(cell), f.page, base+int64(c)); err != nil {
				return err
			}
			continue
		}
		psize, n1 := uvarint(cell)
		rowid, n2 := uvarint(cell[n1:])
		if n1 == 0 || n2 == 0 {
			return db.errf(f.page, base+int64(c), "truncated cell header")
		}
		if psize > uint64(db.size) {
			return db.errf(f.page, base+int64(c), "payload of %d bytes is larger than the file", psize)
		}
		P := int64(psize)
		local := db.localSize(P)
		body := cell[n1+n2:]
		if int64(len(body)) < local || local < P && int64(len(body)) < local+4 {
			return db.errf(f.page, base+int64(c), "payload of %d bytes runs past the page", P)
		}
		if local == P {
			rec = body[:P]
		} else {
			ovf = append(ovf[:0], body[:local]...)
			var err error
			if ovf, err = db.overflow(ovf, P, binary.BigEndian.Uint32(body[local:]), f.page, base+int64(c)+int64(n1+n2)+local, seen); err != nil {
				return err
			}
			rec = ovf
		}
		var err error
		if types, err = decodeRecord(rec, idx, t.rowid, int64(rowid), vals, types); err != nil {
			return db.errf(f.page, base+int64(c), "row %d: %v", int64(rowid), err)
		}
		if err := fn(int64(rowid), vals); err != nil {
			return err
		}
	}
	return nil
}

// localSize is the number of payload bytes of a table leaf cell stored on
// the page itself, per the file format.
func (db *DB) localSize(p int64) int64 {
	u := db.usable
	x := u - 35
	if p <= x {
		return p
	}
	m := (u-12)*32/255 - 23
	k := m + (p-m)%(u-4)
	if k <= x {
		return k
	}
	return m
}

// overflow appends to rec the rest of a payload of p bytes from the chain
// of overflow pages beginning at page first.
func (db *DB) overflow(rec []byte, p int64, first uint32, from uint32, off int64, seen func(uint32) bool) ([]byte, error) {
	buf := make([]byte, db.pageSize)
	for n := first; int64(len(rec)) < p; {
		if n == 0 || n > db.npages {
			return nil, db.errf(from, off, "overflow page %d out of the file's %d pages", n, db.npages)
		}
		if seen(n) {
			return nil, db.errf(from, off, "overflow page %d is reached twice", n)
		}
		if err := db.page(n, buf); err != nil {
			return nil, db.errf(n, int64(n-1)*db.pageSize, "%v", err)
		}
		take := min(p-int64(len(rec)), db.usable-4)
		rec = append(rec, buf[4:4+take]...)
		from, off = n, int64(n-1)*db.pageSize
		n = binary.BigEndian.Uint32(buf)
	}
	return rec, nil
}

// decodeRecord decodes the columns idx of a record into vals.
func decodeRecord(rec []byte, idx []int, rowidCol int, rowid int64, vals []Value, types []uint64) ([]uint64, error) {
	hs, n := uvarint(rec)
	if n == 0 || hs > uint64(len(rec)) || hs < uint64(n) {
		return types, errors.New("bad record header size")
	}
	types = types[:0]
	for p := n; p < int(hs); {
		st, k := uvarint(rec[p:int(hs)])
		if k == 0 {
			return types, errors.New("truncated record header")
		}
		types = append(types, st)
		p += k
	}
	// the offset of each column's value
	pos := int(hs)
	// the value offsets follow the serial types in the same slice
	nt := len(types)
	for range nt {
		types = append(types, 0)
	}
	starts := types[nt:]
	types = types[:nt]
	for i, st := range types {
		starts[i] = uint64(pos)
		l := serialLen(st)
		if l < 0 {
			return types, fmt.Errorf("reserved serial type %d", st)
		}
		if l > int64(len(rec))-int64(pos) { // not pos+l, which a huge serial type overflows
			return types, fmt.Errorf("column %d runs past the record", i)
		}
		pos += int(l)
	}
	for i, c := range idx {
		v := &vals[i]
		*v = Value{}
		if c == rowidCol {
			v.Type, v.Int = Integer, rowid
			continue
		}
		if c >= len(types) {
			continue // NULL
		}
		st, b := types[c], rec[starts[c]:]
		switch {
		case st == 0:
		case st <= 6:
			l := serialLen(st)
			var x int64
			for _, d := range b[:l] {
				x = x<<8 | int64(d)
			}
			shift := 64 - 8*uint(l)
			v.Type, v.Int = Integer, x<<shift>>shift
		case st == 7:
			v.Type, v.Float = Float, math.Float64frombits(binary.BigEndian.Uint64(b))
		case st == 8, st == 9:
			v.Type, v.Int = Integer, int64(st-8)
		case st >= 12:
			v.Type = Blob
			if st&1 == 1 {
				v.Type = Text
			}
			v.Bytes = b[:serialLen(st)]
		}
	}
	return types, nil
}

// serialLen is the length of a value of serial type st, -1 if reserved.
func serialLen(st uint64) int64 {
	switch {
	case st <= 4:
		return [...]int64{0, 1, 2, 3, 4}[st]
	case st == 5:
		return 6
	case st == 6, st == 7:
		return 8
	case st == 8, st == 9:
		return 0
	case st >= 12:
		return int64((st - 12) / 2)
	}
	return -1
}

// uvarint reads an SQLite varint (big-endian, 1 to 9 bytes); n is 0 when
// b is too short.
func uvarint(b []byte) (v uint64, n int) {
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return v, 9
}

// parseCreate returns the column names of a CREATE TABLE statement and the
// index of the column that aliases the rowid (a column of type INTEGER
// that is the PRIMARY KEY), or -1.
func parseCreate(sql string) ([]string, int, error) {
	open := strings.IndexByte(sql, '(')
	if open < 0 {
		return nil, -1, fmt.Errorf("no column list in %q", sql)
	}
	parts, err := splitTop(sql[open+1:])
	if err != nil {
		return nil, -1, err
	}
	var cols []string
	var types []string
	rowid := -1
	for _, p := range parts {
		p = strings.TrimSpace(p)
		up := strings.ToUpper(p)
		first := strings.Fields(up)
		if len(first) == 0 {
			continue
		}
		switch first[0] {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			if first[0] == "PRIMARY" && rowid < 0 {
				if i, j := strings.IndexByte(p, '('), strings.IndexByte(p, ')'); i >= 0 && j > i {
					names := strings.Split(p[i+1:j], ",")
					if len(names) == 1 {
						n := unquote(strings.Fields(names[0]))
						for k, c := range cols {
							if strings.EqualFold(c, n) && types[k] == "INTEGER" {
								rowid = k
							}
						}
					}
				}
			}
			continue
		}
		name, rest := nameOf(p)
		if name == "" {
			return nil, -1, fmt.Errorf("cannot read column definition %q", p)
		}
		restUp := strings.ToUpper(strings.TrimSpace(rest))
		typ := ""
		if f := strings.Fields(restUp); len(f) > 0 {
			typ = f[0]
		}
		cols = append(cols, name)
		types = append(types, typ)
		if typ == "INTEGER" && strings.Contains(restUp, "PRIMARY KEY") && !strings.Contains(restUp, "PRIMARY KEY DESC") && rowid < 0 {
			rowid = len(cols) - 1
		}
	}
	if len(cols) == 0 {
		return nil, -1, fmt.Errorf("no columns in %q", sql)
	}
	return cols, rowid, nil
}

func unquote(f []string) string {
	if len(f) == 0 {
		return ""
	}
	n, _ := nameOf(f[0])
	return n
}

// nameOf splits a column definition into its (unquoted) name and the rest.
func nameOf(p string) (string, string) {
	if p == "" {
		return "", ""
	}
	closer := map[byte]byte{'"': '"', '[': ']', '`': '`', '\'': '\''}
	if c, ok := closer[p[0]]; ok {
		var b strings.Builder
		for i := 1; i < len(p); i++ {
			if p[i] == c {
				if c != ']' && i+1 < len(p) && p[i+1] == c {
					b.WriteByte(c)
					i++
					continue
				}
				return b.String(), p[i+1:]
			}
			b.WriteByte(p[i])
		}
		return "", ""
	}
	i := strings.IndexAny(p, " \t\r\n")
	if i < 0 {
		return p, ""
	}
	return p[:i], p[i:]
}

// splitTop splits the column list (after its "(") at the commas outside
// parentheses and quotes, up to its closing ")".
func splitTop(s string) ([]string, error) {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', '`', '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := bytes.IndexByte([]byte(s[i+1:]), end)
			if j < 0 {
				return nil, errors.New("unterminated quote in CREATE TABLE")
			}
			i += j + 1
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return append(parts, s[start:i]), nil
			}
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return nil, errors.New("unterminated column list in CREATE TABLE")
}
