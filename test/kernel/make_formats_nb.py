"""Writes notebooks/formats.ipynb: one kind of program measured by four tools, read by one call."""
from nbgen import code, md, write

md("""# One call for every trace: OTF2, HPCToolkit, Charm++ Projections, Nsight Systems

Analysts bring what their site's tools wrote: Score-P's OTF2 archives (of any OTF2 version since
1.0), HPCToolkit databases, Charm++ Projections logs, Nsight Systems reports. `trace.Open` reads
them all into the same model, so every builtin — profiles, timelines, alignment, comparison —
works on each. This notebook opens an MPI ping-pong measured by Score-P (events) and by
HPCToolkit (sampling), a Charm++ ping-pong's Projections logs, and an Nsight Systems NVTX report,
and shows what each tool can and cannot say.""")
md("""## Score-P: every call, every message

An OTF2 trace records every Enter and Leave and every message: the summary counts them by kind, and
says on a `skipped` line which records of the archive the model does not hold (here: definitions
of the machine's topology).""")
code('''scorep := trace.Open("../test/data/traces/ping-pong-otf2/traces.otf2")
scorep''', expect=["2 locations", "MpiSend", "skipped"])
md("""## HPCToolkit: call paths from samples

An HPCToolkit database (the directory, or its `meta.db`) holds periodic samples of the calling
context. Each sample's path — entry point, functions (inlined ones too), loops — becomes nested
calls that last until the next sample shows a different path, exactly as LLNL pipit's reader makes
them. There are no messages: sampling does not see them. Functions are named as HPCToolkit names
them, with their library, and loops carry their source line.""")
code('''hpc := trace.Open("../test/data/traces/ping-pong-hpctoolkit")
hpc''', expect=["2 locations", "518", "process_vm_readv"])
md("""Where inside the MPI library the sampled ranks spent their time: HPCToolkit sees below the
`PMPI_` entry points (here: the shared-memory copy `process_vm_readv` and PSM2's progress loop),
which Score-P, recording every call exactly at its entry and exit, does not.""")
code('''hpc.Profile().Filter(arrowio.Col("Function").Contains("process_vm_readv").Or(arrowio.Col("Function").StartsWith("psm"))).
	Sort("Exclusive (ns) desc").Select("Process", "Function", "Calls", "Exclusive (ns)")''',
     expect=["process_vm_readv", "psm"])
code('''hpc.Timeline()''', expect=["<LiveTimeline", "2 lanes"])
md("""## Charm++ Projections: entry methods and their messages

A Projections log set (its `.sts` file, or the directory) has one log per PE. Entry methods become
calls named `Chare::entry`; Idle, Pack and Unpack are calls too. Unlike pipit, tracebook links the
messages: a `CREATION` is a send, and the first `BEGIN_PROCESSING` of the message it created is the
receive, so the communication builtins work on Charm++ runs. The summary says what could not be
linked (`approximated`).""")
code('''charm := trace.Open("../test/data/traces/ping-pong-projections")
charm''', expect=["2 locations", "MpiSend", "approximated", "Idle"])
code('''profile.Messages(charm).Table().Head(5)''', expect=["Bytes"])
code('''charm.Timeline()''', expect=["<LiveTimeline", "2 lanes", "messages"])
md("""## Nsight Systems: NVTX ranges, CUDA calls, kernels

`nsys stats --report nvtx_pushpop_trace --format csv` (and the `cuda_api_trace` and `cuda_gpu_trace`
reports, or the SQLite export of `nsys export --type sqlite`) are read too: every CPU thread is a
location "PID p / TID t", every GPU stream a location "GPU d / stream s". Here a small NVTX report,
written by the cell in the report's own format.""")
code('''nvtx := `Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree
1000,9000,8000,6000,2000,:train,42,42,0,2,1,,:1,:train
2000,5000,3000,0,3000,:forward,42,42,1,0,2,1,:1:2, --:forward
5500,8500,3000,0,3000,:backward,42,42,1,0,3,1,:1:3, --:backward
1500,7000,5500,0,5500,:load batch,42,43,0,0,4,,:4,:load batch
`
dir, _ := os.MkdirTemp("", "nsys")
report := filepath.Join(dir, "nvtx_pushpop_trace.csv")
os.WriteFile(report, []byte(nvtx), 0o644)
gpu := trace.Open(report)
gpu.Profile()''', expect=["forward", "backward", "load batch", "PID 42 / TID 43"])
md("""## Every trace, every builtin

Whatever the source, the trace exports to Parquet for pandas and R (the definitions travel in the
file's metadata) and reads back as the same model.""")
code('''path := filepath.Join(dir, "charm.parquet")
arrowio.WriteParquet(path, charm.Events())
back := trace.Open(path)
fmt.Println(charm.NumEvents(), "events ->", back.NumEvents(), "· messages:", profile.Messages(charm).Len(), "->", profile.Messages(back).Len())''',
     expect=["2044 events -> 2044 · messages: 145 -> 145"])
write("notebooks/formats.ipynb")
