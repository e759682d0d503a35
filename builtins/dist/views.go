package dist

import (
	"github.com/tracebook/tracebook/arrowio"
	"github.com/tracebook/tracebook/builtins/display"
)

// Table returns the requests the job answered, one row each: the request
// (method and round, or the trace opened), the wall time at the kernel, the
// bytes of the answer sent to the kernel, the bytes of partials sent up the
// tree between ranks, the largest peak memory of a rank, and the slowest
// rank with its time.
func (j *Job) Table() *arrowio.Table {
	recs := j.Records()
	n := len(recs)
	req := make([]string, n)
	sec, slowSec := make([]float64, n), make([]float64, n)
	toK, between, rss, slow := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, r := range recs {
		req[i], sec[i], toK[i], between[i], rss[i] = r.Request, r.Seconds, r.BytesToKernel, r.BytesBetween, r.MaxPeakRSS
		slow[i], slowSec[i] = int64(r.SlowestRank), r.SlowestSeconds
	}
	return arrowio.MustTable(arrowio.String("Request", req), arrowio.Float64("Wall (s)", sec).WithUnit("s"),
		arrowio.Int64("Bytes to Kernel", toK).WithUnit("B"), arrowio.Int64("Bytes between Ranks", between).WithUnit("B"),
		arrowio.Int64("Max Peak Memory of a Rank (B)", rss).WithUnit("B"),
		arrowio.Int64("Slowest Rank", slow), arrowio.Float64("Slowest Rank's Time (s)", slowSec).WithUnit("s"))
}

// RanksTable returns, per rank and trace opened, the rank's share: host,
// process id, processes, events, the time it took to read them and its
// peak memory.
func (j *Job) RanksTable() *arrowio.Table {
	j.mu.Lock()
	defer j.mu.Unlock()
	var path, host []string
	var rank, pid, procs, events, rss []int64
	var sec []float64
	for _, o := range j.opened {
		for _, r := range o.reports {
			path, host = append(path, o.path), append(host, r.Host)
			rank, pid, procs, events = append(rank, int64(r.Rank)), append(pid, int64(r.PID)), append(procs, int64(r.Procs)), append(events, r.Events)
			sec, rss = append(sec, r.Seconds), append(rss, r.PeakRSS)
		}
	}
	return arrowio.MustTable(arrowio.String("Trace", path), arrowio.Int64("Rank", rank), arrowio.String("Host", host),
		arrowio.Int64("PID", pid), arrowio.Int64("Processes", procs), arrowio.Int64("Events", events),
		arrowio.Float64("Read (s)", sec).WithUnit("s"), arrowio.Int64("Peak Memory (B)", rss).WithUnit("B"))
}

// MIMEBundle shows the job's line and its ranks' shares.
func (j *Job) MIMEBundle() map[string]any {
	return display.Composition{Headline: j.String(), Table: j.RanksTable(), Note: "j.Table(): the requests answered, with time, bytes moved and peak memory"}.MIMEBundle()
}
