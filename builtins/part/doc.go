// Package part is the one contract by which every method's per-process part
// is computed on a subset of the processes and merged: on the cores of this
// machine today (Run), on many machines under MPI next, with the same types.
//
// A Method is one computation with its parameters fixed. It runs in one or
// more rounds; in each round every subset of the processes yields a Partial,
// the partials merge (associatively and commutatively: any split, any tree
// of merges gives the same result), and between rounds the root turns the
// merged partial into a decision the next round needs (the dominant function,
// the global range of message sizes, the bins to refine):
//
//	m := profile.CommMethod(opts...)           // a method with its parameters
//	p, err := part.Run(tr, tr.Processes(), m)    // one subset per core, merged
//
// The same steps one by one, as a worker and its parent in a reduction tree
// take them:
//
//	a, _ := m.Compute(tr, procsOfThisWorker, 0, nil)
//	b, _ := part.Encode(m, 0, a)               // framed: name, round, checksum
//	c, _ := part.Decode(m, 0, b)               // on the parent
//	err := mine.Merge(c)                       // the receiver absorbs the other
//
// Merge returns an error, never panics, on a mismatch (another method,
// other parameters, processes present in both): across machines a mismatch
// is data, not a programming error. Partials encode themselves
// (MarshalBinary, with their own version); Encode frames them with the
// method's name, a hash of its parameters, the round and a CRC-32C, so a
// partial of the wrong method or a damaged message is refused by Decode.
//
// Methods register by name (Register) so that a worker rebuilds the method a
// request names from its encoded parameters (Lookup). The contract suite
// parttest checks every registered method: random splits, merges in random
// tree orders with encode/decode round trips in between, equal to the whole.
package part
