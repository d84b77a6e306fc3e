package pacer

import (
	"context"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/phold"
	"github.com/nordisk/katbench/internal/results"
)

// echoFDEnv, set in a child of the test binary, makes it echo every byte
// it reads on that descriptor and exit at end of file (TestMain).
const echoFDEnv = "KATBENCH_PACER_ECHO_FD"

func TestMain(m *testing.M) {
	if s := os.Getenv(echoFDEnv); s != "" {
		fd, err := strconv.Atoi(s)
		if err != nil {
			os.Exit(2)
		}
		buf := make([]byte, 1)
		for {
			n, err := unix.Read(fd, buf)
			if n <= 0 || err != nil {
				os.Exit(0)
			}
			if _, err := unix.Write(fd, buf[:n]); err != nil {
				os.Exit(0)
			}
		}
	}
	os.Exit(m.Run())
}

// BenchmarkRoundTripWhilePacing is what a goroutine parked in Go's network
// poller waits while the pacer runs at 6,000/s (64 workers, operations
// that do nothing): one-byte round trips over a socket pair to an echo in
// another process, as an S3 server is. "2P-held" keeps one of two Ps in a
// raw blocking system call all along, taking a place of the P-holding
// budget as an io_uring hold wait does; "1P" runs on one P. "budget" is
// the pacing sleep with sleepWithinBudget (raw only with a place free),
// "raw" the default, a sleep that always keeps its P. When every P is kept —
// held, sleeping raw, or yielding in a loop, which leaves the run queue
// never empty — nothing polls the network until sysmon does, every 10 ms.
// Each case runs 2 s of round trips; run it with -count to repeat, once
// per round to alternate (docs/transport.md, "Who polls the network").
func BenchmarkRoundTripWhilePacing(b *testing.B) {
	for _, c := range []struct {
		name  string
		procs int
		held  bool
		raw   bool
	}{
		{"2P-held/budget", 2, true, false},
		{"2P-held/raw", 2, true, true},
		{"1P/budget", 1, false, false},
		{"1P/raw", 1, false, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
			defer func(w bool) { sleepWithinBudget = w }(sleepWithinBudget)
			sleepWithinBudget = !c.raw
			conn := startEcho(b)
			if c.held {
				release := holdAP(b)
				defer release()
			}
			ctx, cancel := context.WithCancel(context.Background())
			paced := make(chan Result, 1)
			go func() {
				res, err := Run(ctx, Config{Rate: 6000, Duration: time.Hour, Workers: 64}, func(context.Context, int) error { return nil })
				if err != nil && ctx.Err() == nil {
					b.Error(err)
				}
				paced <- res
			}()
			rtt := results.NewRecorder()
			buf := make([]byte, 1)
			var trips int64
			for b.Loop() {
				for end := time.Now().Add(2 * time.Second); time.Now().Before(end); trips++ {
					t0 := time.Now()
					if _, err := conn.Write(buf); err != nil {
						b.Fatal(err)
					}
					if _, err := conn.Read(buf); err != nil {
						b.Fatal(err)
					}
					rtt.Record(time.Since(t0))
				}
			}
			cancel()
			res := <-paced
			b.ReportMetric(float64(rtt.Percentile(50))/1e3, "rtt-p50-µs")
			b.ReportMetric(float64(rtt.Percentile(99))/1e3, "rtt-p99-µs")
			b.ReportMetric(float64(trips)/float64(b.N), "trips/op")
			if res.Sched != nil {
				b.ReportMetric(float64(res.Sched.Percentile(50))/1e3, "sched-p50-µs")
				b.ReportMetric(float64(res.Sched.Percentile(99))/1e3, "sched-p99-µs")
			}
		})
	}
}

// startEcho starts the test binary as an echo over a socket pair and
// returns this process's end, polled by Go's network poller.
func startEcho(b *testing.B) net.Conn {
	b.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "echo")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), echoFDEnv+"=3")
	cmd.ExtraFiles = []*os.File{theirs}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	theirs.Close()
	ours := os.NewFile(uintptr(fds[0]), "client")
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		conn.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("echo process: %v", err)
		}
	})
	return conn
}

// holdAP keeps a P in raw blocking system calls of 200 µs one after
// another, each holding a place of the P-holding budget as an io_uring
// hold wait does (one that never returned would stall the garbage
// collector's stop of the world), until release. Refused a place, it
// waits as a refused hold wait does, letting its P go (an ordinary
// system call here, Go's poller there).
func holdAP(b *testing.B) (release func()) {
	b.Helper()
	limit := phold.Limit()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ts := unix.NsecToTimespec((200 * time.Microsecond).Nanoseconds())
		for {
			select {
			case <-stop:
				return
			default:
			}
			if !phold.TryHold(limit) {
				unix.Syscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
				continue
			}
			unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
			phold.Release()
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}
