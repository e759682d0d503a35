package nsight

import "errors"

// ReadSQLite reads an SQLite export of nsys.
func ReadSQLite(path string, progress func(rows int64) error) (*Report, error) {
	return nil, &Error{Path: path, Err: errors.New("the SQLite export is not read yet")}
}
