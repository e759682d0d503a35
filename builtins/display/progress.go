package display

import (
	"fmt"
	"html"
	"os"
	"strings"
	"sync"
	"time"
)

var nextPid = os.Getpid()

// Progress is a progress bar shown as an updatable display. Long builtins
// create one with NewProgress, call Set or Add as they go and Done at the
// end. Updates are rate-limited (at most one every 100 ms) so a tight loop
// can call Set cheaply. Outside the kernel it does nothing.
type Progress struct {
	mu    sync.Mutex
	label string
	total int64
	done  int64
	start time.Time
	last  time.Time
	h     *Handle
	ended bool
}

// NewProgress starts a progress bar for total units of work (total <= 0:
// unknown total, the bar shows the count).
func NewProgress(label string, total int64) *Progress {
	p := &Progress{label: label, total: total, start: time.Now()}
	if currentSink() != nil {
		p.h = Updatable(p)
		p.last = time.Now()
	}
	return p
}

// Set records that done units are finished.
func (p *Progress) Set(done int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = done
	now := time.Now()
	due := p.h != nil && !p.ended && now.Sub(p.last) >= 100*time.Millisecond
	if due {
		p.last = now
	}
	p.mu.Unlock()
	if due {
		p.h.Update(p)
	}
}

// Add records n more finished units.
func (p *Progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	d := p.done + n
	p.mu.Unlock()
	p.Set(d)
}

// Done completes the bar and shows the elapsed time.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.total > 0 {
		p.done = p.total
	}
	p.ended = true
	p.mu.Unlock()
	if p.h != nil {
		p.h.Update(p)
	}
}

func (p *Progress) snapshot() (label string, done, total int64, elapsed time.Duration, ended bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.label, p.done, p.total, time.Since(p.start).Round(time.Millisecond), p.ended
}

// String renders the bar as text, e.g. "load  [#####.....]  50% 5/10 1.2s".
func (p *Progress) String() string {
	label, done, total, el, ended := p.snapshot()
	if total <= 0 {
		state := ""
		if ended {
			state = " done"
		}
		return fmt.Sprintf("%s %d%s %v", label, done, state, el)
	}
	frac := float64(done) / float64(total)
	if frac > 1 {
		frac = 1
	}
	n := int(frac * 30)
	return fmt.Sprintf("%s [%s%s] %3.0f%% %d/%d %v", label, strings.Repeat("#", n), strings.Repeat(".", 30-n), frac*100, done, total, el)
}

// MIMEBundle renders the bar as an HTML <progress> element plus text.
func (p *Progress) MIMEBundle() map[string]any {
	label, done, total, el, _ := p.snapshot()
	var h string
	if total > 0 {
		h = fmt.Sprintf(`<div><span style="font-family:monospace">%s</span> <progress value="%d" max="%d" style="width:40%%"></progress> %d/%d <span style="color:#666">%v</span></div>`,
			html.EscapeString(label), done, total, done, total, el)
	} else {
		h = fmt.Sprintf(`<div><span style="font-family:monospace">%s</span> <progress></progress> %d <span style="color:#666">%v</span></div>`, html.EscapeString(label), done, el)
	}
	return map[string]any{"text/html": h, "text/plain": p.String()}
}
