package servercost

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/testenv"
)

// helperEnv makes the test binary a helper process: "store" listens and
// holds what connects; "server ADDR DIR" connects to the store at ADDR,
// opens DIR/catalog.db, and serves HTTP with a fixed amount of hashing
// per request. Each prints its listening port on stdout.
const helperEnv = "KATBENCH_SERVERCOST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "store":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(3)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(0)
			}
			held = append(held, c)
		}
	case "server":
		store, err := net.Dial("tcp", os.Args[len(os.Args)-2])
		if err != nil {
			os.Exit(3)
		}
		defer store.Close()
		f, err := os.Create(filepath.Join(os.Args[len(os.Args)-1], "catalog.db"))
		if err != nil {
			os.Exit(3)
		}
		_, _ = f.Write(make([]byte, 64<<10))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(3)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
		buf := make([]byte, 1<<20)
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			var sum [32]byte
			for range 8 {
				sum = sha256.Sum256(append(buf[:len(buf)-32], sum[:]...))
			}
			_, _ = w.Write(sum[:])
		}))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startHelper runs the test binary as a helper and returns it and the
// port it printed.
func startHelper(t *testing.T, args ...string) (*exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, args[1:]...)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+args[0])
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper %s printed no port: %v", args[0], err)
	}
	port, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("helper %s printed %q", args[0], line)
	}
	return cmd, port
}

// TestProcMeterFindsServerAndStore runs a server process connected to a
// store process, sends it requests inside a window, and checks that the
// meter names both processes, counts CPU for the work done, and finds
// the store file the server holds open.
func TestProcMeterFindsServerAndStore(t *testing.T) {
	_, err := os.Stat("/proc/self/stat")
	testenv.Need(t, "/proc (the proc meter measures Linux servers only)", err)
	store, storePort := startHelper(t, "store")
	dir := t.TempDir()
	server, port := startHelper(t, "server", fmt.Sprintf("127.0.0.1:%d", storePort), dir)

	pids, err := ListenerPIDs(port)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pids, []int{server.Process.Pid}) {
		t.Fatalf("ListenerPIDs(%d) = %v, want the server %d", port, pids, server.Process.Pid)
	}
	m := ByPort(port)
	ctx := context.Background()
	if err := m.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Minute}
	for range 50 {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	w, err := m.End(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w.Source != SourceProc || !slices.Equal(w.PIDs, []int{server.Process.Pid}) {
		t.Errorf("window source %q pids %v, want proc and the server %d", w.Source, w.PIDs, server.Process.Pid)
	}
	if !slices.Contains(w.StorePIDs, store.Process.Pid) {
		t.Errorf("store pids %v miss the store process %d", w.StorePIDs, store.Process.Pid)
	}
	if slices.Contains(w.StorePIDs, os.Getpid()) {
		t.Errorf("store pids %v include the benchmark itself", w.StorePIDs)
	}
	if w.CPU == nil || *w.CPU <= 0 {
		t.Errorf("CPU = %v for 400 MiB of hashing, want > 0", w.CPU)
	}
	if w.RSSPeak == nil || w.RSSAfter == nil || *w.RSSAfter <= 0 || *w.RSSPeak < *w.RSSAfter {
		t.Errorf("RSS peak %v after %v: want both, peak ≥ after > 0", w.RSSPeak, w.RSSAfter)
	}
	if w.StoreBytes == nil || *w.StoreBytes != 64<<10 {
		t.Errorf("store bytes = %v, want the 64 KiB catalog.db the server holds", w.StoreBytes)
	}
}

// TestProcMeterRefusesOwnProcess: a server in the benchmark's process
// cannot be told apart from the client.
func TestProcMeterRefusesOwnProcess(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = ByPort(ln.Addr().(*net.TCPAddr).Port).Begin(context.Background())
	if !errors.Is(err, ErrInProcess) {
		t.Fatalf("Begin on our own listener: %v, want ErrInProcess", err)
	}
}

func TestListenerPIDsNoListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if _, err := ListenerPIDs(port); !errors.Is(err, ErrNoListener) {
		t.Fatalf("ListenerPIDs of a closed port: %v, want ErrNoListener", err)
	}
}
