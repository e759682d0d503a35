package worker

// AnySource and AnyTag match a message from any rank or with any tag in
// Comm.Probe (MPI_ANY_SOURCE, MPI_ANY_TAG).
const (
	AnySource = -1
	AnyTag    = -1
)

// Comm is what a worker needs of MPI: its rank among size, and messages of
// bytes between ranks. cmd/tracebook-mpi implements it over libmpi (cgo);
// LocalComms implements it over channels for tests. Every call is made from
// one goroutine (MPI_THREAD_FUNNELED): the worker's loop.
type Comm interface {
	Rank() int
	Size() int
	// Send sends b to rank dst with tag (MPI_Send: returns when b may be
	// reused).
	Send(dst, tag int, b []byte) error
	// Probe reports, without blocking, whether a message from src with tag
	// (AnySource, AnyTag match any) is waiting, and its source, tag and
	// size in bytes (MPI_Iprobe, MPI_Get_count).
	Probe(src, tag int) (ok bool, from, gotTag, size int, err error)
	// Recv receives the message of size bytes from rank src with tag that
	// Probe announced (MPI_Recv).
	Recv(src, tag, size int) ([]byte, error)
	// Abort ends every rank of the job with code (MPI_Abort).
	Abort(code int)
}
