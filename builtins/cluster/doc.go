// Package cluster groups the processes of a run by their call structure:
// structural clustering after Weber 2016, section 5.1, and the
// structural-clustering paper (shared/seeds/weber-2016-structural-clustering.txt,
// "SC").
package cluster
