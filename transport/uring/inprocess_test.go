package uring

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseProcAddr(t *testing.T) {
	for _, c := range []struct {
		in   string
		ip   string
		port uint16
	}{
		{"0100007F:1F90", "127.0.0.1", 8080},
		{"00000000:0050", "0.0.0.0", 80},
		{"00000000000000000000000001000000:01BB", "::1", 443},
		{"0000000000000000FFFF00000100007F:4E21", "::ffff:127.0.0.1", 20001},
	} {
		ip, port, ok := parseProcAddr(c.in)
		if !ok || ip.String() != c.ip || port != c.port {
			t.Errorf("parseProcAddr(%q) = %v, %d, %v; want %s, %d", c.in, ip, port, ok, c.ip, c.port)
		}
	}
	for _, bad := range []string{"", "0100007F", "0100007F:zz", "01007F:1F90", "xx00007F:1F90"} {
		if _, _, ok := parseProcAddr(bad); ok {
			t.Errorf("parseProcAddr(%q) accepted", bad)
		}
	}
}

// TestHelperListener is not a test: run by TestServedHere in a child
// process, it listens on loopback, prints the port and waits for stdin to
// close.
func TestHelperListener(t *testing.T) {
	if os.Getenv("KATBENCH_HELPER_LISTEN") != "1" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// TestServedHere: a listener of this process is found, on its own address
// and through a wildcard one; a listener of another process and a port
// nobody listens on are not.
func TestServedHere(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	mine := netip.MustParseAddrPort(ln.Addr().String())
	if here, err := servedHere(mine); err != nil || !here {
		t.Fatalf("servedHere(own listener %v) = %v, %v; want true", mine, here, err)
	}
	wild, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer wild.Close()
	viaWild := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(wild.Addr().(*net.TCPAddr).Port))
	if here, err := servedHere(viaWild); err != nil || !here {
		t.Fatalf("servedHere(%v, a wildcard listener of ours) = %v, %v; want true", viaWild, here, err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperListener$")
	cmd.Env = append(os.Environ(), "KATBENCH_HELPER_LISTEN=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("helper listener: %v", err)
	}
	var port uint16
	if _, err := fmt.Sscan(strings.TrimSpace(line), &port); err != nil {
		t.Fatalf("helper listener said %q", line)
	}
	theirs := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)
	if here, err := servedHere(theirs); err != nil || here {
		t.Fatalf("servedHere(another process's listener %v) = %v, %v; want false", theirs, here, err)
	}

	closed := mine
	ln.Close()
	if here, err := servedHere(closed); err != nil || here {
		t.Fatalf("servedHere(closed port %v) = %v, %v; want false", closed, here, err)
	}
}

// TestAutoWaitPerHost: with no mode forced, a server in this process gets
// the poll wait and says so.
func TestAutoWaitPerHost(t *testing.T) {
	t.Setenv(WaitEnv, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	tr := newTestTransportMode(t, 1, WaitAuto)
	host := strings.TrimPrefix(srv.URL, "http://")
	if w := tr.WaitUsed(host); w != "" {
		t.Fatalf("WaitUsed before any request = %q, want blank", w)
	}
	do(t, &http.Client{Transport: tr, Timeout: 10 * time.Second}, http.MethodGet, srv.URL, nil)
	if w := tr.WaitUsed(host); !strings.HasPrefix(w, "poll: the server listens in this process") {
		t.Fatalf("WaitUsed for an in-process server = %q", w)
	}
	p := tr.pool(host)
	p.mu.Lock()
	c := p.idle[0]
	p.mu.Unlock()
	if c.wait != WaitPoll {
		t.Fatalf("the connection waits with %v, want poll", c.wait)
	}
	if got := newTestTransportMode(t, 1, waitHold); got.opts.Wait != waitHold {
		t.Fatalf("an explicit mode became %v", got.opts.Wait)
	}
}
