package trace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Open reads the trace at path (see Load) for the one-line notebook path:
// on failure it panics with the *Error that Load returns.
func Open(path string, opts ...Option) *Trace {
	t, err := Load(path, opts...)
	if err != nil {
		var te *Error
		if errors.As(err, &te) {
			panic(te)
		}
		panic(&Error{Path: path, Offset: -1, Err: err})
	}
	return t
}

// Load reads a trace: an OTF2 archive of any version (its anchor file,
// *.otf2, or the archive directory holding exactly one anchor), an
// HPCToolkit v4 database (its directory or meta.db), Charm++ Projections
// logs (the .sts file, or a directory holding one), an Nsight Systems
// SQLite export (.sqlite) or CSV report (nvtx_pushpop_trace,
// cuda_api_trace, cuda_gpu_trace: told from event tables by their header),
// an events table in pipit's schema (.parquet/.pq, .arrow/.feather/.ipc,
// .csv), or a Chrome/Perfetto Trace Event Format file (.json, .json.gz: see
// ReadChrome and chrome_read.go for what each phase becomes). Errors are
// *Error values naming the file and, where the format has them, the byte
// offset (line, row).
func Load(path string, opts ...Option) (*Trace, error) {
	var cfg loadConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, &Error{Path: path, Offset: -1, Err: err}
	}
	if st.IsDir() {
		if isFile(filepath.Join(path, "meta.db")) {
			return cfg.apply(loadHPCToolkit(path, cfg))
		}
		anchors, _ := filepath.Glob(filepath.Join(path, "*.otf2"))
		sts, _ := filepath.Glob(filepath.Join(path, "*.sts"))
		switch {
		case len(anchors) == 1 && len(sts) == 0:
			path = anchors[0]
		case len(sts) == 1 && len(anchors) == 0:
			path = sts[0]
		default:
			return nil, &Error{Path: path, Offset: -1, Err: errors.New("directory does not hold exactly one trace: an OTF2 anchor file (*.otf2), an HPCToolkit database (meta.db) or a Projections log set (*.sts)")}
		}
	}
	if isChromePath(path) {
		return cfg.apply(loadChrome(path))
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".otf2":
		return cfg.apply(loadOTF2(path, cfg))
	case ".db":
		if filepath.Base(path) == "meta.db" {
			return cfg.apply(loadHPCToolkit(filepath.Dir(path), cfg))
		}
	case ".sts":
		return cfg.apply(loadProjections(path, cfg))
	case ".sqlite", ".sqlite3":
		return cfg.apply(loadNsightSQLite(path, cfg))
	case ".csv":
		if isNsightCSV(path) {
			return cfg.apply(loadNsightCSV(path, cfg))
		}
		return cfg.apply(loadTable(path))
	case ".parquet", ".pq", ".arrow", ".feather", ".ipc":
		return cfg.apply(loadTable(path))
	}
	return nil, &Error{Path: path, Offset: -1, Err: errors.New("unknown trace format (want an OTF2 anchor .otf2, an HPCToolkit database directory or meta.db, a Projections .sts, an Nsight Systems .sqlite or CSV report, .parquet, .arrow, .feather, .csv, .json or .json.gz)")}
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// Option changes how Open and Load read a trace.
type Option func(*loadConfig)

// loadConfig is what the Options of one Load asked for.
type loadConfig struct {
	skipDamaged bool   // see WithSkipDamaged
	name        string // Named
	noEvents    bool   // see WithoutEvents
	only        []int  // see WithShare; nil reads every process
	onlySet     bool
}

// apply sets on a loaded trace what the options ask for once it is read.
func (c *loadConfig) apply(t *Trace, err error) (*Trace, error) {
	if err != nil {
		return t, err
	}
	if c.name != "" {
		t.name = c.name
	}
	if c.onlySet {
		if t, err = t.keepOnly(c.only); err != nil {
			return nil, err
		}
	}
	if c.noEvents {
		t.dropEvents()
	}
	return t, nil
}

// WithName names the run (Trace.Name) instead of its directory or file
// name: trace.Open("runs/a/traces.otf2", trace.WithName("32 ranks")).
func WithName(name string) Option { return func(c *loadConfig) { c.name = name } }

// Named names the run.
//
// Deprecated: use WithName.
func Named(name string) Option { return WithName(name) }

// WithSkipDamaged makes Load read an OTF2 trace one of whose location files is
// truncated, corrupt or missing (or Projections logs one of whose PE logs
// is): the locations that read correctly are loaded, each damaged one is
// left out whole (none of its events is kept, since those read before the
// damage end at an arbitrary point) and listed by Trace.Damaged with the error that reading it gave, and the trace's
// String and Summary say how many are missing. Without it such a trace
// does not load. Damaged global files (anchor, global definitions) still
// fail the load, as does a trace none of whose locations reads, and an
// interrupted load. Tables (.parquet, .arrow, .csv) are read whole or not
// at all: the option does not apply to them.
func WithSkipDamaged() Option { return func(c *loadConfig) { c.skipDamaged = true } }

// WithoutEvents makes Load read the definitions and the list of processes
// only: every process is there with its index, rank, thread and name, and
// none of its events, which are held elsewhere (Process.Remote): the trace
// the notebook holds of a trace whose events an MPI job reads (package
// dist). Functions that need the events of such a process panic with an
// *Error saying so, until its events are set (Process.SetEvents).
func WithoutEvents() Option { return func(c *loadConfig) { c.noEvents = true } }

// WithShare makes Load read the events of the processes with these
// indices (Process.Index of the whole trace) only: a share of the trace,
// as one rank of an MPI job reads it. The trace holds those processes,
// with the indices, ranks and names they have in the whole trace, as
// Subset would (Trace.Process(i) looks a process up by its index), and no
// metric streams. OTF2 keeps one file per location, so the files of the
// other locations are not opened. An index out of range is an error.
func WithShare(indices ...int) Option {
	return func(c *loadConfig) { c.only, c.onlySet = append([]int(nil), indices...), true }
}

// WithSkipDamaged reads what is readable of a damaged trace.
//
// Deprecated: use WithSkipDamaged.
func SkipDamaged() Option { return WithSkipDamaged() }
