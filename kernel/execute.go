package kernel

import (
	"context"
	"encoding/json"
	"go/parser"
	"strings"

	"github.com/tracebook/tracebook/kernel/wire"
)

// executeRequest is the content of an execute_request.
type executeRequest struct {
	Code            string            `json:"code"`
	Silent          bool              `json:"silent"`
	StoreHistory    *bool             `json:"store_history"`
	UserExpressions map[string]string `json:"user_expressions"`
	AllowStdin      bool              `json:"allow_stdin"`
	StopOnError     *bool             `json:"stop_on_error"`
}

// execute runs an execute_request. It returns whether it failed.
func (k *Kernel) execute(ch Channel, m *wire.Message) bool {
	var req executeRequest
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.reply(ch, m, "execute_reply", map[string]any{"status": "error", "ename": "BadRequest",
			"evalue": "execute_request content: " + err.Error(), "traceback": []string{}, "execution_count": k.count})
		return true
	}
	store := !req.Silent && (req.StoreHistory == nil || *req.StoreHistory)
	k.mu.Lock()
	if store {
		k.count++
	}
	count := k.count
	ctx, cancel := context.WithCancel(context.Background())
	k.cancel = cancel
	k.parent = m
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.cancel = nil
		k.mu.Unlock()
		cancel()
	}()
	if !req.Silent {
		k.publishTo(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}
	if name, detail, ok := helpQuery(req.Code); ok {
		// "name?", "?name" and "name??" show the documentation of name in the pager
		data, found := k.interp.Inspect(name, len(name), detail)
		if !found {
			data = map[string]any{"text/plain": "no documentation found for " + name}
		}
		k.pub.flush()
		k.reply(ch, m, "execute_reply", map[string]any{"status": "ok", "execution_count": count, "user_expressions": map[string]any{},
			"payload": []any{map[string]any{"source": "page", "data": data, "start": 0}}})
		return false
	}
	res := k.interp.Execute(ctx, req.Code)
	k.interp.Sync()
	if store {
		k.mu.Lock()
		k.history = append(k.history, histEntry{session: 1, line: count, input: req.Code, output: plain(res.Data)})
		k.mu.Unlock()
	}
	if res.Err != nil {
		tb := res.Err.traceback()
		if !req.Silent {
			k.publishTo(m, "error", map[string]any{"ename": res.Err.Name, "evalue": res.Err.Value, "traceback": tb})
		}
		k.pub.flush()
		if k.abortQueued != nil && (req.StopOnError == nil || *req.StopOnError) {
			// before the reply, so that only requests already queued are aborted
			k.abortQueued()
		}
		k.reply(ch, m, "execute_reply", map[string]any{"status": "error", "execution_count": count,
			"ename": res.Err.Name, "evalue": res.Err.Value, "traceback": tb})
		return true
	}
	if res.Data != nil && !req.Silent {
		k.publishTo(m, "execute_result", map[string]any{"execution_count": count, "data": res.Data, "metadata": orEmpty(res.Metadata)})
	}
	ue := map[string]any{}
	for name, expr := range req.UserExpressions {
		r := k.interp.Execute(ctx, expr) // interruptible like the cell
		if r.Err != nil {
			ue[name] = map[string]any{"status": "error", "ename": r.Err.Name, "evalue": r.Err.Value, "traceback": r.Err.traceback()}
		} else {
			d := r.Data
			if d == nil {
				d = map[string]any{"text/plain": ""}
			}
			ue[name] = map[string]any{"status": "ok", "data": d, "metadata": orEmpty(r.Metadata)}
		}
	}
	k.pub.flush()
	k.reply(ch, m, "execute_reply", map[string]any{"status": "ok", "execution_count": count,
		"user_expressions": ue, "payload": []any{}})
	return false
}

// HelpQuery recognizes IPython's help syntax as the kernel does (see
// helpQuery): terminal front ends answer it with Interpreter.Inspect.
func HelpQuery(code string) (expr string, detail int, ok bool) { return helpQuery(code) }

// helpQuery recognizes IPython's help syntax on a one-line cell: "expr?"
// or "?expr" (detail 0) and "expr??" or "??expr" (detail 1), where expr is
// a Go expression such as strings.Fields or a.Similarity, or the beginning of
// a call with unclosed parentheses ("align.Runs(a, ?").
func helpQuery(code string) (expr string, detail int, ok bool) {
	c := strings.TrimSpace(code)
	if strings.Contains(c, "\n") {
		return "", 0, false
	}
	switch {
	case strings.HasPrefix(c, "??"):
		c, detail = c[2:], 1
	case strings.HasPrefix(c, "?"):
		c = c[1:]
	case strings.HasSuffix(c, "??"):
		c, detail = c[:len(c)-2], 1
	case strings.HasSuffix(c, "?"):
		c = c[:len(c)-1]
	default:
		return "", 0, false
	}
	c = strings.TrimSpace(c)
	if c == "" {
		return "", 0, false
	}
	if _, err := parser.ParseExpr(c); err != nil && strings.Count(c, "(") <= strings.Count(c, ")") {
		return "", 0, false
	}
	// an expression, or the start of a call ("align.Runs(a, ?"): the interpreter documents
	// the called function
	return c, detail, true
}

func plain(d map[string]any) string {
	if d == nil {
		return ""
	}
	s, _ := d["text/plain"].(string)
	return s
}
