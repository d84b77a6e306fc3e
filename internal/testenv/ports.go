package testenv

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Ports handed to servers that tests start are taken below the kernel's
// ephemeral range, and each is reserved across processes.
//
// A port the kernel chose for a listener on port 0 and that was then
// closed goes back into the ephemeral range: in the seconds before a JVM
// server binds it, any outgoing connection on the machine (another test
// package runs at the same time) may be given it as its local port, and
// the server then fails with "Address already in use". Below that range
// the kernel hands out nothing by itself, so only another caller of
// FreePort could pick the same port, and the lock file stops that.

// portFloor is the lowest port FreePort hands out: above the fixed
// defaults of the up scripts (7070, 8181-8391, 9200, 15432, 19120-19141).
const portFloor = 20000

var (
	portsMu  sync.Mutex
	reserved = map[int]*os.File{} // held open for the process's lifetime: closing drops the lock
)

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on, for a
// server the caller is about to start. It is outside the kernel's
// ephemeral port range and reserved for the rest of this process by an
// exclusive lock, so neither an outgoing connection nor another test
// process can be given it before the server binds it.
func FreePort() (int, error) { return FreePortRun(1) }

// FreePortRun reserves n consecutive free ports as FreePort does and
// returns the first (for servers that bind port and port+1).
func FreePortRun(n int) (int, error) {
	if n < 1 {
		return 0, fmt.Errorf("find free ports: want at least one, got %d", n)
	}
	lo, hi := portCandidates()
	if hi-lo+1 < n {
		return 0, fmt.Errorf("find free ports: no room for %d consecutive ports in %d-%d outside the ephemeral range", n, lo, hi)
	}
	dir := portLockDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("find free ports: %w", err)
	}
	portsMu.Lock()
	defer portsMu.Unlock()
	span := hi - lo + 1 - (n - 1)
	start := rand.IntN(span)
	for i := 0; i < span; i++ {
		first := lo + (start+i)%span
		if held, ok := reserveRun(dir, first, n); ok {
			for j, f := range held {
				reserved[first+j] = f
			}
			return first, nil
		}
	}
	return 0, fmt.Errorf("find free ports: every port in %d-%d is taken or reserved", lo, hi)
}

// reserveRun locks and checks ports first..first+n-1; on any failure it
// releases what it took.
func reserveRun(dir string, first, n int) ([]*os.File, bool) {
	var held []*os.File
	release := func() {
		for _, f := range held {
			f.Close()
		}
	}
	for p := first; p < first+n; p++ {
		if reserved[p] != nil {
			release()
			return nil, false
		}
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(p)+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			release()
			return nil, false
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			release()
			return nil, false
		}
		held = append(held, f)
		if !portFree(p) {
			release()
			return nil, false
		}
	}
	return held, true
}

// portLockDir holds the lock files, one per reserved port; one per user,
// so another user's directory never stops this one's tests.
func portLockDir() string {
	return filepath.Join(os.TempDir(), "katbench-ports-"+strconv.Itoa(os.Getuid()))
}

// portCandidates returns the widest range of ports at or above portFloor
// that the kernel's ephemeral range (ip_local_port_range) leaves out.
func portCandidates() (lo, hi int) {
	elo, ehi, err := ephemeralRange()
	if err != nil {
		// Linux's default range.
		elo, ehi = 32768, 60999
	}
	below := [2]int{portFloor, min(elo-1, 65535)}
	above := [2]int{max(ehi+1, portFloor), 65535}
	best := below
	if above[1]-above[0] > below[1]-below[0] {
		best = above
	}
	if best[1]-best[0] < 1000 {
		// The ephemeral range covers nearly everything: the lock still
		// keeps test processes apart, the race with connections remains.
		return portFloor, 65535
	}
	return best[0], best[1]
}

func ephemeralRange() (lo, hi int, err error) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0, errors.New("ip_local_port_range: want two numbers")
	}
	if lo, err = strconv.Atoi(f[0]); err == nil {
		hi, err = strconv.Atoi(f[1])
	}
	return lo, hi, err
}

// portFree reports whether nothing listens on 127.0.0.1:port right now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
