package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebook/tracebook/builtins/trace"
)

// The convert and info commands, run as the built binary.
func TestConvertAndInfo(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracebook")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	anchor := filepath.Join("..", "..", "test", "data", "traces", "ping-pong-otf2", "traces.otf2")
	src, err := trace.Load(anchor)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	for _, ext := range []string{"parquet", "arrow", "csv"} {
		out := filepath.Join(dir, "events."+ext)
		if msg, err := run("convert", anchor, out); err != nil {
			t.Fatalf("convert to %s: %v\n%s", ext, err, msg)
		}
		back, err := trace.Load(out)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if back.NumEvents() != src.NumEvents() || back.NumProcesses() != src.NumProcesses() {
			t.Fatalf("%s: %d events in %d locations, want %d in %d", ext, back.NumEvents(), back.NumProcesses(), src.NumEvents(), src.NumProcesses())
		}
		info, err := run("info", out)
		if err != nil || !strings.Contains(info, "2 locations") {
			t.Fatalf("info %s: %v\n%s", ext, err, info)
		}
	}
	info, err := run("info", anchor)
	if err != nil || info != src.Summary() {
		t.Fatalf("info of the OTF2 trace: %v\n%q\nwant %q", err, info, src.Summary())
	}
	// wrong arguments and missing files: a non-zero exit and a message naming the problem
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", anchor}, "need IN and OUT"},
		{[]string{"info"}, "need one TRACE"},
		{[]string{"info", filepath.Join(dir, "nosuch.otf2")}, "nosuch.otf2"},
		{[]string{"convert", anchor, filepath.Join(dir, "out.xyz")}, "xyz"},
	} {
		msg, err := run(c.args...)
		if err == nil || !strings.Contains(msg, c.want) {
			t.Errorf("%v: err %v, output %q; want a failure mentioning %q", c.args, err, msg, c.want)
		}
	}
}
