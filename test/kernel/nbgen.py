"""Shared helpers of the notebook generators (make_*.py): cells are collected
in order and written as a notebook for the tracebook kernel. A code cell may
carry metadata {"tracebook": {"expect": [substrings]}}, which the notebook
runner checks against the executed outputs, and the raises-exception tag."""
import nbformat as nbf

cells = []


def md(s):
    cells.append(nbf.v4.new_markdown_cell(s))


def code(s, expect=None, raises=False, summary_table=False):
    """summary_table: the cell shows a timeline whose window summary the rendering test
    (test/render/render.mjs) compares with the first table of the next cell's output."""
    c = nbf.v4.new_code_cell(s)
    if expect:
        c.metadata["tracebook"] = {"expect": expect}
    if summary_table:
        c.metadata.setdefault("tracebook", {})["timeline-summary-table"] = "next cell"
    if raises:
        c.metadata["tags"] = ["raises-exception"]
    cells.append(c)


def write(path):
    nb = nbf.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "tracebook", "display_name": "Go (tracebook)", "language": "go"},
        "language_info": {"name": "go", "file_extension": ".go", "mimetype": "text/x-go"},
    })
    nbf.write(nb, path)
