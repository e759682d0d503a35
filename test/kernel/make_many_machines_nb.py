"""Writes notebooks/many-machines.ipynb: the same methods on this machine and on a job of 4 MPI
ranks (dist.Start), with identical results table by table; what the job moved and how long it
took; a real trace; the job stopped."""
from nbgen import code, md, write

md("""# From one machine to many: the same analysis on an MPI job

A trace of 10⁴–10⁵ ranks and tens of GB does not fit a workstation. tracebook's methods split
into a part computed per process and a merge (the partial contract of package `part`), so they run
where the trace's locations are: on the ranks of an **Open MPI** job, each reading only its share
of the trace's files, with the partial results merged up a binomial tree of ranks to rank 0 and
sent to this notebook. The results are the same types with the same views as on one machine:
a notebook moves to many machines by changing **the line that opens the trace**.

```go
tr := trace.Open(path)        // one machine
tr := job.Open(path)          // the ranks of an MPI job: the only line that changes
```

This notebook runs the job on this machine (`dist.Start(4)`: `mpirun -np 4 --oversubscribe` on
loopback). On a cluster, `dist.Listen()` prints the worker command for the batch script
(`srun tracebook-mpi worker ...`) and the ranks connect back (see the README, "Many machines").""")

md("""## Two runs to analyse

Two runs of the generator's iterative solver, at 32 and 64 ranks with the same total work (rank 5
is slow in both), written as event tables (pipit's schema, Arrow IPC) in a temporary directory.
An OTF2 archive works the same way and is better still: OTF2 keeps one file per location, so a
rank reads only its share's files.""")
code('''dir, _ := os.MkdirTemp("", "many-machines-")
cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations, cfg.SlowRank, cfg.SlowFactor = 32, 40, 5, 1.5
runA := filepath.Join(dir, "32-ranks.arrow")
arrowio.WriteIPC(runA, synth.Generate(cfg).Events())
cfg.Ranks, cfg.UnitNs = 64, cfg.UnitNs/2 // the same total work over twice the ranks
runB := filepath.Join(dir, "64-ranks.arrow")
arrowio.WriteIPC(runB, synth.Generate(cfg).Events())
a, b := trace.Open(runA), trace.Open(runB) // on this machine, for comparison
fmt.Println(a)
fmt.Println(b)''', expect=["32 processes", "64 processes"])

md("""## Start a job and open the runs on it

`dist.Start(4)` launches four workers (`tracebook-mpi`, built against Open MPI's libmpi; the
kernel itself stays pure Go) and waits for rank 0 to connect back. The link is TCP on loopback,
authenticated with a fresh key (HMAC, as Jupyter's own wire): a connection without the key is
refused. `job.Open` has every rank read its share of the processes — contiguous blocks balanced by
their events — and gives the notebook a trace holding the definitions and the list of processes,
**without their events**: those stay on the ranks. The table shows each rank's share.""")
code('''job := dist.Start(4)
da, db := job.Open(runA), job.Open(runB)
job''', expect=["MPI job (mpirun): 4 ranks", "Processes", "Read (s)"])

code('''da''', expect=["held by the ranks of an MPI job", "32 locations"])

md("""## The same methods, the same results

Every method below runs twice: on the runs loaded here and on the job. On the job, each rank
computes the partial of its share; rank 3 sends its encoded partial to rank 2, ranks 1 and 2 to
rank 0, each parent merging what it receives; methods with several rounds (the imbalance
analysis finds the time-dominant function first, then its segments; the histogram fixes its bins
from the global range of sizes; exact percentiles refine the bins that hold them) take the
decision between rounds here, as on one machine. `Table.Equal` compares the two results cell by
cell and names the first difference if there is one.""")
code('''same := func(what string, local, distributed *arrowio.Table) {
	if err := local.Equal(distributed); err != nil {
		panic(what + ": the distributed result differs: " + err.Error())
	}
	fmt.Printf("%-40s identical: %5d rows × %2d columns\\n", what, local.NumRows(), local.NumCols())
}
same("profile.Boxes", profile.Boxes(a).Table(), profile.Boxes(da).Table())
same("profile.CallMatrix", profile.CallMatrix(a).Table(), profile.CallMatrix(da).Table())
same("profile.CommMatrix", profile.CommMatrix(a).Table(), profile.CommMatrix(da).Table())
same("profile.MessageHistogram", profile.MessageHistogram(a, 12).Table(), profile.MessageHistogram(da, 12).Table())
same("imbalance.Analyze", imbalance.Analyze(a).Table(), imbalance.Analyze(da).Table())
same("fold.Timeline", fold.Timeline(a, fold.Max, 800).Table(), fold.Timeline(da, fold.Max, 800).Table())
same("cluster.Structural", cluster.Structural(a).Table(), cluster.Structural(da).Table())
same("msa.Group (all processes)", msa.Group(a.Processes()).Table(), msa.Group(da.Processes()).Table())
same("ccg.BuildTrace (lossless)", ccg.BuildTrace(a, ccg.Lossless).Table(), ccg.BuildTrace(da, ccg.Lossless).Table())
same("compare.Runs: functions", compare.Runs(a, b).Functions(), compare.Runs(da, db).Functions())
same("compare.Runs: groups", compare.Runs(a, b).Groups(), compare.Runs(da, db).Groups())''',
     expect=["profile.Boxes", "imbalance.Analyze", "compare.Runs: groups", "identical"])

md("""A distributed result is the same object as a local one, with every view: the imbalance
analysis of the 32-rank run computed on the job, with its figure and its drill-down.""")
code('''r := imbalance.Analyze(da)
r''', expect=["dominant"])

md("""## What the job did

`job.Table()` lists the requests the job answered: the method and round, the wall time seen from
here, the bytes of the merged partial sent to the notebook, the bytes of partials sent up the tree
between ranks, the largest peak memory of a rank, and the slowest rank. The partials are small
next to the traces — except a lossless Complete Call Graph, which *is* the compressed trace, and
`msa.Group`'s representatives, whose events the merge needs here.""")
code('''job.Table()''', expect=["Bytes between Ranks", "profile.boxes", "imbalance.analyze round 1"])

md("""## A real trace

The same on a trace written by the OTF2 reference library: 8 processes in communicators split from
`MPI_COMM_WORLD`. Each rank opens only the event files of its share's locations.""")
code('''path := "../test/data/split-comm/traces.otf2"
local, remote := trace.Open(path), job.Open(path)
same("profile.CommMatrix", profile.CommMatrix(local).Table(), profile.CommMatrix(remote).Table())
same("profile.Boxes", profile.Boxes(local).Table(), profile.Boxes(remote).Table())
same("cluster.Structural", cluster.Structural(local).Table(), cluster.Structural(remote).Table())
profile.CommMatrix(remote)''', expect=["profile.CommMatrix", "identical"])

md("""## Stop the job

`dist.Stop()` ends the workers. Traces opened on the job answer with an error afterwards; an
interrupt during a distributed method stops every rank and the job stays usable; a rank that dies
fails the cell with an error naming it, and `dist.Start` makes a new job.""")
code('''dist.Stop()
os.RemoveAll(dir)
fmt.Println(job)''', expect=["the job was stopped"])

write("notebooks/many-machines.ipynb")
