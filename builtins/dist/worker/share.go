package worker

import "github.com/tracebook/tracebook/builtins/trace"

// Shares splits the processes of tr among n ranks: contiguous blocks in
// process order, balanced by the number of events each location declares
// (Definitions.Locations[p.Location].NumEvents), so that every rank reads
// about as many events. Rank r gets Shares(tr, n)[r], the Process.Index of
// its processes in increasing order. Every rank gets at least one process
// when there are at least n; otherwise some get none.
//
// Block r ends at the process boundary nearest to where the running sum of
// events crosses (r+1)/n of the total, so a rank reads at most the total/n
// plus the largest location's events. A location counts one event more than
// it declares: a trace that declares no counts is split by process count.
func Shares(tr *trace.Trace, n int) [][]int {
	procs := tr.Processes()
	weights := make([]int64, len(procs))
	for i, p := range procs {
		weights[i] = 1
		if p.Location >= 0 && p.Location < len(tr.Defs.Locations) {
			weights[i] += int64(min(tr.Defs.Locations[p.Location].NumEvents, 1<<40))
		}
	}
	out := make([][]int, n)
	for r, b := range splitBalanced(weights, n) {
		for _, p := range procs[b[0]:b[1]] {
			out[r] = append(out[r], p.Index)
		}
	}
	return out
}

// splitBalanced cuts weights into n contiguous blocks [lo, hi) of positions,
// block r ending at the boundary whose prefix sum is nearest r+1 n-ths of the
// total; blocks are not empty when there are at least n weights.
func splitBalanced(weights []int64, n int) [][2]int {
	prefix := make([]int64, len(weights)+1)
	for i, w := range weights {
		prefix[i+1] = prefix[i] + w
	}
	total, m := prefix[len(weights)], len(weights)
	blocks := make([][2]int, n)
	lo, j := 0, 0
	for r := 0; r < n; r++ {
		hi := m
		if r < n-1 {
			// the boundary j nearest the target: prefix[j] <= target < prefix[j+1]
			// or the next one, whichever is closer (the next on a tie)
			target := float64(total) * float64(r+1) / float64(n)
			for j < m && float64(prefix[j+1]) <= target {
				j++
			}
			hi = j
			if j < m && float64(prefix[j+1])-target <= target-float64(prefix[j]) {
				hi = j + 1
			}
			if m >= n {
				hi = max(hi, lo+1)      // not empty
				hi = min(hi, m-(n-1-r)) // one left for each later rank
			}
			hi = max(hi, lo)
		}
		blocks[r] = [2]int{lo, hi}
		lo = hi
	}
	return blocks
}
