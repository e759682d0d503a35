package kernel

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/tracebook/tracebook/kernel/wire"
)

// histEntry is an executed cell, kept for history_request (IPython's
// history: the session is always 1, the line the execution count).
type histEntry struct {
	session, line int
	input, output string
}

func (k *Kernel) historyReply(ch Channel, m *wire.Message) {
	var c struct {
		Output  bool   `json:"output"`
		Access  string `json:"hist_access_type"`
		Session int    `json:"session"`
		Start   int    `json:"start"`
		Stop    *int   `json:"stop"`
		N       int    `json:"n"`
		Pattern string `json:"pattern"`
		Unique  bool   `json:"unique"`
	}
	_ = json.Unmarshal(m.Content, &c)
	k.mu.Lock()
	all := append([]histEntry(nil), k.history...)
	k.mu.Unlock()
	var sel []histEntry
	switch c.Access {
	case "tail":
		n := c.N
		if n <= 0 || n > len(all) {
			n = len(all)
		}
		sel = all[len(all)-n:]
	case "range":
		for _, h := range all {
			if h.line >= c.Start && (c.Stop == nil || h.line < *c.Stop) {
				sel = append(sel, h)
			}
		}
	case "search":
		seen := map[string]bool{}
		for i := len(all) - 1; i >= 0; i-- {
			h := all[i]
			if !globMatch(c.Pattern, h.input) {
				continue
			}
			if c.Unique && seen[h.input] {
				continue
			}
			seen[h.input] = true
			sel = append([]histEntry{h}, sel...)
		}
		if c.N > 0 && len(sel) > c.N {
			sel = sel[len(sel)-c.N:]
		}
	}
	out := make([]any, 0, len(sel))
	for _, h := range sel {
		if c.Output {
			out = append(out, []any{h.session, h.line, []any{h.input, h.output}})
		} else {
			out = append(out, []any{h.session, h.line, h.input})
		}
	}
	k.reply(ch, m, "history_reply", map[string]any{"status": "ok", "history": out})
}

// is any run of characters, newlines included; "?" is one character.
func globMatch(pattern, s string) bool {
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}
