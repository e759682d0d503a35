package mpi

/*
#cgo pkg-config: ompi-c
#include <stdlib.h>
#include <mpi.h>

// The MPI constants are macros (pointers to Open MPI's predefined objects),
// which cgo cannot name: small helpers take their place.

static int tb_init_funneled(int *provided) {
	return MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
}

static int tb_thread_funneled(void) { return MPI_THREAD_FUNNELED; }

static int tb_rank(int *r) { return MPI_Comm_rank(MPI_COMM_WORLD, r); }

static int tb_size(int *s) { return MPI_Comm_size(MPI_COMM_WORLD, s); }

static int tb_set_errors_return(void) {
	return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static int tb_source(int src) { return src < 0 ? MPI_ANY_SOURCE : src; }

static int tb_tag(int tag) { return tag < 0 ? MPI_ANY_TAG : tag; }

static int tb_send(void *b, int n, int dst, int tag) {
	return MPI_Send(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD);
}

static int tb_iprobe(int src, int tag, int *flag, int *from, int *gotTag, int *count) {
	MPI_Status st;
	int rc = MPI_Iprobe(tb_source(src), tb_tag(tag), MPI_COMM_WORLD, flag, &st);
	if (rc != MPI_SUCCESS || !*flag) {
		return rc;
	}
	*from = st.MPI_SOURCE;
	*gotTag = st.MPI_TAG;
	return MPI_Get_count(&st, MPI_BYTE, count);
}

static int tb_recv(void *b, int n, int src, int tag, int *count) {
	MPI_Status st;
	int rc = MPI_Recv(b, n, MPI_BYTE, tb_source(src), tb_tag(tag), MPI_COMM_WORLD, &st);
	if (rc != MPI_SUCCESS) {
		return rc;
	}
	return MPI_Get_count(&st, MPI_BYTE, count);
}

static int tb_bcast_size(long long *n, int root) {
	return MPI_Bcast(n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
}

static int tb_bcast(void *b, int n, int root) {
	return MPI_Bcast(b, n, MPI_BYTE, root, MPI_COMM_WORLD);
}

static int tb_barrier(void) { return MPI_Barrier(MPI_COMM_WORLD); }

static int tb_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }

static int tb_error_string(int code, char *buf, int *n) {
	return MPI_Error_string(code, buf, n);
}

static int tb_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"
)

// AnySource and AnyTag, as src or tag of Probe and Recv, match a message
// from any rank or with any tag (MPI_ANY_SOURCE, MPI_ANY_TAG).
const (
	AnySource = -1
	AnyTag    = -1
)

// MaxMessage is the largest message in bytes: MPI counts are C ints.
const MaxMessage = math.MaxInt32

// World is MPI_COMM_WORLD of an initialised MPI job. Its methods must be
// called from the goroutine that called Init (MPI_THREAD_FUNNELED).
type World struct {
	rank, size int
	finalized  bool
}

// Init initialises MPI (MPI_Init_thread) asking for MPI_THREAD_FUNNELED and
// returns the world. It fails if the library provides less, and must be
// called once per process. Errors of later calls are returned, not fatal
// (MPI_ERRORS_RETURN on the world).
func Init() (*World, error) {
	var provided C.int
	if rc := C.tb_init_funneled(&provided); rc != 0 {
		return nil, callError("MPI_Init_thread", rc)
	}
	if provided < C.tb_thread_funneled() {
		C.MPI_Finalize()
		return nil, fmt.Errorf("mpi: MPI_Init_thread: MPI_THREAD_FUNNELED not provided (level %d)", int(provided))
	}
	if rc := C.tb_set_errors_return(); rc != 0 {
		return nil, callError("MPI_Comm_set_errhandler", rc)
	}
	w := &World{}
	var r, s C.int
	if rc := C.tb_rank(&r); rc != 0 {
		return nil, callError("MPI_Comm_rank", rc)
	}
	if rc := C.tb_size(&s); rc != 0 {
		return nil, callError("MPI_Comm_size", rc)
	}
	w.rank, w.size = int(r), int(s)
	return w, nil
}

// Finalize ends MPI (MPI_Finalize). Calling it again does nothing.
func (w *World) Finalize() error {
	if w.finalized {
		return nil
	}
	w.finalized = true
	if rc := C.MPI_Finalize(); rc != 0 {
		return callError("MPI_Finalize", rc)
	}
	return nil
}

// Rank returns this process's rank in the world.
func (w *World) Rank() int { return w.rank }

// Size returns the number of ranks of the world.
func (w *World) Size() int { return w.size }

// Send sends b to rank dst with tag (MPI_Send of MPI_BYTE); it returns when
// b may be reused. b may be empty; it must not be longer than MaxMessage.
func (w *World) Send(dst, tag int, b []byte) error {
	if len(b) > MaxMessage {
		return fmt.Errorf("mpi: MPI_Send to %d: message of %d bytes is larger than %d", dst, len(b), MaxMessage)
	}
	if dst < 0 || dst >= w.size {
		return fmt.Errorf("mpi: MPI_Send: no rank %d among %d", dst, w.size)
	}
	if tag < 0 {
		return fmt.Errorf("mpi: MPI_Send to %d: negative tag %d", dst, tag)
	}
	// libmpi reads b during the call only; an empty message passes no buffer.
	// Go memory passed to C must hold no Go pointers: bytes do not.
	var p unsafe.Pointer
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	if rc := C.tb_send(p, C.int(len(b)), C.int(dst), C.int(tag)); rc != 0 {
		return callError(fmt.Sprintf("MPI_Send to %d", dst), rc)
	}
	return nil
}

// Probe reports, without blocking, whether a message from src with tag is
// waiting (AnySource and AnyTag match any), and its source, tag and size in
// bytes (MPI_Iprobe, MPI_Get_count).
func (w *World) Probe(src, tag int) (ok bool, from, gotTag, size int, err error) {
	var flag, f, t, n C.int
	if rc := C.tb_iprobe(C.int(src), C.int(tag), &flag, &f, &t, &n); rc != 0 {
		return false, 0, 0, 0, callError("MPI_Iprobe", rc)
	}
	if flag == 0 {
		return false, 0, 0, 0, nil
	}
	if n < 0 { // MPI_UNDEFINED
		return false, 0, 0, 0, fmt.Errorf("mpi: MPI_Get_count: message from %d is not a whole number of bytes", int(f))
	}
	return true, int(f), int(t), int(n), nil
}

// Recv receives a message of at most size bytes from src with tag
// (AnySource and AnyTag match any; MPI_Recv) and returns it. A longer
// message is an error (MPI_ERR_TRUNCATE).
func (w *World) Recv(src, tag, size int) ([]byte, error) {
	if size < 0 || size > MaxMessage {
		return nil, fmt.Errorf("mpi: MPI_Recv from %d: size %d out of range [0, %d]", src, size, MaxMessage)
	}
	var p unsafe.Pointer
	b := make([]byte, size)
	if size > 0 {
		p = unsafe.Pointer(&b[0])
	}
	var n C.int
	if rc := C.tb_recv(p, C.int(size), C.int(src), C.int(tag), &n); rc != 0 {
		return nil, callError(fmt.Sprintf("MPI_Recv from %d", src), rc)
	}
	return b[:int(n)], nil
}

// Bcast broadcasts root's b to every rank (MPI_Bcast of its size, then of
// its bytes) and returns it; b is ignored on the other ranks.
func (w *World) Bcast(root int, b []byte) ([]byte, error) {
	if root < 0 || root >= w.size {
		return nil, fmt.Errorf("mpi: MPI_Bcast: no root %d among %d", root, w.size)
	}
	n := C.longlong(len(b))
	if w.rank == root && len(b) > MaxMessage {
		n = -1 // every rank must see the failure, not wait for bytes
	}
	if rc := C.tb_bcast_size(&n, C.int(root)); rc != 0 {
		return nil, callError("MPI_Bcast (size)", rc)
	}
	if n < 0 {
		return nil, fmt.Errorf("mpi: MPI_Bcast: root %d's message is larger than %d bytes", root, MaxMessage)
	}
	if w.rank != root {
		b = make([]byte, int(n))
	}
	if n == 0 {
		return b, nil
	}
	if rc := C.tb_bcast(unsafe.Pointer(&b[0]), C.int(n), C.int(root)); rc != 0 {
		return nil, callError("MPI_Bcast", rc)
	}
	return b, nil
}

// Barrier returns when every rank has entered it (MPI_Barrier).
func (w *World) Barrier() error {
	if rc := C.tb_barrier(); rc != 0 {
		return callError("MPI_Barrier", rc)
	}
	return nil
}

// Abort ends every rank of the job with code (MPI_Abort); it does not
// return.
func (w *World) Abort(code int) {
	C.tb_abort(C.int(code))
	panic("mpi: MPI_Abort returned") // not reached: libmpi exits
}

// Error is an MPI call's failure: the call and MPI's error string.
type Error struct {
	Call string // the MPI function, with its partner ("MPI_Send to 3")
	Code int    // the MPI error code
	Msg  string // MPI_Error_string of Code
}

func (e *Error) Error() string {
	return fmt.Sprintf("mpi: %s: %s (error %d)", e.Call, e.Msg, e.Code)
}

func callError(call string, rc C.int) error {
	buf := make([]byte, int(C.tb_max_error_string())+1)
	var n C.int
	msg := "unknown MPI error"
	if C.tb_error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n) == 0 && n > 0 {
		msg = string(buf[:int(n)])
	}
	return &Error{Call: call, Code: int(rc), Msg: msg}
}
