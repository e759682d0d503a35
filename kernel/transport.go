package kernel

import "github.com/tracebook/tracebook/kernel/wire"

// Channel names a kernel socket.
type Channel int

// The Jupyter channels.
const (
	Shell Channel = iota
	Control
	IOPub
	Stdin
)

func (c Channel) String() string {
	return [...]string{"shell", "control", "iopub", "stdin"}[c]
}

// Transport sends messages on a channel (signing is the transport's job).
type Transport interface {
	Send(ch Channel, m *wire.Message) error
}

// Backlogger is a transport that tells how many messages wait for the least
// busy subscriber of a channel. The transport drops messages for a
// subscriber that falls too far behind (so a stopped one cannot stall the
// others); the publisher paces itself on the least busy one, so a healthy
// client loses nothing however fast a cell prints.
type Backlogger interface {
	Backlog(ch Channel) int
}
