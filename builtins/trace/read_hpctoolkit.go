package trace

import "errors"

// loadHPCToolkit reads an HPCToolkit v4 database directory (meta.db,
// trace.db, ...).
func loadHPCToolkit(dir string, cfg loadConfig) (*Trace, error) {
	return nil, &Error{Path: dir, Offset: -1, Err: errors.New("HPCToolkit databases are not read yet")}
}
