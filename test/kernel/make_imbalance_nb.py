"""Writes notebooks/imbalance.ipynb: where a run loses time to imbalance and who causes it
(Weber 2016, 6.2), the run folded into one timeline (6.1) and the GPUs' idle time."""
from nbgen import code, md, write

md("""# Who makes everyone wait? Runtime imbalance, folded timelines and GPU idle time

The question of most performance reviews: *where does the run lose time to imbalance, and which
process causes it?* A timeline of a hundred ranks shows that the red MPI areas grow, but not who
makes the others wait. Weber's runtime imbalance analysis (2016, section 6.2) answers it
automatically: it finds the function that cuts the run into iterations, and measures each
invocation without the time spent waiting in synchronisation — the *synchronisation-oblivious
segment time* (SOS-time). A rank that only waits for a slow one does not look slow itself.""")

md("""## A run that gets slower

The generator writes a COSMO-SPECS-like run (Weber 6.2.4): 100 ranks on a 10 × 10 grid, where
the cloud microphysics of a few ranks around one spot of the domain costs more and more as the
clouds grow, and one other rank is interrupted in one iteration.""")
code('''run := synth.Generate(synth.COSMOSPECSConfig(100, 24))
run''', expect=["100 processes"])

md("""`imbalance.Analyze` picks the time-dominant function: the function invoked at least twice per
process with the largest aggregated inclusive time (`main` is larger, but called once per rank,
so it cannot segment the run). Synchronisation calls such as `MPI_Allreduce` are not
candidates: their SOS-time is zero by definition (`imbalance.WithSyncCandidates()` keeps them).
The headline answers *which rank, which iterations, how much time*; the table lists the
iterations with the most recoverable time (max − mean SOS-time: what a perfect balance of that
iteration's work would save); the heatmap shows every segment's SOS-time, cold blue for short
and warm red for long.""")
code('''ib := imbalance.Analyze(run)
ib''', expect=["dominant function solve", "rank 54 is the slowest in", "worst iteration 12", "culprit rank 20"])

md("""The candidates: the chosen function first, then the other functions that qualify, each part
by inclusive time. Those that do not qualify come last: `main` has the most inclusive time but
only p invocations, and the MPI calls are synchronisation.""")
code('''cand := ib.Candidates()
display.Show(cand.Head(4))
cand.Filter(arrowio.Col("Qualifies").Not())''', expect=["solve", "Segments the Run", "main", "MPI_Allreduce", "Synchronisation", "Qualifies"])

md("""Per process: rank 54 is the slowest in most iterations, and its neighbours follow. A process is
the culprit of an iteration only when its SOS-time is larger than every other's: ties name no
culprit (a perfectly balanced run has none). Sorted by how often each is the culprit:""")
code('''procs := slices.Clone(ib.ProcessList()) // shared: sort a copy
sort.Slice(procs, func(i, j int) bool { return procs[i].Slowest > procs[j].Slowest })
for _, p := range procs[:4] {
	fmt.Printf("%-8s slowest in %2d of %d iterations, SOS-time %s, waiting %s\\n", run.Process(p.Location).Label(), p.Slowest,
		len(ib.IterationList()), arrowio.FormatDuration(p.SOS), arrowio.FormatDuration(p.Sync))
}''', expect=["rank 54  slowest in"])

md("""The imbalance grows over the run: the ratio of the largest to the mean SOS-time per
iteration, and the time lost to waiting (synchronisation time summed over all ranks).""")
code('''its := ib.IterationList()
first, last := its[0], its[len(its)-1]
fmt.Printf("iteration 0: max/mean %.2f, waiting %s\\niteration %d: max/mean %.2f, waiting %s\\n",
	first.Ratio(), arrowio.FormatDuration(first.Sync), last.Index, last.Ratio(), arrowio.FormatDuration(last.Sync))''',
     expect=["iteration 0: max/mean 1.", "iteration 23: max/mean"])

md("""## A finer segmentation

Iteration 12 is the outlier, caused by rank 20. Segmenting by a shorter function narrows it down
to one call (Weber Fig. 6.12c): `WithFunction` picks any function.""")
code('''fine := imbalance.Analyze(run, imbalance.WithFunction("compute_flux"))
w, _ := fine.Worst()
fmt.Println(fine.Function(), "segments:", len(fine.SegmentList()), "- worst:", w.Index, "on", run.Process(w.Culprit).Label())''',
     expect=["compute_flux segments: 2400", "on rank 20"])

md("""## The tables, for pandas

Every view is an Arrow table; `arrowio.Write` stores it as Parquet for pandas or R.""")
code('''ib.Segments().Head(5)''', expect=["SOS-time (ns)", "Sync (ns)", "rank 0"])
code('''arrowio.Write("/tmp/imbalance-segments.parquet", ib.Segments())
fmt.Println("written")''', expect=["written"])

md("""## One timeline instead of a hundred: folding

A timeline of 100 ranks needs 100 rows; thousands do not fit a screen. Folding (Weber 6.1)
gives every process a state at each pixel — by default its state at the pixel's start, the
call on top of its stack, as a timeline viewer samples it; with `fold.WithTimeShare(true)` the
state it spends the most time in within the pixel — and reduces the pixel's states to one:
`fold.Max` shows the dominant behaviour, `fold.Min` the outliers, and `fold.Diff` leaves the
pixels where all processes do the same thing empty and shows the outliers elsewhere. The
strip's legend lists the regions by the share of pixels they take.""")
code('''fold.Timeline(run, fold.Max, 1200)''', expect=["fold.max: 100 streams, 1200 pixels", "MPI_Allreduce"])
md("""Towards the end of the run most ranks wait in `MPI_Allreduce` for the few around rank 54:
the dominant state of the last iterations is the collective. `fold.Min` shows what the minority
does at the same time — computing.""")
code('''last := its[len(its)-1]
fold.Timeline(run, fold.Min, 600, fold.WithRange(last.Start, last.End))''', expect=["fold.min: 100 streams, 600 pixels"])
md("""Fold only the ranks around the hot spot with `WithProcesses` (a cluster group works the
same way), here as a table of pixels: each pixel's state and the share of ranks in it.""")
code('''var hot []*trace.Process
for _, r := range []int{44, 45, 53, 54, 55, 64, 65} {
	hot = append(hot, run.Process(r))
}
fold.Timeline(run, fold.Max, 12, fold.WithProcesses(hot...), fold.WithRange(last.Start, last.End)).Table()''',
     expect=["Pixel", "Share", "12 rows"])

md("""## GPU idle time

A GPU with several streams is idle only when none of them runs a kernel; the scattered gaps of
each stream say little. `fold.Idle` folds a device's streams so that the idle state shows only
where the whole device is idle (Weber 6.1.2). As in the seed's PIConGPU case it goes by each
pixel's time share: a pixel is idle when the device — the union of its streams — is idle for
more than half of it, so the strip agrees with the utilisation beside it (sampling each pixel's
start instead, `fold.WithTimeShare(false)`, can draw a GPU that is busy 90% of the time all
idle). `fold.GPUUtilisation` measures the device's busy time exactly over the run and per
window. The generated hybrid run: 4 ranks, one GPU each with 4 streams; the GPU waits while its
host computes and communicates.""")
code('''hyb := synth.Generate(synth.HybridGPUConfig(4, 4, 10))
fold.Timeline(hyb, fold.Idle, 1200, fold.WithDevice(0))''', expect=["fold.idle: 4 streams, 1200 pixels", "): idle "])
code('''util := fold.GPUUtilisation(hyb)
util''', expect=["GPU utilisation over", "GPU 0 1", "utilisation"])
code('''fold.GPUUtilisation(hyb, fold.WithWindows(5)).Table()''', expect=["Busy (ns)", "Idle (ns)", "20 rows"])

md("""## A real trace

The ping-pong trace of two ranks (Score-P, OTF2) has no computing loop: the only functions
called at least twice per rank are `MPI_Send` and `MPI_Recv`, synchronisation calls whose
SOS-time is zero everywhere. So no function segments the run, and `Analyze` says so instead of
picking one.""")
code('''pp := trace.Open("../test/data/traces/ping-pong-otf2/traces.otf2")
pp''', expect=["2 processes"])
code('''imbalance.Analyze(pp)''', expect=["no function but synchronisation calls is invoked at least 2p = 4 times", "MPI_Send (16 invocations)", "WithSyncCandidates"],
     raises=True)

md("""Kept as candidates, `MPI_Send` would segment the run, and the analysis shows why it should not:
every SOS-time is zero.""")
code('''fmt.Println(imbalance.Analyze(pp, imbalance.WithSyncCandidates()))''', expect=["dominant function MPI_Send", "every SOS-time is 0"])

write("notebooks/imbalance.ipynb")
