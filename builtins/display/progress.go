package display

import (
	"fmt"
	"html"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tracebook/tracebook/arrowio"
)

var nextPid = os.Getpid()

// Progress is a progress bar shown as an updatable display, with the rate
// and the time left. Create one with NewProgress, call Set or Add as you go
// and Done at the end:
//
//	p := display.NewProgress("loading", len(files))
//	for i, f := range files { load(f); p.Set(i + 1) }
//	p.Done()
//
// Updates are rate-limited (at most one every 100 ms) so a tight loop can
// call Set cheaply. Without a front end it does nothing; in a terminal
// (tracebook run, tracebook repl) it is a line rewritten on stderr. Long builtins get
// their bar through package work, which shows it only past about a second.
type Progress struct {
	mu    sync.Mutex
	label string
	unit  string
	total int64
	done  int64
	start time.Time
	last  time.Time
	h     *Handle
	ps    ProgressSink // a sink that shows bars itself (a terminal), or nil
	id    string       // the bar's id for ps
	ended bool
	note  string // shown after an early end ("interrupted")
}

// NewProgress starts a progress bar for total units of work (total <= 0:
// unknown total, the bar shows the count).
func NewProgress(label string, total int) *Progress {
	return StartProgress(label, int64(total), "", time.Now())
}

// StartProgress starts a bar for work that began at start, counting in unit
// ("events", "rows"; "" for none). Builtins use it through package work.
func StartProgress(label string, total int64, unit string, start time.Time) *Progress {
	p := &Progress{label: label, unit: unit, total: total, start: start}
	switch s := currentSink().(type) {
	case nil:
	case ProgressSink:
		p.ps, p.id = s, newID()
		p.last = time.Now()
		s.Progress(p.id, p.String(), false)
	default:
		p.h = Updatable(p)
		p.last = time.Now()
	}
	return p
}

// A ProgressSink is a Sink that shows progress bars itself, as one line of
// text it rewrites (a terminal): bars reach it through Progress, not as
// displays.
type ProgressSink interface {
	Sink
	// Progress shows the bar id as text; ended: for the last time.
	Progress(id, text string, ended bool)
}

// show sends the bar's state to its sink.
func (p *Progress) show(ended bool) {
	switch {
	case p.ps != nil:
		p.ps.Progress(p.id, p.String(), ended)
	case p.h != nil:
		p.h.Update(p)
	}
}

// Set records that done units are finished.
func (p *Progress) Set(done int) { p.set(int64(done)) }

func (p *Progress) set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = done
	now := time.Now()
	due := (p.h != nil || p.ps != nil) && !p.ended && now.Sub(p.last) >= 100*time.Millisecond
	if due {
		p.last = now
	}
	p.mu.Unlock()
	if due {
		p.show(false)
	}
}

// Set64 is Set for int64 counts (events, bytes).
func (p *Progress) Set64(done int64) { p.set(done) }

// Add records n more finished units.
func (p *Progress) Add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	d := p.done + int64(n)
	p.mu.Unlock()
	p.set(d)
}

// Done completes the bar and shows the elapsed time.
func (p *Progress) Done() { p.End("") }

// End stops the bar; a non-empty note ("interrupted", an error) is shown in
// place of the rate and the bar keeps the count reached.
func (p *Progress) End(note string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	if p.total > 0 && note == "" {
		p.done = p.total
	}
	p.ended, p.note = true, note
	p.mu.Unlock()
	p.show(true)
}

type progressState struct {
	label, unit, note string
	done, total       int64
	elapsed           time.Duration
	ended             bool
}

func (p *Progress) snapshot() progressState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return progressState{label: p.label, unit: p.unit, note: p.note, done: p.done, total: p.total,
		elapsed: time.Since(p.start), ended: p.ended}
}

// rate renders units per second with an SI prefix: "1.2 M events/s".
func rate(perSec float64, unit string) string {
	u := unit
	if u == "" {
		u = "it"
	}
	switch {
	case perSec >= 1e9:
		return fmt.Sprintf("%.1f G %s/s", perSec/1e9, u)
	case perSec >= 1e6:
		return fmt.Sprintf("%.1f M %s/s", perSec/1e6, u)
	case perSec >= 1e3:
		return fmt.Sprintf("%.1f k %s/s", perSec/1e3, u)
	}
	return fmt.Sprintf("%.1f %s/s", perSec, u)
}

// duration renders d rounded for people: "850 ms", "12.3 s", "4 min 05 s".
func duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
}

// status is the text after the bar: elapsed, rate and time left (or the
// end note).
func (st progressState) status() string {
	parts := []string{duration(st.elapsed)}
	if st.elapsed > 0 && st.done > 0 {
		perSec := float64(st.done) / st.elapsed.Seconds()
		parts = append(parts, rate(perSec, st.unit))
		if !st.ended && st.total > st.done && perSec > 0 {
			left := time.Duration(float64(st.total-st.done) / perSec * float64(time.Second))
			parts = append(parts, duration(left)+" left")
		}
	}
	if st.note != "" {
		parts = append(parts, st.note)
	} else if st.ended {
		parts = append(parts, "done")
	}
	return strings.Join(parts, " · ")
}

// String renders the bar as text, e.g.
// "load [###############...............]  50% 5/10 · 1.2 s · 4.1 it/s · 1.2 s left".
func (p *Progress) String() string {
	st := p.snapshot()
	if st.total <= 0 {
		return fmt.Sprintf("%s %s · %s", st.label, arrowio.FormatCount(st.done), st.status())
	}
	frac := float64(st.done) / float64(st.total)
	frac = min(max(frac, 0), 1)
	n := int(frac * 30)
	return fmt.Sprintf("%s [%s%s] %3.0f%% %s/%s · %s", st.label, strings.Repeat("#", n), strings.Repeat(".", 30-n),
		frac*100, arrowio.FormatCount(st.done), arrowio.FormatCount(st.total), st.status())
}

// MIMEBundle renders the bar as an HTML <progress> element plus text.
func (p *Progress) MIMEBundle() map[string]any {
	st := p.snapshot()
	color := "#666"
	if st.note != "" {
		color = "#b00"
	}
	var bar, n string
	if st.total > 0 {
		bar = fmt.Sprintf(`<progress value="%d" max="%d" style="width:40%%;vertical-align:middle"></progress>`, st.done, st.total)
		n = arrowio.FormatCount(st.done) + "/" + arrowio.FormatCount(st.total)
	} else {
		bar = `<progress style="width:40%;vertical-align:middle"></progress>`
		if st.ended {
			bar = ""
		}
		n = arrowio.FormatCount(st.done)
	}
	h := fmt.Sprintf(`<div class="tracebook-progress"><span style="font-family:monospace">%s</span> %s %s <span style="color:%s">%s</span></div>`,
		html.EscapeString(st.label), bar, n, color, html.EscapeString(st.status()))
	return map[string]any{"text/html": h, "text/plain": p.String()}
}
