"""Executes every notebook of a directory with nbclient (a real Jupyter
client) on the tracebook kernel, writes the executed copies, and checks them:
no error output except in cells tagged raises-exception (which must show one), and every cell with
metadata {"tracebook": {"expect": [...]}} shows each expected substring.

Every notebook runs twice in one kernel, as an analyst re-runs a notebook
(Run All again): the second run must pass the same checks. The copy written
is the first run's."""
import copy
import os
import sys

import nbclient
import nbclient.exceptions
import nbformat


def texts(cell):
    for o in cell.get("outputs", []):
        if o.output_type == "stream":
            yield o.text
        elif o.output_type == "error":
            yield o.ename + ": " + o.evalue + "\n" + "\n".join(o.traceback)
        else:
            for mime, v in o.get("data", {}).items():
                if isinstance(v, str) and (mime.startswith("text/") or mime == "image/svg+xml"):
                    yield v


def check(path, out_dir):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name=nb.metadata.kernelspec.name,
                                     resources={"metadata": {"path": os.path.dirname(path) or "."}})
    runs = []
    with client.setup_kernel():
        for _ in range(2):
            for i, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    cell.outputs = []
                    try:
                        client.execute_cell(cell, i)
                    except nbclient.exceptions.CellExecutionError:
                        pass  # the error output is in the cell; problems_of reports it
            runs.append(copy.deepcopy(nb))
    os.makedirs(out_dir, exist_ok=True)
    nbformat.write(runs[0], os.path.join(out_dir, os.path.basename(path)))
    problems = problems_of(runs[0])
    problems += ["second run, " + p for p in problems_of(runs[1])]
    return problems


def problems_of(nb):
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        allowed = "raises-exception" in cell.metadata.get("tags", [])
        errors = [o for o in cell.outputs if o.output_type == "error"]
        for o in errors:
            if not allowed:
                problems.append("cell %d: unexpected error %s: %s" % (i, o.ename, o.evalue))
        if allowed and not errors:
            problems.append("cell %d: tagged raises-exception but raised nothing" % i)
        all_text = "\n".join(texts(cell))
        for want in cell.metadata.get("tracebook", {}).get("expect", []):
            if want not in all_text:
                problems.append("cell %d: expected %r in output, got %r" % (i, want, all_text[:500]))
    return problems


def main():
    src, out = sys.argv[1], sys.argv[2]
    failed = False
    for name in sorted(os.listdir(src)):
        if not name.endswith(".ipynb"):
            continue
        problems = check(os.path.join(src, name), out)
        print("%-40s %s" % (name, "ok" if not problems else "FAILED"))
        for p in problems:
            print("   ", p)
        failed |= bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
