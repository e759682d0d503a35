package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/display"
	"github.com/tracebook/tracebook/builtins/symbols"
	"github.com/tracebook/tracebook/kernel"
	"github.com/tracebook/tracebook/kernel/session"
)

var goBlock = regexp.MustCompile("(?s)\n```go\n(.*?)\n```")

// shown collects what the cells display mid-cell (display.Show, progress).
type shown struct{ bundles []map[string]any }

func (s *shown) Display(data, _ map[string]any, _ string, _ bool) {
	s.bundles = append(s.bundles, data)
}
func (s *shown) Clear(bool) {}

// Every Go code block of the README runs, in order, as one cell each of one
// session started like the kernel's (every builtin preimported), from a
// notebooks/ folder as section 4 says: the tutorial stays true.
func TestREADMECodeBlocksRun(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlock.FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 4 {
		t.Fatalf("found %d Go blocks in README.md; the pattern no longer matches", len(blocks))
	}
	// A scratch notebooks/ folder beside the repository's test data, so that
	// ../test/data/... resolves and files the README writes land in a temp dir.
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "test"), filepath.Join(tmp, "test")); err != nil {
		t.Fatal(err)
	}
	nb := filepath.Join(tmp, "notebooks")
	if err := os.Mkdir(nb, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(nb)

	sink := &shown{}
	display.SetSink(sink)
	defer display.SetSink(nil)
	var out strings.Builder
	s, err := session.New(session.Options{IO: kernel.Frontend{Stdout: &out, Stderr: &out},
		Symbols: symbols.Symbols, Preimport: preimports()})
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for i, b := range blocks {
		res := s.Execute(context.Background(), b[1])
		if res.Err != nil {
			t.Fatalf("README Go block %d fails:\n%s\n-> %s: %s", i+1, b[1], res.Err.Name, res.Err.Value)
		}
		v, _ := res.Data["text/plain"].(string)
		values = append(values, v)
		t.Logf("block %d -> %.80q", i+1, v)
	}
	if values[0] != "42" {
		t.Errorf("README's first cell shows %q, the text says 42", values[0])
	}
	if len(sink.bundles) == 0 {
		t.Error("the display block showed nothing mid-cell")
	}
	if _, err := os.Stat(filepath.Join(nb, "events.parquet")); err != nil {
		t.Errorf("section 4 writes events.parquet: %v", err)
	}
}

// The README names the packages every session starts with, and how many (issue 32: it said 8
// when the sessions imported 11).
func TestREADMEPreimports(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Sessions start with (\d+) packages imported: ([^.]*)\.`).FindSubmatch(readme)
	if m == nil {
		t.Fatal(`README lacks "Sessions start with N packages imported: ..."`)
	}
	var named []string
	for _, n := range regexp.MustCompile("`([a-z]+)`").FindAllSubmatch(m[2], -1) {
		named = append(named, string(n[1]))
	}
	var want []string
	for _, p := range preimports() {
		want = append(want, filepath.Base(p))
	}
	slices.Sort(named)
	slices.Sort(want)
	if string(m[1]) != strconv.Itoa(len(want)) || !slices.Equal(named, want) {
		t.Errorf("README says %s packages %v; sessions import %d: %v", m[1], named, len(want), want)
	}
}
