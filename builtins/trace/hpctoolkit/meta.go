package hpctoolkit

import (
	"io"
)

// Meta is the content of meta.db that traces need.
type Meta struct {
	Minor       uint8 // the file's minor version
	Title       string
	Description string
	IDNames     []string // the names of identifier kinds, by kind ("NODE", "RANK", "THREAD", ...)
	Metrics     []string // the names of the performance metrics
	Modules     []Module
	Files       []File
	Functions   []Function
	// Contexts is the context tree in depth-first order: a context comes
	// after its parent, and the entry points are its roots.
	Contexts []Context

	byID map[uint32]int32
}

// Module is a load module (a binary or shared library).
type Module struct {
	Path string
}

// File is a source file.
type File struct {
	Path   string
	Copied bool // copied into the database's src/ directory
}

// Function is a named source-level construct.
type Function struct {
	Name   string // "" for an anonymous function
	Module int32  // index into Meta.Modules, -1 if none
	Offset uint64 // entry point's offset in the module
	File   int32  // index into Meta.Files, -1 if none
	Line   uint32 // line of the definition in File
}

// Lexical types of a context (Context.Lexical).
const (
	LexFunction    = 0 // a function (Context.Function, or an unknown function when -1)
	LexLoop        = 1 // a loop, whose header is at File:Line
	LexLine        = 2 // a source line File:Line
	LexInstruction = 3 // an instruction at Module+Offset
)

// Relations of a context to its parent (Context.Relation).
const (
	RelLexical = 0 // enclosed by its parent (no call)
	RelCall    = 1 // called from its parent
	RelInlined = 2 // inlined call from its parent
)

// Context is a node of the calling context tree: an entry point (a root)
// or a lexical context.
type Context struct {
	ID     uint32
	Parent int32 // index into Meta.Contexts; -1 for an entry point

	// Of an entry point: EntryPoint is true, Entry its type (0 unknown
	// entry, 1 main thread, 2 application thread) and Name its pretty name.
	EntryPoint bool
	Entry      uint16
	Name       string

	Relation uint8 // RelLexical, RelCall, RelInlined
	Lexical  uint8 // LexFunction, LexLoop, LexLine, LexInstruction
	Function int32 // index into Meta.Functions, -1 if none
	File     int32 // index into Meta.Files, -1 if none
	Line     uint32
	Module   int32 // index into Meta.Modules, -1 if none
	Offset   uint64
}

// Context returns the index into m.Contexts of the context with id, or -1.
func (m *Meta) Context(id uint32) int32 {
	if i, ok := m.byID[id]; ok {
		return i
	}
	return -1
}

// ReadMeta reads the meta.db file name.
func ReadMeta(name string) (*Meta, error) {
	f, size, err := openFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readMeta(name, f, size)
}

const metaSections = 8

// meta.db sections, in header order.
const (
	secGeneral = iota
	secIDNames
	secMetrics
	secContext
	secStrings
	secModules
	secFiles
	secFunctions
)

func readMeta(name string, f io.ReaderAt, size int64) (m *Meta, err error) {
	h, err := readHeader(name, f, size, "meta", metaFooter, metaSections)
	if err != nil {
		return nil, err
	}
	b := make([]byte, size) // the header check bounds size by the file
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return nil, &Error{File: name, Offset: 0, Err: err}
	}
	s := &span{file: name, b: b}
	defer catch(&err)
	m = &Meta{Minor: h.Minor}
	sec := h.Sections

	// General properties.
	if g := sec[secGeneral]; g.Size > 0 {
		m.Title = s.str(s.u64(g.Pointer, "pTitle"), g, "title")
		m.Description = s.str(s.u64(g.Pointer+8, "pDescription"), g, "description")
	}
	// Identifier names.
	if in := sec[secIDNames]; in.Size > 0 {
		pp := s.u64(in.Pointer, "ppNames")
		n := int(s.u8(in.Pointer+8, "nKinds"))
		s.at(pp, 8*n, "identifier names array")
		for i := 0; i < n; i++ {
			m.IDNames = append(m.IDNames, s.str(s.u64(pp+8*uint64(i), "identifier name pointer"), in, "identifier name"))
		}
	}
	// Metric names.
	if ms := sec[secMetrics]; ms.Size > 0 {
		p := s.u64(ms.Pointer, "pMetrics")
		n := uint64(s.u32(ms.Pointer+8, "nMetrics"))
		sz := uint64(s.u8(ms.Pointer+0xc, "szMetric"))
		if n > 0 && sz < 8 {
			s.fail(int64(ms.Pointer+0xc), "szMetric %d is smaller than the fields read (8)", sz)
		}
		s.at(p, int(min(n*sz, uint64(len(b))+1)), "metric descriptions")
		for i := uint64(0); i < n; i++ {
			m.Metrics = append(m.Metrics, s.str(s.u64(p+i*sz, "pName"), ms, "metric name"))
		}
	}
	strs := sec[secStrings]
	// Load modules.
	pModules, nModules, szModule := s.table(sec[secModules], "Modules", "szModule", 0x10, "load modules")
	if nModules > 0 {
		m.Modules = make([]Module, nModules)
		for i := range m.Modules {
			m.Modules[i].Path = s.str(s.u64(pModules+uint64(i)*szModule+8, "pPath"), strs, "module path")
		}
	}
	module := func(p, at uint64) int32 {
		if p == 0 {
			return -1
		}
		return s.index(p, pModules, nModules, szModule, at, "module pointer")
	}
	// Source files.
	pFiles, nFiles, szFile := s.table(sec[secFiles], "Files", "szFile", 0x10, "source files")
	if nFiles > 0 {
		m.Files = make([]File, nFiles)
		for i := range m.Files {
			o := pFiles + uint64(i)*szFile
			m.Files[i] = File{Copied: s.u32(o, "flags")&1 != 0, Path: s.str(s.u64(o+8, "pPath"), strs, "source file path")}
		}
	}
	file := func(p, at uint64) int32 {
		if p == 0 {
			return -1
		}
		return s.index(p, pFiles, nFiles, szFile, at, "source file pointer")
	}
	// Functions.
	pFuncs, nFuncs, szFunc := s.table(sec[secFunctions], "Functions", "szFunction", 0x24, "functions")
	if nFuncs > 0 {
		m.Functions = make([]Function, nFuncs)
		for i := range m.Functions {
			o := pFuncs + uint64(i)*szFunc
			fn := &m.Functions[i]
			if p := s.u64(o, "pName"); p != 0 {
				fn.Name = s.str(p, strs, "function name")
			}
			fn.Module = module(s.u64(o+8, "pModule"), o+8)
			fn.Offset = s.u64(o+0x10, "offset")
			fn.File = file(s.u64(o+0x18, "pFile"), o+0x18)
			fn.Line = s.u32(o+0x20, "line")
		}
	}
	function := func(p, at uint64) int32 {
		return s.index(p, pFuncs, nFuncs, szFunc, at, "function pointer")
	}
	m.readContexts(s, sec[secContext], strs, module, file, function)
	return m, nil
}

// table reads the header of a meta.db section that is one array (load
// modules, source files, functions): its pointer (p<name>), count
// (n<name>) and element size (sizeField, at least minSize), and checks the
// array against the file before anything is made for it. An empty section
// is an empty array.
func (s *span) table(sec section, name, sizeField string, minSize uint64, what string) (p, n, size uint64) {
	if sec.Size == 0 {
		return 0, 0, 0
	}
	p = s.u64(sec.Pointer, "p"+name)
	n = uint64(s.u32(sec.Pointer+8, "n"+name))
	size = uint64(s.u16(sec.Pointer+0xc, sizeField))
	if n > 0 && size < minSize {
		s.fail(int64(sec.Pointer+0xc), "%s %d is smaller than %d", sizeField, size, minSize)
	}
	s.at(p, int(min(n*size, uint64(len(s.b))+1)), what)
	return p, n, size
}

// readContexts reads the context tree, depth first, with an explicit stack
// (a corrupt file cannot overflow the goroutine's stack) and a bound on the
// number of contexts (one whose children pointers loop cannot run forever).
func (m *Meta) readContexts(s *span, ct, strs section, module, file, function func(p, at uint64) int32) {
	if ct.Size == 0 {
		return
	}
	pEntries := s.u64(ct.Pointer, "pEntryPoints")
	nEntries := uint64(s.u16(ct.Pointer+8, "nEntryPoints"))
	szEntry := uint64(s.u8(ct.Pointer+0xa, "szEntryPoint"))
	if nEntries > 0 && szEntry < 0x20 {
		s.fail(int64(ct.Pointer+0xa), "szEntryPoint %d is smaller than 32", szEntry)
	}
	s.at(pEntries, int(nEntries*szEntry), "entry points")
	within := func(p, n, at uint64, what string) {
		if p < ct.Pointer || p > ct.Pointer+ct.Size || n > ct.Pointer+ct.Size-p {
			s.fail(int64(min(at, 1<<62)), "%s [%d, +%d bytes) lies outside the context tree section [%d, %d)", what, p, n, ct.Pointer, ct.Pointer+ct.Size)
		}
	}
	maxContexts := ct.Size / 0x20 // every context takes at least 32 bytes of the section
	m.byID = map[uint32]int32{}
	add := func(c Context, at uint64) int32 {
		if uint64(len(m.Contexts)) >= maxContexts {
			s.fail(int64(at), "more contexts than the context tree section can hold (children pointers loop)")
		}
		if c.ID == 0 {
			s.fail(int64(at), "context id 0 (reserved for the global context)")
		}
		if _, dup := m.byID[c.ID]; dup {
			s.fail(int64(at), "context id %d defined twice", c.ID)
		}
		i := int32(len(m.Contexts))
		m.byID[c.ID] = i
		m.Contexts = append(m.Contexts, c)
		return i
	}
	type array struct {
		parent int32
		p, end uint64
	}
	var stack []array
	children := func(parent int32, sz, p, at uint64) {
		if sz == 0 || p == 0 {
			return
		}
		within(p, sz, at, "children array")
		stack = append(stack, array{parent, p, p + sz})
	}
	for i := uint64(0); i < nEntries; i++ {
		o := pEntries + i*szEntry
		within(o, 0x20, o, "entry point")
		c := Context{ID: s.u32(o+0x10, "ctxId"), Parent: -1, EntryPoint: true, Entry: s.u16(o+0x14, "entryPoint"),
			Function: -1, File: -1, Module: -1}
		c.Name = s.str(s.u64(o+0x18, "pPrettyName"), strs, "entry point name")
		idx := add(c, o+0x10)
		children(idx, s.u64(o, "szChildren"), s.u64(o+8, "pChildren"), o)
		// depth first: read this entry's subtree before the next entry
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.p >= top.end {
				stack = stack[:len(stack)-1]
				continue
			}
			o := top.p
			if top.end-o < 0x20 {
				s.fail(int64(o), "context overruns its children array (%d bytes left)", top.end-o)
			}
			flags := s.u8(o+0x14, "flags")
			nFlex := uint64(s.u8(o+0x17, "nFlexWords"))
			size := 0x20 + 8*nFlex
			if top.end-o < size {
				s.fail(int64(o+0x17), "context of %d bytes overruns its children array (%d bytes left)", size, top.end-o)
			}
			top.p += size
			parent := top.parent
			c := Context{ID: s.u32(o+0x10, "ctxId"), Parent: parent, Relation: s.u8(o+0x15, "relation"),
				Lexical: s.u8(o+0x16, "lexicalType"), Function: -1, File: -1, Module: -1}
			w := o + 0x20 // next flex word
			word := func(what string) uint64 {
				if w+8 > o+size {
					s.fail(int64(o+0x17), "nFlexWords %d too small for the fields its flags 0x%x announce (%s)", nFlex, flags, what)
				}
				v := s.u64(w, what)
				w += 8
				return v
			}
			if flags&1 != 0 {
				at := w
				c.Function = function(word("pFunction"), at)
			}
			if flags&2 != 0 {
				at := w
				c.File = file(word("pFile"), at)
				c.Line = uint32(word("line"))
			}
			if flags&4 != 0 {
				at := w
				c.Module = module(word("pModule"), at)
				c.Offset = word("offset")
			}
			idx := add(c, o+0x10)
			children(idx, s.u64(o, "szChildren"), s.u64(o+8, "pChildren"), o)
		}
	}
}
