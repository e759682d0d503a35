"""Runs every notebook of a directory headless with `tracebook run NB --out OUT`
and checks that its outputs are those nbclient recorded from the kernel
(the copies run_notebooks.py wrote): the same outputs in every code cell, in
order, with the same types, stream names, MIME types and contents, execution
counts and errors.

Usage: compare_run.py TRACEBOOK_BINARY SOURCE_DIR NBCLIENT_DIR OUT_DIR

What may differ between two executions of a notebook is masked on both sides
before comparing, and nothing else: progress bars (they appear only past a
second of work), wall times and rates printed by %time and progress text,
display ids, and numbers measured from the machine (memory, elapsed seconds)
in lines that say so. The masks are listed in MASKS. Cells whose outputs
show what was measured while they ran (times, memory, process ids) are
listed in MEASURED: for them only the shape is compared (output types,
stream names, MIME types). A difference anywhere else fails."""
import copy
import json
import os
import re
import subprocess
import sys

# (pattern, replacement): things that differ between two executions.
MASKS = [
    (re.compile(r"wall time: [0-9.]+[a-zµ]+"), "wall time: T"),
    (re.compile(r"tracebook-\d+-\d+"), "tracebook-ID"),  # display ids (pid, counter)
    (re.compile(r"tracebook-vega-\d+-\d+"), "tracebook-vega-ID"),  # element ids of figures (pid, counter)
    (re.compile(r"tb-tl-[0-9a-f]{16}"), "tb-tl-ID"),  # element ids of timelines (random)
    (re.compile(r"only [0-9.]+ [KMGT]iB is available"), "only M is available"),  # the machine's free memory
    (re.compile(r"(/tmp/[A-Za-z0-9_.-]*?-)\d{4,}"), r"\1N"),  # os.MkdirTemp's directories
    (re.compile(r"mpirun pid \d+"), "mpirun pid N"),
]

# notebook -> substrings of the sources of cells that show measurements
MEASURED = {
    "00-kernel-tour.ipynb": ["%who"],  # a progress bar's elapsed time and rate
    "ccg.ipynb": ["ccg.SweepBounds(run)"],  # query times
    "clustering.ipynb": ["clustered from the fresh trace"],  # elapsed time
    "many-machines.ipynb": ["dist.Start(", "job.Table()"],  # pids, read times, peak memory
    "msa.ipynb": ["bm.Stages()"],  # stage times
}


def shape(outputs):
    return [(o[0], o[1]) if o[0] == "stream" else (o[0], o[1], tuple(k for k, _ in o[2])) if o[0] != "error" else o[:2]
            for o in outputs]


def join(v):
    return "".join(v) if isinstance(v, list) else v


def mask(s):
    for rx, rep in MASKS:
        s = rx.sub(rep, s)
    return s


def is_progress(o):
    html = join(o.get("data", {}).get("text/html", ""))
    return o.get("output_type") == "display_data" and "tracebook-progress" in html


def normalized(outputs):
    out = []
    for o in outputs:
        if is_progress(o):
            continue
        t = o["output_type"]
        if t == "stream":
            text = join(o["text"])
            if out and out[-1][0] == "stream" and out[-1][1] == o["name"]:
                out[-1] = ("stream", o["name"], out[-1][2] + text)
            else:
                out.append(("stream", o["name"], text))
        elif t == "error":
            out.append(("error", o["ename"], mask(o["evalue"]), tuple(mask(l) for l in o["traceback"])))
        else:
            data = tuple(sorted((k, mask(join(v)) if isinstance(v, (str, list)) else json.dumps(v, sort_keys=True))
                                for k, v in o.get("data", {}).items()))
            out.append((t, o.get("execution_count"), data))
    return [tuple(mask(x) if isinstance(x, str) else x for x in o) for o in out]


def describe(o):
    s = repr(o)
    return s if len(s) < 400 else s[:400] + "..."


def compare(name, a, b):
    problems = []
    ca = [c for c in a["cells"] if c["cell_type"] == "code"]
    cb = [c for c in b["cells"] if c["cell_type"] == "code"]
    if len(ca) != len(cb):
        return ["%d code cells under nbclient, %d in tracebook run's copy" % (len(ca), len(cb))]
    for i, (x, y) in enumerate(zip(ca, cb)):
        if x.get("execution_count") != y.get("execution_count"):
            problems.append("code cell %d: execution count %s under nbclient, %s under tracebook run"
                            % (i + 1, x.get("execution_count"), y.get("execution_count")))
        nx, ny = normalized(x["outputs"]), normalized(y["outputs"])
        src = join(x["source"])
        if any(m in src for m in MEASURED.get(name, [])):
            nx, ny = shape(nx), shape(ny)
        if len(nx) != len(ny):
            problems.append("code cell %d: %d outputs under nbclient, %d under tracebook run:\n  %s\n  %s"
                            % (i + 1, len(nx), len(ny), [o[0] for o in nx], [o[0] for o in ny]))
            continue
        for j, (ox, oy) in enumerate(zip(nx, ny)):
            if ox != oy:
                problems.append("code cell %d, output %d differs:\n  nbclient:      %s\n  tracebook run: %s"
                                % (i + 1, j + 1, describe(ox), describe(oy)))
    return problems


def check_can_fail(ref):
    """The comparison must see a lost output and a changed one."""
    for name in sorted(os.listdir(ref)):
        if not name.endswith(".ipynb"):
            continue
        with open(os.path.join(ref, name)) as f:
            a = json.load(f)
        for cell in a["cells"]:
            outs = [o for o in cell.get("outputs", []) if not is_progress(o)]
            if cell["cell_type"] == "code" and outs:
                b = copy.deepcopy(a)
                bc = b["cells"][a["cells"].index(cell)]
                bc["outputs"] = bc["outputs"][:-1]
                c = copy.deepcopy(a)
                cc = c["cells"][a["cells"].index(cell)]
                o = cc["outputs"][-1]
                if o["output_type"] == "stream":
                    o["text"] = join(o["text"]) + "x"
                elif o["output_type"] == "error":
                    o["evalue"] += "x"
                else:
                    o["data"]["text/plain"] = join(o["data"].get("text/plain", "")) + "x"
                if not compare(name, a, b) or not compare(name, a, c) or compare(name, a, copy.deepcopy(a)):
                    sys.exit("the comparison does not see a lost or changed output of %s" % name)
                return
    sys.exit("no notebook with outputs in " + ref)


def main():
    binary, src, ref, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    check_can_fail(ref)
    failed = False
    for name in sorted(os.listdir(src)):
        if not name.endswith(".ipynb"):
            continue
        dst = os.path.join(out, name)
        p = subprocess.run([binary, "run", os.path.join(src, name), "--out", dst],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=900)
        problems = []
        if p.returncode != 0:
            problems.append("tracebook run exited with %d:\n%s" % (p.returncode, p.stderr[-2000:]))
        if os.path.exists(dst):
            with open(os.path.join(ref, name)) as f:
                a = json.load(f)
            with open(dst) as f:
                b = json.load(f)
            problems += compare(name, a, b)
        else:
            problems.append("no executed copy written")
        print("%-40s %s" % (name, "same outputs as nbclient" if not problems else "DIFFERENT"))
        for pr in problems:
            print("   ", pr)
        failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
