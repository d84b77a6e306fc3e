package uring_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/uring"
)

// The benchmarks compare the tuned net/http transport with the io_uring one
// side by side: same trivial loopback server, same pool size (8), same
// requests. The server runs in this process by default; with
// KATBENCH_BENCH_EXTERNAL=1 it runs in a child process, so the client's
// system calls can be counted alone and the server does not compete for the
// client's Ps; KATBENCH_BENCH_URL=http://… uses a server started apart
// (KATBENCH_BENCH_SERVE=1 ./uring.test prints its address), which is how
// syscalls per request are counted with strace -f -c on the client only.
//
// BenchmarkInterleaved is the headline: both transports in one benchmark,
// alternating in 40 rounds, with uring/http ratios (x_ops, x_p50) and CPU
// per request. BenchmarkTransport runs each side alone (for -benchmem and
// for strace). KATBENCH_URING_WAIT=block|poll pins the uring wait mode.
//
//	go test -run '^$' -bench Interleaved -benchtime 12000x ./transport/uring/

const benchServerEnv = "KATBENCH_BENCH_SERVE"

// trivialHandler answers HEAD and GET /obj/N with N bytes of zeros and
// swallows PUT bodies.
func trivialHandler() http.Handler {
	bodies := map[int][]byte{}
	for _, n := range []int{4 << 10, 1 << 20} {
		bodies[n] = make([]byte, n)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			io.Copy(io.Discard, r.Body)
			return
		}
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/obj/"))
		b, ok := bodies[n]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(n))
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	})
}

// TestMain doubles as the external benchmark server.
func TestMain(m *testing.M) {
	if os.Getenv(benchServerEnv) == "1" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println(ln.Addr().String())
		go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }() // parent gone → exit
		http.Serve(ln, trivialHandler())
		return
	}
	os.Exit(m.Run())
}

func benchServer(b *testing.B) string {
	b.Helper()
	if url := os.Getenv("KATBENCH_BENCH_URL"); url != "" {
		return url // a server started apart, e.g. KATBENCH_BENCH_SERVE=1 ./uring.test
	}
	if os.Getenv("KATBENCH_BENCH_EXTERNAL") == "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), benchServerEnv+"=1", "GOMAXPROCS=1")
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { stdin.Close(); cmd.Wait() })
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || strings.HasPrefix(line, "ERR") {
			b.Fatalf("bench server: %q %v", line, err)
		}
		return "http://" + strings.TrimSpace(line)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: trivialHandler()}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

var benchOps = []struct {
	name   string
	method string
	size   int
}{
	{"head", http.MethodHead, 4 << 10},
	{"get4KiB", http.MethodGet, 4 << 10},
	{"get1MiB", http.MethodGet, 1 << 20},
	{"put1MiB", http.MethodPut, 1 << 20},
}

func BenchmarkTransport(b *testing.B) {
	testenv.Need(b, "io_uring", uring.Available())
	url := benchServer(b)
	const pool = 8
	rts := map[string]http.RoundTripper{}
	for _, kind := range []transport.Kind{transport.HTTP, transport.Uring} {
		rt, used, fallback, err := transport.New(kind, url, transport.Options{PoolSize: pool})
		if err != nil || used != kind {
			b.Fatalf("transport %s: used %s (%s) %v", kind, used, fallback, err)
		}
		rts[string(kind)] = rt
	}
	for _, op := range benchOps {
		for _, conc := range []int{1, 8} {
			for _, kind := range []string{"http", "uring"} {
				name := fmt.Sprintf("%s/c%d/%s", op.name, conc, kind)
				b.Run(name, func(b *testing.B) {
					runOp(b, rts[kind], op.method, fmt.Sprintf("%s/obj/%d", url, op.size), op.size, conc)
				})
			}
		}
	}
}

// runOp runs b.N requests from conc goroutines and reports ops/s, p50 and
// p99 service time, and MiB/s for GETs.
func runOp(b *testing.B, rt http.RoundTripper, method, url string, size, conc int) {
	w := newWorkload(rt, method, url, size)
	if err := w.warm(conc); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	lat, elapsed, err := w.run(b.N, conc)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	report(b, "", lat, elapsed, method, size)
}

// workload is one kind of request against one transport.
type workload struct {
	client      *http.Client
	method, url string
	size        int
}

func newWorkload(rt http.RoundTripper, method, url string, size int) *workload {
	return &workload{client: &http.Client{Transport: rt}, method: method, url: url, size: size}
}

func (w *workload) one(buf []byte) error {
	method, url, size, client := w.method, w.url, w.size, w.client
	{
		var body io.Reader
		if method == http.MethodPut {
			body = bytes.NewReader(buf[:size])
		}
		req, err := http.NewRequest(method, url, body)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		if method == http.MethodGet {
			n, err := io.ReadFull(resp.Body, buf[:size])
			if err != nil || n != size {
				resp.Body.Close()
				return fmt.Errorf("read %d of %d: %v", n, size, err)
			}
		}
		return resp.Body.Close()
	}
}

// warm fills the pool with conc connections.
func (w *workload) warm(conc int) error {
	_, _, err := w.run(conc*4, conc)
	return err
}

// run does n requests from conc goroutines and returns every latency.
func (w *workload) run(n, conc int) ([]time.Duration, time.Duration, error) {
	size, one := w.size, w.one
	lat := make([][]time.Duration, conc)
	var wg sync.WaitGroup
	per := n / conc
	if per == 0 {
		per = 1
	}
	start := time.Now()
	errs := make(chan error, conc)
	for g := 0; g < conc; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			buf := make([]byte, size)
			l := make([]time.Duration, 0, per)
			for i := 0; i < per; i++ {
				t0 := time.Now()
				if err := one(buf); err != nil {
					errs <- err
					return
				}
				l = append(l, time.Since(t0))
			}
			lat[g] = l
		}(g)
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		return nil, 0, err
	}
	return slices.Concat(lat...), elapsed, nil
}

// report sorts lat and reports ops/s, p50, p99 (and MiB/s for GETs), each
// metric name prefixed with prefix.
func report(b *testing.B, prefix string, lat []time.Duration, elapsed time.Duration, method string, size int) (opsSec, p50 float64) {
	slices.Sort(lat)
	n := len(lat)
	opsSec = float64(n) / elapsed.Seconds()
	p50 = float64(lat[n/2].Nanoseconds()) / 1e3
	b.ReportMetric(opsSec, prefix+"ops/s")
	b.ReportMetric(p50, prefix+"p50_us")
	b.ReportMetric(float64(lat[n*90/100].Nanoseconds())/1e3, prefix+"p90_us")
	b.ReportMetric(float64(lat[n*99/100].Nanoseconds())/1e3, prefix+"p99_us")
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	b.ReportMetric(float64(sum.Nanoseconds())/1e3/float64(n), prefix+"mean_us")
	if method != http.MethodHead {
		b.ReportMetric(float64(n)*float64(size)/(1<<20)/elapsed.Seconds(), prefix+"MiB/s")
	}
	return opsSec, p50
}

// BenchmarkInterleaved measures both transports in one benchmark, round by
// round (http, uring, http, uring, …) so machine drift hits both alike, and
// reports each side's numbers plus the uring/http ratios. b.N requests per
// transport.
func BenchmarkInterleaved(b *testing.B) {
	testenv.Need(b, "io_uring", uring.Available())
	url := benchServer(b)
	const pool, rounds = 8, 40
	var ws [2]*workload
	for _, op := range benchOps {
		for _, conc := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/c%d", op.name, conc), func(b *testing.B) {
				ut, err := uring.NewTransport(uring.Options{PoolSize: pool}) // KATBENCH_URING_WAIT=block|poll forces a wait mode
				if err != nil {
					b.Fatal(err)
				}
				for i, rt := range []http.RoundTripper{transport.NewHTTP(transport.Options{PoolSize: pool}), ut} {
					ws[i] = newWorkload(rt, op.method, fmt.Sprintf("%s/obj/%d", url, op.size), op.size)
					if err := ws[i].warm(conc); err != nil {
						b.Fatal(err)
					}
				}
				per := max(b.N/rounds, conc)
				var lat [2][]time.Duration
				var elapsed, cpu [2]time.Duration
				b.ResetTimer()
				for r := 0; r < rounds; r++ {
					for i := range ws {
						c0, _ := results.ProcessCPU()
						l, e, err := ws[i].run(per, conc)
						if err != nil {
							b.Fatal(err)
						}
						c1, _ := results.ProcessCPU()
						cpu[i] += c1 - c0
						lat[i] = append(lat[i], l...)
						elapsed[i] += e
					}
				}
				b.StopTimer()
				hOps, hP50 := report(b, "http_", lat[0], elapsed[0], op.method, op.size)
				uOps, uP50 := report(b, "uring_", lat[1], elapsed[1], op.method, op.size)
				// CPU per request (user+system, whole process: an in-process
				// server's share is the same on both sides) is what drift
				// and a loaded machine disturb least.
				b.ReportMetric(float64(cpu[0].Microseconds())/float64(len(lat[0])), "http_cpu_us/op")
				b.ReportMetric(float64(cpu[1].Microseconds())/float64(len(lat[1])), "uring_cpu_us/op")
				b.ReportMetric(uOps/hOps, "x_ops")
				b.ReportMetric(uP50/hP50, "x_p50")
				for i := range ws {
					ws[i].client.CloseIdleConnections()
				}
			})
		}
	}
}

// BenchmarkManyConnections compares, in one process and interleaved round
// by round, net/http, io_uring with a private ring per connection (the
// hold wait) and io_uring on shared rings (the shared wait) at 64 and 256
// connections, against a server in a child process (the trivial handler,
// GOMAXPROCS=1): ops/s, p99 and the process's CPU per request of each, and
// the ratios to net/http per round (x_*: the median of the per-round
// ratios, x_*_min and x_*_max their range).
//
//	go test -run '^$' -bench ManyConnections -benchtime 40000x ./transport/uring/
func BenchmarkManyConnections(b *testing.B) {
	testenv.Need(b, "io_uring", uring.Available())
	if os.Getenv("KATBENCH_BENCH_URL") == "" {
		b.Setenv("KATBENCH_BENCH_EXTERNAL", "1")
	}
	url := benchServer(b)
	const rounds = 10
	names := []string{"http", "hold", "shared"}
	for _, op := range benchOps[:2] { // HEAD and GET 4 KiB
		for _, conc := range []int{64, 256} {
			b.Run(fmt.Sprintf("%s/c%d", op.name, conc), func(b *testing.B) {
				rts := []http.RoundTripper{transport.NewHTTP(transport.Options{PoolSize: conc})}
				for _, w := range names[1:] {
					mode, err := uring.ParseWait(w)
					if err != nil {
						b.Fatal(err)
					}
					ut, err := uring.NewTransport(uring.Options{PoolSize: conc, Wait: mode})
					if err != nil {
						b.Fatal(err)
					}
					rts = append(rts, ut)
				}
				ws := make([]*workload, len(rts))
				for i, rt := range rts {
					ws[i] = newWorkload(rt, op.method, fmt.Sprintf("%s/obj/%d", url, op.size), op.size)
					if err := ws[i].warm(conc); err != nil {
						b.Fatal(err)
					}
				}
				per := max(b.N/rounds, conc)
				lat := make([][]time.Duration, len(ws))
				elapsed := make([]time.Duration, len(ws))
				ratios := map[string][]float64{}
				b.ResetTimer()
				for r := 0; r < rounds; r++ {
					var ops, cpu, p99 []float64
					for i := range ws {
						c0, _ := results.ProcessCPU()
						l, e, err := ws[i].run(per, conc)
						if err != nil {
							b.Fatal(err)
						}
						c1, _ := results.ProcessCPU()
						lat[i] = append(lat[i], l...)
						elapsed[i] += e
						slices.Sort(l)
						ops = append(ops, float64(len(l))/e.Seconds())
						cpu = append(cpu, float64((c1-c0).Microseconds())/float64(len(l)))
						p99 = append(p99, float64(l[len(l)*99/100]))
					}
					for i, n := range names[1:] {
						ratios[n+"_ops"] = append(ratios[n+"_ops"], ops[i+1]/ops[0])
						ratios[n+"_cpu"] = append(ratios[n+"_cpu"], cpu[i+1]/cpu[0])
						ratios[n+"_p99"] = append(ratios[n+"_p99"], p99[i+1]/p99[0])
					}
				}
				b.StopTimer()
				for i, n := range names {
					report(b, n+"_", lat[i], elapsed[i], op.method, op.size)
				}
				for k, v := range ratios {
					slices.Sort(v)
					b.ReportMetric(v[len(v)/2], "x_"+k)
					b.ReportMetric(v[0], "x_"+k+"_min")
					b.ReportMetric(v[len(v)-1], "x_"+k+"_max")
				}
				for _, rt := range rts {
					rt.(interface{ CloseIdleConnections() }).CloseIdleConnections()
				}
			})
		}
	}
}
