package mpi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/tracebook/tracebook/internal/mpi"
	"github.com/tracebook/tracebook/internal/mpi/launch"
)

// The test binary re-executes itself under mpirun with rankEnv set: each
// rank then runs checkWorld from TestMain, on the main goroutine locked to
// the main thread, and prints one line saying whether its checks passed.
const rankEnv = "TRACEBOOK_MPI_TEST_RANK"

func init() { runtime.LockOSThread() }

func TestMain(m *testing.M) {
	if os.Getenv(rankEnv) == "" {
		os.Exit(m.Run())
	}
	w, err := mpi.Init()
	if err != nil {
		fmt.Printf("rank ?: FAIL: %v\n", err)
		os.Exit(1)
	}
	if err := checkWorld(w); err != nil {
		fmt.Printf("rank %d: FAIL: %v\n", w.Rank(), err)
		os.Stdout.Sync()
		w.Abort(3)
	}
	if err := w.Finalize(); err != nil {
		fmt.Printf("rank %d: FAIL: %v\n", w.Rank(), err)
		os.Exit(1)
	}
	fmt.Printf("rank %d of %d: ok\n", w.Rank(), w.Size())
	os.Exit(0)
}

const ranks = 4

func TestWorld(t *testing.T) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not on PATH (Debian: apt-get install openmpi-bin libopenmpi-dev)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(launch.MpirunArgs(ranks), os.Args[0], "-test.run=^$")
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Env = append(append(os.Environ(), launch.MpirunEnv()...), rankEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("mpirun %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("mpirun: %v", err)
	}
	for r := 0; r < ranks; r++ {
		if want := fmt.Sprintf("rank %d of %d: ok\n", r, ranks); !strings.Contains(stdout.String(), want) {
			t.Errorf("no line %q", want)
		}
	}
}

// payload is the message rank from sends with tag: n bytes that depend on
// both, so a message delivered to the wrong receive does not compare equal.
func payload(from, tag, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + from*31 + tag)
	}
	return b
}

// ringSizes are the sizes of the messages of the ring, one round each:
// empty, small, around the eager limits of the transports, and 8 MiB.
var ringSizes = []int{0, 1, 100, 4096, 65537, 1 << 20, 8 << 20}

func checkWorld(w *mpi.World) error {
	r, n := w.Rank(), w.Size()
	if n != ranks {
		return fmt.Errorf("Size = %d, want %d", n, ranks)
	}
	next, prev := (r+1)%n, (r+n-1)%n

	// A ring: every rank sends to the next and receives from the previous,
	// even ranks first sending, odd ranks first receiving (Send blocks for
	// large messages).
	for round, size := range ringSizes {
		tag := 10 + round
		send := func() error { return w.Send(next, tag, payload(r, tag, size)) }
		recv := func() error {
			got, err := w.Recv(prev, tag, size)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, payload(prev, tag, size)) {
				return fmt.Errorf("ring round %d: message of %d bytes from %d differs from what it sent (%d bytes)", round, size, prev, len(got))
			}
			return nil
		}
		steps := []func() error{send, recv}
		if r%2 == 1 {
			steps[0], steps[1] = recv, send
		}
		for _, f := range steps {
			if err := f(); err != nil {
				return fmt.Errorf("ring round %d (%d bytes): %w", round, size, err)
			}
		}
	}
	if err := w.Barrier(); err != nil {
		return err
	}

	// Probe with AnySource and AnyTag: every other rank sends rank 0 one
	// message whose tag and size follow from its rank (rank 1's is empty);
	// rank 0 polls until it has
	// them all and checks what Probe announced against what arrived.
	if r == 0 {
		seen := map[int]bool{}
		deadline := time.Now().Add(time.Minute)
		for len(seen) < n-1 {
			ok, from, tag, size, err := w.Probe(mpi.AnySource, mpi.AnyTag)
			if err != nil {
				return err
			}
			if !ok {
				if time.Now().After(deadline) {
					return fmt.Errorf("probe: %d of %d messages after a minute", len(seen), n-1)
				}
				time.Sleep(time.Millisecond)
				continue
			}
			if from < 1 || from >= n || seen[from] {
				return fmt.Errorf("probe: message from %d unexpected (seen %v)", from, seen)
			}
			seen[from] = true
			if tag != 100+from || size != 1000*(from-1) {
				return fmt.Errorf("probe: message from %d has tag %d and %d bytes, want %d and %d", from, tag, size, 100+from, 1000*(from-1))
			}
			got, err := w.Recv(from, tag, size)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, payload(from, tag, size)) {
				return fmt.Errorf("probe: message from %d differs from what it sent", from)
			}
		}
		if ok, from, tag, _, err := w.Probe(mpi.AnySource, mpi.AnyTag); ok || err != nil {
			return fmt.Errorf("probe after all messages: ok=%v from %d tag %d err %v", ok, from, tag, err)
		}
	} else if err := w.Send(0, 100+r, payload(r, 100+r, 1000*(r-1))); err != nil {
		return err
	}
	// Probe of a given source and tag finds that message and not another
	// waiting from another rank: rank 1 and rank 2 send rank 3 a message with
	// tag 7; rank 3 asks for rank 2's first.
	switch r {
	case 1, 2:
		if err := w.Send(3, 7, payload(r, 7, 10*r)); err != nil {
			return err
		}
	case 3:
		for _, from := range []int{2, 1} {
			var ok bool
			var gotFrom, tag, size int
			var err error
			for !ok && err == nil {
				ok, gotFrom, tag, size, err = w.Probe(from, 7)
			}
			if err != nil {
				return err
			}
			if gotFrom != from || tag != 7 || size != 10*from {
				return fmt.Errorf("Probe(%d, 7) = from %d tag %d size %d", from, gotFrom, tag, size)
			}
			if got, err := w.Recv(from, 7, size); err != nil || !bytes.Equal(got, payload(from, 7, size)) {
				return fmt.Errorf("Recv(%d, 7): %d bytes, %v", from, len(got), err)
			}
		}
	}

	// Bcast from every root, with sizes 0, small and 8 MiB.
	for root := 0; root < n; root++ {
		for _, size := range []int{0, 5, 8 << 20} {
			var b []byte
			if r == root {
				b = payload(root, 200, size)
			}
			got, err := w.Bcast(root, b)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, payload(root, 200, size)) {
				return fmt.Errorf("Bcast from %d of %d bytes: got %d bytes, not root's", root, size, len(got))
			}
		}
	}

	// Barrier: every rank sends rank 0 a message before the barrier; after
	// it, every one is there to be probed (MPI_Send may return before the
	// message is received, but after the barrier it has been sent).
	if r != 0 {
		if err := w.Send(0, 300, []byte{byte(r)}); err != nil {
			return err
		}
	}
	if err := w.Barrier(); err != nil {
		return err
	}
	if r == 0 {
		for from := 1; from < n; from++ {
			got, err := w.Recv(from, 300, 1)
			if err != nil || len(got) != 1 || int(got[0]) != from {
				return fmt.Errorf("after the barrier, from %d: %v %v", from, got, err)
			}
		}
	}

	// Errors name the call: a message longer than the receive (MPI's error
	// string), a rank that does not exist, a message over 2 GiB.
	if r == 1 {
		if err := w.Send(0, 400, make([]byte, 10)); err != nil {
			return err
		}
	}
	if r == 0 {
		_, err := w.Recv(1, 400, 4)
		var me *mpi.Error
		if !errors.As(err, &me) || !strings.Contains(err.Error(), "MPI_Recv from 1") || me.Msg == "" {
			return fmt.Errorf("Recv of 10 bytes into 4: err = %v, want an *mpi.Error naming MPI_Recv", err)
		}
	}
	if err := w.Send(n, 1, nil); err == nil || !strings.Contains(err.Error(), "MPI_Send") {
		return fmt.Errorf("Send to rank %d: err = %v", n, err)
	}
	var one byte
	huge := unsafe.Slice(&one, mpi.MaxMessage+1) // only its length is read
	if err := w.Send(next, 1, huge); err == nil || !strings.Contains(err.Error(), "MPI_Send") {
		return fmt.Errorf("Send of %d bytes: err = %v", len(huge), err)
	}
	return w.Barrier()
}
