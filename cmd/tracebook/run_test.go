package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/profile"
	"github.com/tracebook/tracebook/builtins/trace/synth"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// tracebookBinary builds the command once for the tests of this file.
func tracebookBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tracebook-run-test-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "tracebook")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

type runResult struct {
	stdout, stderr string
	code           int
}

// runTB runs the binary in dir with args (and stdin), returning its
// streams and exit status.
func runTB(t *testing.T, dir, stdin string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(tracebookBinary(t), args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{out.String(), errb.String(), code}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A script's cells: each one's last value on stdout as its text/plain (the
// same text as the builtin's own bundle, computed here in process), print
// output in order, os.Args, figures shown written next to the script.
func TestRunScriptPrintsValuesAndWritesFigures(t *testing.T) {
	dir := t.TempDir()
	script := `// a report
cfg := synth.DefaultGenConfig()
cfg.Ranks, cfg.Iterations = 4, 3
tr := synth.Generate(cfg)
fmt.Println("args:", strings.Join(os.Args, ","))
tr.NumEvents()

// %% the profile
profile.Boxes(tr)

// %% [markdown]
// not code: skipped
// 1/0

// %%
display.Show(tr.Timeline())
fig := profile.Boxes(tr).Plot()
fig.Save("boxes.svg")
fig
`
	writeFile(t, filepath.Join(dir, "report.go"), script)
	r := runTB(t, dir, "", "run", "report.go", "first", "second")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	cfg := synth.DefaultGenConfig()
	cfg.Ranks, cfg.Iterations = 4, 3
	tr := synth.Generate(cfg)
	boxes, _ := display.Bundle(profile.Boxes(tr))
	want := "args: report.go,first,second\n" + strconv.FormatInt(tr.NumEvents(), 10) + "\n" + boxes["text/plain"].(string) + "\n"
	if r.stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	for i, f := range []string{"report-1.png", "report-2.png"} {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("figure %d: %v", i+1, err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil || img.Bounds().Dx() < 100 {
			t.Errorf("%s: not a figure: %v", f, err)
		}
		if !strings.Contains(r.stderr, "figure "+itoa(i+1)+" written to "+filepath.Join(dir, f)) &&
			!strings.Contains(r.stderr, "figure "+itoa(i+1)+" written to report-"+itoa(i+1)+".png") {
			t.Errorf("stderr does not say where figure %d went:\n%s", i+1, r.stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "boxes.svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("the figure the script saved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report-3.png")); err == nil {
		t.Error("a third figure file was written for two figures")
	}
	// --figures puts them elsewhere
	r = runTB(t, dir, "", "run", "--figures", filepath.Join(dir, "out", "fig"), "report.go")
	if r.code == 0 {
		t.Errorf("figures into a missing directory: exit 0, want a failure; stderr %s", r.stderr)
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = runTB(t, dir, "", "run", "--figures", filepath.Join(dir, "out", "fig"), "report.go")
	if _, err := os.Stat(filepath.Join(dir, "out", "fig-2.png")); r.code != 0 || err != nil {
		t.Errorf("--figures: exit %d, %v\n%s", r.code, err, r.stderr)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Errors stop the script with status 1 and name the script's file and line:
// a compile error, a runtime panic inside a function declared in an earlier
// cell, a builtin's error; os.Exit(N) ends it with N, silently.
func TestRunScriptErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, src string
		code      int
		want      []string // in stderr
		stdout    string
	}{
		{"compile.go", "x := 1\nfmt.Println(x)\n\nfmt.Println(undefinedName + 1)\n", 1,
			[]string{"compile.go:4:13: undefined: undefinedName"}, ""}, // nothing ran: the cell compiles whole first
		{"panic.go", "func at(s []int, i int) int {\n\treturn s[i]\n}\n\n// %%\nfmt.Println(\"before\")\nat(nil, 3)\nfmt.Println(\"after\")\n", 1,
			[]string{"panic: runtime error: index out of range [3] with length 0", "panic.go:2", "panic.go:7"}, "before\n"},
		{"builtin.go", "fmt.Println(1)\n// %%\ns := strings.Repeat(\"ab\", 500000)\nalign.Strings(s, s[1:]+\"c\", align.WithMethod(align.NW))\n", 1,
			[]string{"align.Strings: Needleman-Wunsch matrix needs", "builtin.go:4"}, "1\n"},
		{"exit.go", "fmt.Println(\"bye\")\nos.Exit(7)\nfmt.Println(\"not here\")\n", 7, nil, "bye\n"},
		{"main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"in main\")\n\tvar m map[string]int\n\tm[\"a\"] = 1\n}\n", 1,
			[]string{"assignment to entry in nil map", "at main.go:8:2"}, "in main\n"},
	} {
		writeFile(t, filepath.Join(dir, c.name), c.src)
		r := runTB(t, dir, "", "run", c.name)
		if r.code != c.code || r.stdout != c.stdout {
			t.Errorf("%s: exit %d, stdout %q; want %d, %q\nstderr: %s", c.name, r.code, r.stdout, c.code, c.stdout, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, r.stderr)
			}
		}
		if c.want == nil && r.stderr != "" {
			t.Errorf("%s: stderr %q, want none", c.name, r.stderr)
		}
		if strings.Contains(r.stderr, "\x1b[") {
			t.Errorf("%s: colours on a stderr that is not a terminal: %q", c.name, r.stderr)
		}
	}
}

// A package main file runs its main, with the script's arguments.
func TestRunPackageMain(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "prog.go"), `package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println(len(os.Args), os.Args[1:])
}
`)
	r := runTB(t, dir, "", "run", "prog.go", "a", "b c")
	if r.code != 0 || r.stdout != "3 [a b c]\n" {
		t.Errorf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
}

// -e CODE, a script on stdin, input read by the script, help queries, usage
// errors.
func TestRunCodeAndUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args        []string
		stdin, want string
		code        int
	}{
		{[]string{"run", "-e", "1 + 1"}, "", "2\n", 0},
		{[]string{"run", "-e", "os.Args", "x", "y"}, "", "[-e x y]\n", 0},
		{[]string{"run", "-"}, "a := 20\na * 2\n", "40\n", 0},
		{[]string{"run", "-e", `var s string; fmt.Scanln(&s); strings.ToUpper(s)`}, "shout\n", "\"SHOUT\"\n", 0},
		{[]string{"run", "-e", "strings.Fields?"}, "", "func Fields(s string) []string", 0},
		{[]string{"run"}, "", "", 2},
		{[]string{"run", "nosuch.go"}, "", "", 2},
		{[]string{"run", "--bogus", "-e", "1"}, "", "", 2},
		{[]string{"run", "--out", "x.ipynb", "-e", "1"}, "", "", 2},
	} {
		r := runTB(t, dir, c.stdin, c.args...)
		if r.code != c.code || !strings.HasPrefix(r.stdout, c.want) {
			t.Errorf("%q: exit %d, stdout %q; want %d, %q\nstderr: %s", c.args, r.code, r.stdout, c.code, c.want, r.stderr)
		}
		if c.code == 2 && !strings.Contains(r.stderr, "tracebook run:") {
			t.Errorf("%q: stderr %q does not say what was wrong", c.args, r.stderr)
		}
	}
}

// SIGINT stops a long builtin as an interrupt does in the notebook: the
// alignment (minutes uninterrupted) ends, the script exits with 130 and says
// it was interrupted; an interpreted endless loop stops the same way.
func TestRunSIGINTStopsTheBuiltin(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "long.go"), `r := rand.New(rand.NewSource(1))
mk := func(n int) string { b := make([]byte, n); for i := range b { b[i] = byte('a' + r.Intn(20)) }; return string(b) }
a, b := mk(150000), mk(150000)
fmt.Println("started")
align.Strings(a, b, align.WithMethod(align.Hirschberg))
fmt.Println("not reached")
`)
	writeFile(t, filepath.Join(dir, "loop.go"), "fmt.Println(\"started\")\nn := 0\nfor {\n\tn++\n}\n")
	for _, script := range []string{"long.go", "loop.go"} {
		cmd := exec.Command(tracebookBinary(t), "run", script)
		cmd.Dir = dir
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		if !lines.Scan() || lines.Text() != "started" {
			t.Fatalf("%s: first line %q", script, lines.Text())
		}
		time.Sleep(300 * time.Millisecond) // inside the builtin, or the loop
		sent := time.Now()
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			for lines.Scan() {
				t.Errorf("%s: printed %q after the interrupt", script, lines.Text())
			}
			done <- cmd.Wait()
		}()
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%s: still running 60 s after SIGINT", script)
		}
		t.Logf("%s: exited %v after SIGINT", script, time.Since(sent).Round(time.Millisecond))
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("%s: %v, want exit status 130\nstderr: %s", script, err, errb.String())
		}
		if !strings.Contains(strings.ToLower(errb.String()), "interrupt") {
			t.Errorf("%s: stderr does not say it was interrupted: %s", script, errb.String())
		}
	}
}

// Progress bars go to stderr only when it is a terminal.
func TestTermSinkProgress(t *testing.T) {
	var out, errb bytes.Buffer
	s := &termSink{opt: termOptions{stdout: &out, stderr: &errb, progress: true}}
	s.Progress("a", "load [###...] 10%", false)
	s.Progress("a", "load [######] 100%", true)
	if got, want := errb.String(), "\r\x1b[Kload [###...] 10%\r\x1b[Kload [######] 100%\n"; got != want {
		t.Errorf("terminal bar %q, want %q", got, want)
	}
	errb.Reset()
	s.opt.progress = false
	s.Progress("b", "x", false)
	s.Progress("b", "x", true)
	if errb.Len() != 0 || out.Len() != 0 {
		t.Errorf("bars without a terminal: stderr %q stdout %q", errb.String(), out.String())
	}
}

// scriptCells keeps file line numbers: a cell's source has as many lines
// before it as the file.
func TestScriptCells(t *testing.T) {
	src := "a := 1\n// %%\n\nb := 2\n// %% [markdown]\n// text\n//%%   title\nc := 3"
	cells := scriptCells(src)
	if len(cells) != 3 {
		t.Fatalf("%d cells: %v", len(cells), cells)
	}
	for _, c := range []struct {
		i        int
		stmt     string
		fileLine int
	}{{0, "a := 1", 1}, {1, "b := 2", 4}, {2, "c := 3", 8}} {
		lines := strings.Split(cells[c.i].src, "\n")
		if len(lines) < c.fileLine || lines[c.fileLine-1] != c.stmt {
			t.Errorf("cell %d: line %d is not %q: %q", c.i, c.fileLine, c.stmt, cells[c.i].src)
		}
	}
}

// A notebook run headless: outputs recorded in the cells, execution counts,
// the error of a failing cell (and the run stops there, status 1), cells
// tagged raises-exception do not stop it, a notebook of another kernel is
// refused.
func TestRunNotebook(t *testing.T) {
	dir := t.TempDir()
	cell := func(src string, tags ...string) map[string]any {
		md := map[string]any{}
		if tags != nil {
			md["tags"] = tags
		}
		return map[string]any{"cell_type": "code", "source": src, "metadata": md, "outputs": []any{}, "execution_count": nil}
	}
	nb := func(kernel string, cells ...map[string]any) []byte {
		b, _ := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5,
			"metadata": map[string]any{"kernelspec": map[string]any{"name": kernel, "language": "go", "display_name": "x"}},
			"cells":    append([]map[string]any{{"cell_type": "markdown", "source": "# title", "metadata": map[string]any{}}}, cells...)})
		return b
	}
	writeFile(t, filepath.Join(dir, "ok.ipynb"), string(nb("tracebook",
		cell("fmt.Println(\"hello\")\nfmt.Println(\"world\")\n6 * 7"),
		cell("x := undefinedName", "raises-exception"),
		cell("var h = display.Updatable(display.Text(\"first\"))"),
		cell("h.Update(display.Text(\"second\"))\nos.WriteFile(\"written.txt\", []byte(\"x\"), 0o644)"))))
	r := runTB(t, t.TempDir(), "", "run", filepath.Join(dir, "ok.ipynb"), "--out", filepath.Join(dir, "ok.out.ipynb"))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "written.txt")); err != nil {
		t.Errorf("cells do not run in the notebook's directory: %v", err)
	}
	var got struct {
		Cells []struct {
			CellType string           `json:"cell_type"`
			Count    *int             `json:"execution_count"`
			Outputs  []map[string]any `json:"outputs"`
		} `json:"cells"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "ok.out.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	c := got.Cells
	if len(c) != 5 || c[1].Count == nil || *c[1].Count != 1 || *c[4].Count != 4 {
		t.Fatalf("cells or counts wrong: %s", b)
	}
	o := c[1].Outputs
	if len(o) != 2 || o[0]["output_type"] != "stream" || o[0]["text"] != "hello\nworld\n" ||
		o[1]["output_type"] != "execute_result" || o[1]["data"].(map[string]any)["text/plain"] != "42" {
		t.Errorf("cell 1 outputs: %v", o)
	}
	if o := c[2].Outputs; len(o) != 1 || o[0]["output_type"] != "error" || o[0]["ename"] != "CompileError" {
		t.Errorf("cell 2 outputs: %v", o)
	}
	// the display shown by cell 3 and updated by cell 4 shows the update, like nbclient's
	if o := c[3].Outputs; len(o) != 1 || o[0]["data"].(map[string]any)["text/plain"] != "second" {
		t.Errorf("cell 3 outputs: %v", o)
	}

	writeFile(t, filepath.Join(dir, "bad.ipynb"), string(nb("tracebook",
		cell("fmt.Println(1)"), cell("var m map[int]int\nm[1] = 2"), cell("fmt.Println(3)"))))
	r = runTB(t, dir, "", "run", "bad.ipynb", "--out", "bad.out.ipynb")
	if r.code != 1 || !strings.Contains(r.stderr, "assignment to entry in nil map") || !strings.Contains(r.stderr, "cell 3") {
		t.Errorf("failing notebook: exit %d, stderr %s", r.code, r.stderr)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "bad.out.ipynb"))
	if err := json.Unmarshal(b, &got); err != nil || len(got.Cells[3].Outputs) != 0 || got.Cells[3].Count != nil ||
		len(got.Cells[2].Outputs) != 1 || got.Cells[2].Outputs[0]["output_type"] != "error" {
		t.Errorf("failing notebook's copy: %v\n%s", err, b)
	}
	r = runTB(t, dir, "", "run", "--allow-errors", "bad.ipynb", "--out", "all.ipynb")
	if r.code != 1 || r.stdout != "1\n3\n" {
		t.Errorf("--allow-errors: exit %d, stdout %q", r.code, r.stdout)
	}
	// run again without --allow-errors: the cell after the error keeps no
	// output or count of the earlier run
	r = runTB(t, dir, "", "run", "all.ipynb", "--out", "again.ipynb")
	b, _ = os.ReadFile(filepath.Join(dir, "again.ipynb"))
	if err := json.Unmarshal(b, &got); err != nil || r.code != 1 || len(got.Cells[3].Outputs) != 0 || got.Cells[3].Count != nil {
		t.Errorf("a notebook run again: exit %d, %v\n%s", r.code, err, b)
	}

	writeFile(t, filepath.Join(dir, "py.ipynb"), strings.Replace(string(nb("python3", cell("print(1)"))), `"go"`, `"python"`, 1))
	writeFile(t, filepath.Join(dir, "broken.ipynb"), "{\"cells\": [")
	for _, f := range []string{"py.ipynb", "broken.ipynb"} {
		r = runTB(t, dir, "", "run", f)
		if r.code != 2 || !strings.Contains(r.stderr, f) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and a message naming it", f, r.code, r.stderr)
		}
	}
}

// Under a terminal (script(1) gives the command a pseudo-terminal) a
// progress bar is drawn on stderr, rewritten in place, and ends with
// "done"; without one, stderr has no bar. (The bar of display.NewProgress
// shows at once; a builtin's, through package work, only past a second,
// which a fast machine may not reach.)
func TestRunProgressOnlyOnATerminal(t *testing.T) {
	scriptCmd, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is missing (util-linux)")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bar.go"), `p := display.NewProgress("steps", 3)
for i := 1; i <= 3; i++ {
	time.Sleep(150 * time.Millisecond)
	p.Set(i)
}
p.Done()
fmt.Println("after")
`)
	cmd := exec.Command(scriptCmd, "-qec", tracebookBinary(t)+" run bar.go", "/dev/null")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%q", err, out)
	}
	if !bytes.Contains(out, []byte("\r\x1b[Ksteps [")) || !bytes.Contains(out, []byte("3/3 · ")) ||
		!bytes.Contains(out, []byte("done\r\nafter\r\n")) {
		t.Errorf("no progress bar on the terminal, or output on its line:\n%q", out)
	}
	r := runTB(t, dir, "", "run", "bar.go")
	if r.code != 0 || r.stderr != "" || r.stdout != "after\n" {
		t.Errorf("without a terminal: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A script fails as a Go program fails: a panic in a goroutine ends it with
// status 1 at once; os.Exit exits, from a goroutine too, and a deferred
// recover does not catch it; a panic whose value only reads like os.Exit
// is a panic. Displays from several goroutines at once do not hang it.
func TestRunExitsAsAGoProgram(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "rec.go"), "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n"+
		"\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tfmt.Println(\"recovered\", r)\n\t\t}\n\t}()\n"+
		"\tfmt.Println(\"x\")\n\tos.Exit(4)\n}\n")
	for _, c := range []struct {
		args         []string
		code         int
		stdout, want string
	}{
		{[]string{"run", "-e", "go func() { panic(\"boom\") }()\ntime.Sleep(2 * time.Second)\nfmt.Println(\"after\")"}, 1, "", "panic: boom"},
		{[]string{"run", "-e", "go func() { os.Exit(2) }()\ntime.Sleep(2 * time.Second)\nfmt.Println(\"after\")"}, 2, "", ""},
		{[]string{"run", "rec.go"}, 4, "x\n", ""},
		{[]string{"run", "-e", `panic("os.Exit(3)")`}, 1, "", "panic: os.Exit(3)"},
		{[]string{"run", "-e", "done := make(chan bool)\nfor i := 0; i < 500; i++ {\n\tgo func() { display.Show(display.Text(\"a\")); done <- true }()\n\tdisplay.Show(display.Text(\"b\"))\n\t<-done\n}\nfmt.Println(\"end\")"},
			0, "", ""},
	} {
		cmd := exec.Command(tracebookBinary(t), c.args...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%q: still running after 60 s", c.args)
		}
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
		if c.code == 0 {
			if !strings.HasSuffix(out.String(), "end\n") || strings.Count(out.String(), "a\n") != 500 || strings.Count(out.String(), "b\n") != 500 {
				t.Errorf("%q: stdout has %d a, %d b, ends %q", c.args, strings.Count(out.String(), "a\n"), strings.Count(out.String(), "b\n"), out.String()[max(0, out.Len()-10):])
			}
		} else if out.String() != c.stdout {
			t.Errorf("%q: stdout %q, want %q", c.args, out.String(), c.stdout)
		}
	}
}

// SIGINT between cells: the next cell does not run.
func TestInterruptBetweenCells(t *testing.T) {
	var errb bytes.Buffer
	in := newInterrupts(&errb)
	defer signal.Stop(in.ch)
	in.ch <- os.Interrupt
	for deadline := time.Now().Add(10 * time.Second); ; {
		in.mu.Lock()
		p := in.pending
		in.mu.Unlock()
		if p {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the signal was not taken")
		}
		time.Sleep(time.Millisecond)
	}
	res, hit := in.run(nil, "fmt.Println(1)") // a nil session: it must not be reached
	if !hit || res.Err == nil || res.Err.Name != "Interrupted" {
		t.Errorf("run after a SIGINT between cells: %v, %+v", hit, res)
	}
}
