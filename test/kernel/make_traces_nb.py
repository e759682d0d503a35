"""Writes notebooks/01-traces.ipynb: loading traces, summaries, event tables, exports."""
from nbgen import code, md, write

md("""# Traces: load, look, export

`trace.Open` reads an OTF2 archive (its `.otf2` anchor file, from Score-P) or an events table
(`.parquet`, `.arrow`, `.csv` with LLNL pipit's schema). The OTF2 reader is pure Go and reads
locations in parallel. This notebook uses the small MPI ping-pong trace that ships with the tests.""")
code('''tr := trace.Open("../test/data/traces/ping-pong-otf2/traces.otf2")
tr''', expect=["2 locations", "120"])
md("""## The master timeline

`tr.Timeline()` draws every location as a lane of nested calls, point-to-point messages as lines
from send to receive, collectives as markers, metrics as counter lanes and the times the
measurement was off shaded. In the notebook it is interactive: the wheel zooms around the pointer,
dragging selects a range to zoom to, shift+drag pans, *Reset* goes back; hovering shows a call
(function, location, enter, leave, duration) or a message (size, partner, tag), a click shows the
call path, and the table beside it is the exclusive time per function in the visible window.
Front ends that run no script (GitHub, VS Code without trust) show the same figure as a picture.

In this run `MPI_Init` takes 97% of the span: the loop and its 16 messages are at the right end.
Drag over them, or cut the loop (below).""")
code("tr.Timeline()", expect=["<LiveTimeline", "2 lanes", "16 messages"])
md("Every location (MPI rank, thread, GPU stream) is a `Process` with columnar events and a cached call tree.")
code('''p := tr.Process(0)
fmt.Println(p, "call-tree nodes:", p.CallTree().Len())
tr.Profile()''', expect=["MPI_Send", "Exclusive", "rank 0 (", "rank 1", "µs"])
md("`Events()` is an Arrow table with pipit's schema; it renders with its schema, head and tail.")
code('''ev := tr.Events()
ev''', expect=["Timestamp (ns)", "Event Type", "MpiSend"])
md("Tables go to Parquet or Arrow IPC for pandas and R, and read back as traces.")
code('''dir, _ := os.MkdirTemp("", "tracebook")
path := filepath.Join(dir, "ping-pong.parquet")
arrowio.WriteParquet(path, ev) // a failed write fails the cell, naming the file
back := trace.Open(path)
fmt.Println("events:", tr.NumEvents(), "->", back.NumEvents())
back.Process(1).CallTree().Len() == tr.Process(1).CallTree().Len()''', expect=["events: 120 -> 120", "true"])
md("""## To Perfetto and back: the Chrome trace format

`trace.WriteChrome(tr, path)` writes the Trace Event Format (JSON, gzipped when the name ends in
`.gz`) that [Perfetto's UI](https://ui.perfetto.dev) (*Open trace file*), `chrome://tracing` and
Speedscope open: a process per rank, a thread per location, calls as complete events, messages as
flow arrows from send to receive, metrics as counters. It is written event by event, never held
in memory. `trace.Open` reads such files back (`.json`, `.json.gz`): ours exactly, and those of
other tools — pipit's `to_chrome`, PyTorch/Kineto profiles (GPU streams become accelerator
locations) — naming what it skipped.""")
code('''chrome := filepath.Join(dir, "ping-pong.json.gz")
trace.WriteChrome(tr, chrome)
again := trace.Open(chrome)
fmt.Println("events:", tr.NumEvents(), "->", again.NumEvents(), "· matched messages:", profile.Messages(again).Len())
again.Process(0).CallTree().Len() == tr.Process(0).CallTree().Len()''', expect=["events: 120 -> 120", "matched messages: 16", "true"])
md("""## The loop only: windows and phases

In this run `MPI_Init` takes 97% of the span. `tr.Main()` cuts every process between its set-up and
tear-down (`MPI_Init`, `MPI_Finalize`): a trace like any other, whose summary says what was cut and
how many calls (here `main`) were clipped at the cut's ends.""")
code('''loop := tr.Main()
loop''', expect=["Main()", "108 events", "clipped"])
md("""Every builtin takes the cut. Messages are matched in the whole run, so a message with one end
outside a window is counted as cut by it, never as unmatched.""")
code('''fmt.Println(profile.Messages(loop))
loop.Profile()''', expect=["16 messages matched", "unmatched: 0 sends", "MPI_Send"])
code('''t0 := loop.Process(0).Time[0]
half := loop.Window(time.Duration(t0), time.Duration(t0+loop.Duration()/2))
fmt.Println(half.Summary())
fmt.Println(profile.Messages(half))''', expect=["Main() · Window(", "messages matched"])
md("""The timeline of a window holds its calls clipped at the window's edges; its summary (the
exclusive time per function, beside the view) is the window's profile summed over the ranks.""")
code("half.Timeline()", expect=["<LiveTimeline"], summary_table=True)
code('half.Profile().GroupBy("Function").Agg(arrowio.Sum("Exclusive (ns)"))', expect=["MPI_Send"])
md("For experiments at any scale, the generator builds SPMD traces deterministically from a seed.")
code('''cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations = 8, 50
big := synth.Generate(cfg)
big.Summary()''', expect=["8 location", "locations\nevents", "summed over 8 processes"])
code('''os.RemoveAll(dir)''')

write("notebooks/01-traces.ipynb")
