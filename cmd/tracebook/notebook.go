package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/internal/atomicfile"
	"github.com/tracebook/tracebook/kernel"
	"github.com/tracebook/tracebook/kernel/session"
)

// tracebook run NOTEBOOK.ipynb executes a notebook's code cells in order in
// one session and records their outputs as nbclient (nbconvert --execute)
// records the kernel's messages: streams, displays (updated in place by
// display id, cleared by clear_output), results with their execution count,
// errors with the kernel's traceback.

// output is one output of a cell, as nbformat stores it.
type output = map[string]any

// recorder is the session's front end while a notebook runs: it appends
// what the cell produces to the cell's outputs.
type recorder struct {
	sess *session.Session
	echo io.Writer // stream text is also written here (stdout), nil: not

	mu        sync.Mutex
	cell      int
	outs      map[int][]output
	ids       map[string]map[int][]int // display id -> cell -> output indices (nbclient's _display_id_map)
	clearNext bool
}

func (r *recorder) add(o output, id string) {
	if r.clearNext {
		r.outs[r.cell] = nil
		r.forget(r.cell)
		r.clearNext = false
	}
	if id != "" {
		m := r.ids[id]
		if m == nil {
			m = map[int][]int{}
			r.ids[id] = m
		}
		m[r.cell] = append(m[r.cell], len(r.outs[r.cell]))
	}
	r.outs[r.cell] = append(r.outs[r.cell], o)
}

func (r *recorder) forget(cell int) {
	for _, m := range r.ids {
		if _, ok := m[cell]; ok {
			m[cell] = nil
		}
	}
}

// stream appends text to the cell's last output when it is the same
// stream (nbformat's coalesced streams), or starts a new one.
func (r *recorder) stream(name string, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.echo != nil {
		r.echo.Write(b)
	}
	outs := r.outs[r.cell]
	if !r.clearNext && len(outs) > 0 && outs[len(outs)-1]["output_type"] == "stream" && outs[len(outs)-1]["name"] == name {
		outs[len(outs)-1]["text"] = outs[len(outs)-1]["text"].(string) + string(b)
		return
	}
	r.add(output{"output_type": "stream", "name": name, "text": string(b)}, "")
}

type streamTo struct {
	r    *recorder
	name string
}

func (w streamTo) Write(b []byte) (int, error) { w.r.stream(w.name, b); return len(b), nil }

// Display records a display_data output, or updates the outputs shown
// under id.
func (r *recorder) Display(data, md map[string]any, id string, update bool) {
	r.sess.Sync()
	data, md = jsonable(data), metadataOf(md)
	r.mu.Lock()
	defer r.mu.Unlock()
	if id != "" {
		for cell, idx := range r.ids[id] {
			for _, i := range idx {
				r.outs[cell][i]["data"], r.outs[cell][i]["metadata"] = data, md
			}
		}
	}
	if update {
		return
	}
	r.add(output{"output_type": "display_data", "data": data, "metadata": md}, id)
}

// Clear clears the cell's outputs, now or before its next output.
func (r *recorder) Clear(wait bool) {
	r.sess.Sync()
	r.mu.Lock()
	defer r.mu.Unlock()
	if wait {
		r.clearNext = true
		return
	}
	r.outs[r.cell] = nil
	r.forget(r.cell)
}

// jsonable returns a bundle as it reads back from JSON ([]byte as base64
// strings), as the kernel sends it.
func jsonable(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return map[string]any{"text/plain": fmt.Sprintf("(not representable as JSON: %v)", err)}
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// metadataOf returns an output's metadata as JSON holds it, {} for none.
func metadataOf(md map[string]any) map[string]any {
	if md = jsonable(md); md == nil {
		md = map[string]any{}
	}
	return md
}

// errorOutput is the error output of e, with the kernel's traceback.
func errorOutput(e *kernel.ExecError) output {
	return output{"output_type": "error", "ename": e.Name, "evalue": e.Value, "traceback": e.Formatted()}
}

// sourceOf returns a cell's source, a string or a list of lines.
func sourceOf(v any) (string, error) {
	switch s := v.(type) {
	case string:
		return s, nil
	case []any:
		var b strings.Builder
		for _, l := range s {
			ls, ok := l.(string)
			if !ok {
				return "", fmt.Errorf("a source line is %T, not a string", l)
			}
			b.WriteString(ls)
		}
		return b.String(), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("the source is %T, not a string or a list of strings", v)
}

// runNotebook executes the code cells of the notebook in file name.
func runNotebook(name string, b []byte, out string, allowErrors bool) error {
	var nb map[string]any
	if err := json.Unmarshal(b, &nb); err != nil {
		return usageError{fmt.Sprintf("%s: not a notebook: %v", name, err)}
	}
	if v, _ := nb["nbformat"].(float64); v != 4 {
		return usageError{fmt.Sprintf("%s: nbformat %v: only version 4 notebooks run", name, nb["nbformat"])}
	}
	meta, _ := nb["metadata"].(map[string]any)
	if ks, ok := meta["kernelspec"].(map[string]any); ok {
		if n, _ := ks["name"].(string); n != "" && n != "tracebook" {
			if lang, _ := ks["language"].(string); lang != "go" {
				return usageError{fmt.Sprintf("%s: the notebook's kernel is %q (%v), not tracebook's Go", name, n, ks["language"])}
			}
		}
	}
	cells, ok := nb["cells"].([]any)
	if !ok {
		return usageError{name + `: no "cells" list`}
	}
	type codeCell struct {
		i    int
		cell map[string]any
		src  string
	}
	var code []codeCell
	for i, c := range cells {
		cell, ok := c.(map[string]any)
		if !ok {
			return usageError{fmt.Sprintf("%s: cell %d is not an object", name, i+1)}
		}
		if md, ok := cell["metadata"].(map[string]any); !ok || md == nil {
			cell["metadata"] = map[string]any{} // nbformat requires it
		}
		if cell["cell_type"] != "code" {
			continue
		}
		// every code cell's outputs are this run's: none for a cell not
		// reached after an error
		cell["outputs"], cell["execution_count"] = []any{}, nil
		src, err := sourceOf(cell["source"])
		if err != nil {
			return usageError{fmt.Sprintf("%s: cell %d: %v", name, i+1, err)}
		}
		code = append(code, codeCell{i, cell, src})
	}

	// cells run in the notebook's directory, as under nbconvert
	if out != "" {
		abs, err := filepath.Abs(out)
		if err != nil {
			return err
		}
		out = abs
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return err
	}
	if err := os.Chdir(filepath.Dir(name)); err != nil {
		return err
	}
	r := &recorder{echo: os.Stdout, outs: map[int][]output{}, ids: map[string]map[int][]int{}}
	fe := kernel.Frontend{
		Stdout: streamTo{r, "stdout"},
		Stderr: streamTo{r, "stderr"},
		Input: func(string, bool) (string, error) {
			return "", fmt.Errorf("input is not available: tracebook run executes notebooks without stdin")
		},
		Error: func(e *kernel.ExecError) {
			r.mu.Lock()
			r.add(errorOutput(e), "")
			r.mu.Unlock()
			fmt.Fprintln(os.Stderr, stripANSI(strings.Join(e.Formatted(), "\n")))
		},
	}
	s, err := session.New(session.Options{IO: fe, Symbols: symbols.Symbols, Preimport: preimports(), Args: []string{abs}})
	if err != nil {
		return err
	}
	r.sess = s
	display.SetSink(r)
	ints := newInterrupts(os.Stderr)

	failed, count := 0, 0
	var status error
	for _, c := range code {
		r.mu.Lock()
		r.cell, r.clearNext = c.i, false
		r.outs[c.i] = nil
		r.mu.Unlock()
		if strings.TrimSpace(c.src) == "" {
			continue
		}
		count++
		c.cell["execution_count"] = count
		if _, _, ok := kernel.HelpQuery(c.src); ok {
			continue // the kernel answers in the pager: no outputs
		}
		res, interrupted := ints.run(s, c.src)
		r.mu.Lock()
		if res.Err != nil {
			r.add(errorOutput(res.Err), "")
		} else if res.Data != nil {
			r.add(output{"output_type": "execute_result", "execution_count": count, "data": jsonable(res.Data), "metadata": metadataOf(res.Metadata)}, "")
		}
		r.mu.Unlock()
		if res.Err != nil {
			fmt.Fprintf(os.Stderr, "%s: cell %d (execution %d):\n%s\n", name, c.i+1, count, stripANSI(strings.Join(res.Err.Formatted(), "\n")))
			if interrupted {
				failed++
				status = exitError{130}
				break
			}
			if raisesException(c.cell) {
				continue // expected: the run goes on, as under nbconvert
			}
			failed++
			status = exitError{1}
			if !allowErrors {
				break
			}
		}
	}
	// outputs are written once every cell ran: a display updated by a later
	// cell is updated in the earlier one too
	r.mu.Lock()
	for _, c := range code {
		if outs := r.outs[c.i]; outs != nil {
			l := make([]any, len(outs))
			for i, o := range outs {
				l[i] = o
			}
			c.cell["outputs"] = l
		}
	}
	r.mu.Unlock()
	if meta == nil {
		meta = map[string]any{}
		nb["metadata"] = meta
	}
	meta["language_info"] = kernel.LanguageInfo() // as nbclient writes it from kernel_info
	if out != "" {
		if err := writeNotebook(out, nb); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "executed %d cells of %s (%d failed): %s\n", count, name, failed, out)
	}
	return status
}

// writeNotebook writes nb as nbformat does (sorted keys, one-space indent).
func writeNotebook(path string, nb map[string]any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
}

func stripANSI(s string) string { return ansiRE.ReplaceAllString(s, "") }

// raisesException reports whether a cell is tagged "raises-exception":
// its error is expected, and the notebook goes on (nbclient's rule).
func raisesException(cell map[string]any) bool {
	md, _ := cell["metadata"].(map[string]any)
	tags, _ := md["tags"].([]any)
	for _, t := range tags {
		if t == "raises-exception" {
			return true
		}
	}
	return false
}
