package profile

import (
	"github.com/tracebook/tracebook/builtins/internal/p2p"
	"github.com/tracebook/tracebook/builtins/trace"
)

func init() { trace.ChromeMessages = chromeMessages }

// chromeMessages is trace.ChromeMessages: the messages of tr's own
// processes matched as Messages matches them, with the events of their
// send and receive records, for the flow events of trace.WriteChrome.
// (trace cannot call the matcher: internal/p2p imports trace.)
func chromeMessages(tr *trace.Trace) []trace.ChromeMessage {
	_, m, _ := match(tr, nil, p2p.Columns{Refs: true})
	out := make([]trace.ChromeMessage, m.Len())
	for k := range out {
		out[k] = trace.ChromeMessage{SendProcess: int(m.SendLoc[k]), SendEvent: int(m.SendRef[k]),
			RecvProcess: int(m.RecvLoc[k]), RecvEvent: int(m.RecvRef[k])}
	}
	return out
}
