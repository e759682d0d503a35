package trace

import "errors"

// loadNsightSQLite reads an Nsight Systems SQLite export.
func loadNsightSQLite(path string, cfg loadConfig) (*Trace, error) {
	return nil, &Error{Path: path, Offset: -1, Err: errors.New("Nsight Systems SQLite exports are not read yet")}
}

// loadNsightCSV reads an Nsight Systems CSV report.
func loadNsightCSV(path string, cfg loadConfig) (*Trace, error) {
	return nil, &Error{Path: path, Offset: -1, Err: errors.New("Nsight Systems CSV reports are not read yet")}
}

// isNsightCSV tells whether a .csv file is an Nsight Systems report rather
// than an event table.
func isNsightCSV(path string) bool { return false }
