package kernel

import (
	"encoding/json"
	"errors"

	"github.com/tracebook/tracebook/kernel/wire"
)

// The Frontend a kernel gives its interpreter (see New): stream writers,
// displays and input, all routed to the request being executed.

// currentParent is the execute_request being served (or the last one): the
// parent of the interpreter's output.
func (k *Kernel) currentParent() *wire.Message {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.parent
}

type streamWriter struct {
	k    *Kernel
	name string
}

func (w streamWriter) Write(b []byte) (int, error) {
	w.k.pub.stream(w.k.currentParent(), w.name, b)
	return len(b), nil
}

func (k *Kernel) display(data, metadata map[string]any, id string, update bool) {
	// what the cell printed before the display comes before it
	k.interp.Sync()
	c := map[string]any{"data": data, "metadata": orEmpty(metadata), "transient": map[string]any{}}
	if id != "" {
		c["transient"] = map[string]any{"display_id": id}
	}
	if update {
		k.publish("update_display_data", c)
	} else {
		k.publish("display_data", c)
	}
}

func (k *Kernel) clear(wait bool) {
	k.interp.Sync()
	k.publish("clear_output", map[string]any{"wait": wait})
}

var errNoStdin = errors.New("input is not available: the front end does not allow stdin for this request")

func (k *Kernel) input(prompt string, password bool) (string, error) {
	k.mu.Lock()
	parent := k.parent
	k.mu.Unlock()
	if parent == nil || !allowStdin(parent) {
		return "", errNoStdin
	}
	// output before the prompt must appear before it
	k.interp.Sync()
	k.pub.flush()
	select { // drop a stale reply
	case <-k.inputCh:
	default:
	}
	m, err := wire.NewMessage("input_request", k.session, parent, map[string]any{"prompt": prompt, "password": password})
	if err != nil {
		return "", err
	}
	m.Identities = parent.Identities
	if err := k.t.Send(Stdin, m); err != nil {
		return "", err
	}
	r := <-k.inputCh // an interrupt also answers, with an error
	return r.value, r.err
}

func allowStdin(m *wire.Message) bool {
	var c struct {
		AllowStdin *bool `json:"allow_stdin"`
	}
	_ = json.Unmarshal(m.Content, &c)
	return c.AllowStdin != nil && *c.AllowStdin
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

type inputReply struct {
	value string
	err   error
}
