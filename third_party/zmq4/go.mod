module github.com/go-zeromq/zmq4

go 1.25.0

require (
	golang.org/x/sync v0.22.0
	golang.org/x/text v0.41.0
)
