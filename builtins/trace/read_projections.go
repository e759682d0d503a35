package trace

import "errors"

// loadProjections reads a Charm++ Projections log set from its .sts file.
func loadProjections(sts string, cfg loadConfig) (*Trace, error) {
	return nil, &Error{Path: sts, Offset: -1, Err: errors.New("Projections logs are not read yet")}
}
