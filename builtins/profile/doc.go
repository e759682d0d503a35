// Package profile is what an analyst opens first, for one run and for two runs side by side:
// distribution profiles and call matrices (Brendel 2018, shared/seeds/brendel-2018-visualising-
// differences.txt, sections 3.1 and 3.2) and the communication views of LLNL pipit.
//
//	profile.Boxes(tr)            // per function: count, sum, min, max, 2/25/50/75/98th percentiles
//	profile.CallMatrix(tr)       // caller x callee buckets of the same distributions
//	profile.Compare(a, b)        // two runs: change of count and of each percentile per function
//	profile.CommMatrix(tr)       // sender x receiver messages and bytes
//	profile.MessageHistogram(tr) // message sizes
//
// # Percentiles
//
// Percentiles are exact, by linear interpolation between the closest ranks (Hyndman and Fan's
// type 7, the default of numpy.percentile and pandas.quantile): for n sorted values x[0..n-1]
// the p-th percentile is x[k] + f (x[k+1] - x[k]) with h = (n-1) p/100, k = floor(h), f = h - k.
// The median of an even number of values is the mean of the two middle ones, as Brendel
// describes it. They are computed by selection, never by sorting a whole sample.
//
// Bad arguments panic with an *Error naming the function; interrupted work stops within a few
// milliseconds.
package profile
