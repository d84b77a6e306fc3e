package testenv

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestFreePortReserved checks that FreePort's ports lie outside the
// kernel's ephemeral range, are distinct, can be bound, and are locked
// against another opener of the same lock file (as another test process
// would be).
func TestFreePortReserved(t *testing.T) {
	elo, ehi, err := ephemeralRange()
	if err != nil {
		t.Fatalf("read the ephemeral range: %v", err)
	}
	seen := map[int]bool{}
	for i := 0; i < 20; i++ {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
		if p < portFloor || (p >= elo && p <= ehi) {
			t.Fatalf("port %d: want >= %d and outside the ephemeral range %d-%d", p, portFloor, elo, ehi)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("bind the reserved port %d: %v", p, err)
		}
		l.Close()
		f, err := os.OpenFile(filepath.Join(portLockDir(), strconv.Itoa(p)+".lock"), os.O_RDWR, 0)
		if err != nil {
			t.Fatalf("lock file of port %d: %v", p, err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Fatalf("port %d: a second lock got %v, want EWOULDBLOCK", p, err)
		}
	}
}

// TestFreePortRunSkipsBusy checks that a run of ports is consecutive, and
// that a port something listens on is never handed out.
func TestFreePortRunSkipsBusy(t *testing.T) {
	first, err := FreePortRun(3)
	if err != nil {
		t.Fatal(err)
	}
	for p := first; p < first+3; p++ {
		if reserved[p] == nil {
			t.Fatalf("port %d of the run %d-%d is not reserved", p, first, first+2)
		}
	}
	// A listener on a port in the candidate range, not reserved by us.
	lo, hi := portCandidates()
	var busy net.Listener
	for p := lo; p <= hi && busy == nil; p++ {
		if reserved[p] == nil {
			busy, _ = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		}
	}
	if busy == nil {
		t.Fatal("could not listen on any candidate port")
	}
	defer busy.Close()
	bp := busy.Addr().(*net.TCPAddr).Port
	dir := portLockDir()
	if held, ok := reserveRun(dir, bp, 1); ok {
		for _, f := range held {
			f.Close()
		}
		t.Fatalf("port %d has a listener but was reserved", bp)
	}
	if _, ok := reserveRun(dir, first, 1); ok {
		t.Fatalf("port %d is already reserved by this process but was reserved again", first)
	}
	if _, err := FreePortRun(0); err == nil {
		t.Fatal("FreePortRun(0): want an error")
	}
}
