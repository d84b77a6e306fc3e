package servercost

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// TCP states of /proc/net/tcp's st column.
const (
	tcpEstablished = 0x01
	tcpListen      = 0x0A
)

// endpoint is one end of a TCP socket as /proc/net/tcp writes it: the
// address in the kernel's hex, the port as a number.
type endpoint struct {
	addr string
	port int
}

// socket is one row of /proc/net/tcp or tcp6.
type socket struct {
	local, remote endpoint
	state         int
	inode         uint64
}

// ErrNoListener means no process on this host listens on the port.
var ErrNoListener = errors.New("no process on this host listens on the port")

// readSockets reads every TCP socket of this network namespace.
func readSockets() ([]socket, error) {
	var out []socket
	var errs []error
	for _, f := range []string{"net/tcp", "net/tcp6"} {
		b, err := os.ReadFile(filepath.Join(procRoot, f))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s, err := parseSockets(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, s...)
	}
	if len(errs) == 2 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// parseSockets parses the table of /proc/net/tcp{,6}: a header line, then
// "sl local rem st tx:rx tr:when retrnsmt uid timeout inode …".
func parseSockets(b []byte) ([]socket, error) {
	var out []socket
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 4096), 1<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		l, err1 := parseEndpoint(f[1])
		r, err2 := parseEndpoint(f[2])
		st, err3 := strconv.ParseUint(f[3], 16, 8)
		ino, err4 := strconv.ParseUint(f[9], 10, 64)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("row %q: %w", sc.Text(), err)
		}
		out = append(out, socket{local: l, remote: r, state: int(st), inode: ino})
	}
	return out, sc.Err()
}

// parseEndpoint parses "0100007F:1F90".
func parseEndpoint(s string) (endpoint, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok || a == "" {
		return endpoint{}, fmt.Errorf("address %q is not ADDR:PORT", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return endpoint{}, fmt.Errorf("address %q: port: %w", s, err)
	}
	return endpoint{addr: a, port: int(port)}, nil
}

// socketInodes returns the socket inodes process pid holds open.
func socketInodes(pid int) (map[uint64]bool, error) {
	dir := fmt.Sprintf("%s/%d/fd", procRoot, pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[uint64]bool{}
	for _, e := range ents {
		target, err := os.Readlink(dir + "/" + e.Name())
		if err != nil {
			continue // closed since the listing
		}
		if n, ok := strings.CutPrefix(target, "socket:["); ok {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64); err == nil {
				out[ino] = true
			}
		}
	}
	return out, nil
}

// pids lists every process of this host (the numeric entries of /proc).
func pids() ([]int, error) {
	ents, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out, nil
}

// owners returns the processes holding any of the socket inodes. A
// process whose descriptors cannot be read (another user's, without
// privilege) is passed over.
func owners(inodes map[uint64]bool) ([]int, error) {
	all, err := pids()
	if err != nil {
		return nil, err
	}
	var out []int
	for _, pid := range all {
		held, err := socketInodes(pid)
		if err != nil {
			continue
		}
		for ino := range held {
			if inodes[ino] {
				out = append(out, pid)
				break
			}
		}
	}
	return out, nil
}

// ListenerPIDs returns the processes listening on TCP port port (any
// address, IPv4 or IPv6), or ErrNoListener.
func ListenerPIDs(port int) ([]int, error) {
	socks, err := readSockets()
	if err != nil {
		return nil, fmt.Errorf("read sockets: %w", err)
	}
	want := map[uint64]bool{}
	for _, s := range socks {
		if s.state == tcpListen && s.local.port == port && s.inode != 0 {
			want[s.inode] = true
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("port %d: %w", port, ErrNoListener)
	}
	out, err := owners(want)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("port %d is listened on, but by no process whose descriptors this user may read", port)
	}
	return out, nil
}

// StorePIDs returns the processes at the other end of the server
// processes' outgoing connections within this host: the store serving the
// server (a PostgreSQL backend per pooled connection). Processes in
// exclude (the benchmark's own) are left out, as are connections to the
// server's own listening ports (its clients). A PostgreSQL backend whose
// descriptors cannot be read is found by its process title, which names
// the client's port ("postgres: user db 127.0.0.1(PORT) idle").
func StorePIDs(server []int, exclude []int) ([]int, error) {
	return storePIDsTo(server, exclude, 0)
}

// storePIDsTo is StorePIDs over the connections to port toPort alone (any
// port when 0).
func storePIDsTo(server []int, exclude []int, toPort int) ([]int, error) {
	socks, err := readSockets()
	if err != nil {
		return nil, fmt.Errorf("read sockets: %w", err)
	}
	held := map[uint64]bool{}
	for _, pid := range server {
		in, err := socketInodes(pid)
		if err != nil {
			return nil, fmt.Errorf("server process %d: %w", pid, err)
		}
		for k := range in {
			held[k] = true
		}
	}
	listens := map[int]bool{}
	for _, s := range socks {
		if held[s.inode] && s.state == tcpListen {
			listens[s.local.port] = true
		}
	}
	type pair struct{ a, b endpoint }
	peers := map[pair]bool{}
	localPorts := map[int]bool{}
	for _, s := range socks {
		if held[s.inode] && s.state == tcpEstablished && !listens[s.local.port] && (toPort == 0 || s.remote.port == toPort) {
			peers[pair{s.remote, s.local}] = true
			localPorts[s.local.port] = true
		}
	}
	want := map[uint64]bool{}
	for _, s := range socks {
		if s.state == tcpEstablished && peers[pair{s.local, s.remote}] && s.inode != 0 {
			want[s.inode] = true
		}
	}
	found, err := owners(want)
	if err != nil {
		return nil, err
	}
	found = append(found, titledBackends(localPorts)...)
	skip := map[int]bool{}
	for _, p := range append(slices.Clone(server), exclude...) {
		skip[p] = true
	}
	var out []int
	for _, p := range found {
		if !skip[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// titledBackends finds PostgreSQL backends by their process title: those
// serving a client on one of ports.
func titledBackends(ports map[int]bool) []int {
	if len(ports) == 0 {
		return nil
	}
	all, err := pids()
	if err != nil {
		return nil
	}
	var out []int
	for _, pid := range all {
		b, err := os.ReadFile(fmt.Sprintf("%s/%d/cmdline", procRoot, pid))
		if err != nil || !bytes.HasPrefix(b, []byte("postgres: ")) {
			continue
		}
		if port, ok := backendClientPort(string(b)); ok && ports[port] {
			out = append(out, pid)
		}
	}
	return out
}

// backendClientPort reads the client port of a PostgreSQL backend's
// title, "postgres: user db 127.0.0.1(54321) idle".
func backendClientPort(title string) (int, bool) {
	open := strings.IndexByte(title, '(')
	if open < 0 {
		return 0, false
	}
	end := strings.IndexByte(title[open:], ')')
	if end < 0 {
		return 0, false
	}
	p, err := strconv.Atoi(title[open+1 : open+end])
	return p, err == nil && p > 0 && p < 65536
}
