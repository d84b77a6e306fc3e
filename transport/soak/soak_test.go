// Package soak_test drives minio-go over both byte transports (net/http and
// io_uring) through the same fault schedule — against in-process faulty
// servers and a real versitygw — and checks the same things of both: every
// operation either returns the right bytes or a clear error, nothing hangs
// past its deadline, no descriptor or goroutine leaks, and io_uring fails
// no more often than net/http.
//
// The budget is short under `go test` (KATBENCH_SOAK unset: about 20 s per
// store); set KATBENCH_SOAK to a duration for a longer soak, e.g.
//
//	KATBENCH_SOAK=10m go test -race -timeout 30m -run Soak -v ./transport/soak/
package soak_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
	"github.com/nordisk/katbench/transport/uring"
)

// budgetEnv names the environment variable holding the soak's duration.
const budgetEnv = "KATBENCH_SOAK"

// opDeadline bounds every operation (minio-go's retries included); a stall
// lasts longer, so a stalled operation must end with this deadline.
const (
	opDeadline = 2 * time.Second
	stallFor   = 4 * time.Second
	// hangGrace is how late past its deadline an operation may return
	// before it counts as a hang (scheduling on a busy 2-core machine).
	hangGrace = 2 * time.Second
)

func budget(t *testing.T, short time.Duration) time.Duration {
	v := os.Getenv(budgetEnv)
	if v == "" {
		return short
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", budgetEnv, v, err)
	}
	return d
}

type opKind int

const (
	opPut opKind = iota
	opGet
	opRangedGet
	opHead
)

func (k opKind) String() string { return [...]string{"PUT", "GET", "ranged GET", "HEAD"}[k] }

// plan is one operation, identical for both transports.
type plan struct {
	n     int
	kind  opKind
	size  int   // PUT
	pick  int   // GET/HEAD: which stored object (index modulo the count)
	rfrom int64 // ranged GET, as fractions of the object, resolved at run time
	rlen  int64
	pause time.Duration // idle time before the op, so idle closes hit pooled conns
}

// randomSize returns 0 B – 8 MiB, most often small.
func randomSize(r *rand.Rand) int {
	switch r.IntN(10) {
	case 0:
		return 0
	case 1, 2, 3:
		return r.IntN(4 << 10)
	case 4, 5, 6:
		return r.IntN(256 << 10)
	case 7, 8:
		return r.IntN(2 << 20)
	default:
		return r.IntN(8<<20 + 1)
	}
}

func makePlan(r *rand.Rand, n int) plan {
	p := plan{n: n, kind: opKind(r.IntN(4)), pick: r.IntN(1 << 30)}
	if n < 3 {
		p.kind = opPut // something to read
	}
	p.size = randomSize(r)
	p.rfrom, p.rlen = r.Int64N(1<<20), r.Int64N(1<<20)+1
	if r.IntN(4) == 0 {
		p.pause = time.Duration(5+r.IntN(300)) * time.Millisecond
	}
	return p
}

// content is the deterministic body of object n.
func content(n, size int) []byte {
	b := make([]byte, size)
	x := uint32(n)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// lane is one way of moving the soak's bytes: a transport, and for
// io_uring the wait mode forced through uring.WaitEnv ("" for the
// default).
type lane struct {
	name string
	kind transport.Kind
	wait string
}

// soakLanes are the transports every soak runs, interleaved op by op:
// net/http, io_uring in its default wait, and io_uring on shared rings
// (the shared wait, built for many connections).
var soakLanes = []lane{
	{"http", transport.HTTP, ""},
	{"uring", transport.Uring, ""},
	{"uring-shared", transport.Uring, "shared"},
}

// runner runs plans against one store through one transport and counts.
type runner struct {
	name     string // the lane's name
	lane     lane
	endpoint string
	client   *minio.Client
	info     s3.Info
	bucket   string
	keys     []string // objects stored successfully, in order
	sizes    map[string]int
	data     map[string]int // key → op number whose content it holds
	errs     int
	ops      int
	byKind   map[string]int // error count by op kind and fault
}

func newRunner(t *testing.T, l lane, endpoint, access, secret, bucket string) *runner {
	t.Helper()
	var settings transport.Settings
	if l.wait != "" {
		settings = transport.Settings{"uring.wait": l.wait} // this lane only
	}
	c, info, err := s3.NewClient(s3.Config{Endpoint: endpoint, AccessKey: access, SecretKey: secret,
		Bucket: bucket, Transport: l.kind, PoolSize: 4, MaxRetries: 3, TransportSettings: settings})
	if err != nil {
		t.Fatal(err)
	}
	if info.Used != l.kind {
		testenv.Need(t, "the "+l.name+" transport", errors.New(info.Fallback))
	}
	return &runner{name: l.name, lane: l, endpoint: endpoint, client: c, info: info, bucket: bucket,
		sizes: map[string]int{}, data: map[string]int{}, byKind: map[string]int{}}
}

// do runs p. A wrong byte fails the test at once; an error is counted; an
// operation that outlives its deadline by more than hangGrace fails the
// test as a hang.
func (r *runner) do(t *testing.T, p plan, label string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opDeadline)
	defer cancel()
	start := time.Now()
	err := r.op(ctx, p)
	if late := time.Since(start) - opDeadline; late > hangGrace {
		t.Fatalf("%s: op %d (%s, %s) returned %v past its deadline (err %v)", r.name, p.n, p.kind, label, late, err)
	}
	r.ops++
	if err != nil {
		var wrong *wrongBytes
		if errors.As(err, &wrong) {
			t.Fatalf("%s: op %d (%s, %s): %v", r.name, p.n, p.kind, label, err)
		}
		r.errs++
		r.byKind[p.kind.String()+"/"+label]++
		if testing.Verbose() {
			t.Logf("%s: op %d (%s, %s) after %v: %v", r.name, p.n, p.kind, label, time.Since(start).Round(time.Millisecond), err)
		}
	}
}

// lockedReader serialises Read and Seek. net/http may still be copying a
// failed request's body on its write goroutine when RoundTrip has returned,
// while minio-go already seeks the same reader back for its retry (a race
// between the two libraries, reported by -race); the lock keeps the soak
// about the transports. The stale copy only feeds a dead connection.
type lockedReader struct {
	mu sync.Mutex
	r  *bytes.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

func (l *lockedReader) Seek(off int64, whence int) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Seek(off, whence)
}

type wrongBytes struct{ what string }

func (w *wrongBytes) Error() string { return "wrong bytes: " + w.what }

func (r *runner) op(ctx context.Context, p plan) error {
	tag := strconv.Itoa(p.n)
	if p.kind == opPut || len(r.keys) == 0 {
		key := "o/" + tag
		data := content(p.n, p.size)
		_, err := r.client.PutObject(ctx, r.bucket, key, &lockedReader{r: bytes.NewReader(data)}, int64(len(data)),
			minio.PutObjectOptions{UserMetadata: map[string]string{"Soak-Op": tag}, DisableContentSha256: true})
		if err != nil {
			return err
		}
		r.keys = append(r.keys, key)
		r.sizes[key], r.data[key] = len(data), p.n
		return nil
	}
	key := r.keys[p.pick%len(r.keys)]
	size := r.sizes[key]
	opts := minio.GetObjectOptions{}
	opts.Set(opHeader, tag)
	switch p.kind {
	case opHead:
		st, err := r.client.StatObject(ctx, r.bucket, key, opts)
		if err != nil {
			return err
		}
		if st.Size != int64(size) {
			return &wrongBytes{fmt.Sprintf("HEAD %s: size %d, want %d", key, st.Size, size)}
		}
		return nil
	}
	want := content(r.data[key], size)
	if p.kind == opRangedGet && size > 0 {
		from := p.rfrom % int64(size)
		to := min(from+p.rlen, int64(size)) - 1
		if err := opts.SetRange(from, to); err != nil {
			return err
		}
		want = want[from : to+1]
	}
	obj, err := r.client.GetObject(ctx, r.bucket, key, opts)
	if err != nil {
		return err
	}
	defer obj.Close()
	got, err := io.ReadAll(obj)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return &wrongBytes{fmt.Sprintf("%s %s: %d bytes differ from the %d stored", p.kind, key, len(got), len(want))}
	}
	return nil
}

// leakCheck records descriptors and goroutines; its returned func fails the
// test if either grew once everything was closed. closeIdle runs before
// every look: minio-go's Object.Close hands the response body to the
// object's own goroutine, which may give a connection back to the pool
// after the first CloseIdleConnections.
func leakCheck(t *testing.T) func(closeIdle func()) {
	t.Helper()
	fds0, g0 := openFDs(t), runtime.NumGoroutine()
	return func(closeIdle func()) {
		t.Helper()
		var fds, g int
		for i := 0; i < 300; i++ { // background closes finish asynchronously
			closeIdle()
			fds, g = openFDs(t), runtime.NumGoroutine()
			if fds <= fds0 && g <= g0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Errorf("leak: open fds %d → %d, goroutines %d → %d", fds0, fds, g0, g)
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestSoakFaultyServers: the same operations and fault schedule through
// net/http and io_uring, each against its own faulty server, interleaved op
// by op so both see the same machine.
func TestSoakFaultyServers(t *testing.T) {
	testenv.Need(t, "io_uring", uring.Available())
	d := budget(t, 20*time.Second)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("KATBENCH_SOAK_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (KATBENCH_SOAK_SEED=%d reproduces the schedule), budget %v", seed, seed, d)
	// The schedule is a pure function of (seed, op), so the servers and
	// the loop read it without sharing state.
	schedule := func(op int) fault {
		if op < 3 {
			return faultNone
		}
		r := rand.New(rand.NewPCG(seed, uint64(op)))
		if r.IntN(4) != 0 {
			return faultNone
		}
		return fault(1 + r.IntN(int(numFaults)-1))
	}

	runners := make([]*runner, len(soakLanes))
	servers := make([]*faultyServer, len(soakLanes))
	checks := make([]func(func()), len(soakLanes))
	var ctls []*s3.Control
	for i, l := range soakLanes {
		checks[i] = leakCheck(t)
		ctl, err := s3.StartControl()
		if err != nil {
			t.Fatal(err)
		}
		srv, err := newFaultyServer(ctl, seed, schedule, stallFor)
		if err != nil {
			t.Fatal(err)
		}
		servers[i] = srv
		r := newRunner(t, l, srv.URL(), "soak", "soaksecret", "soak")
		if err := r.client.MakeBucket(context.Background(), "soak", minio.MakeBucketOptions{}); err != nil {
			t.Fatalf("%s: make bucket: %v", l.name, err)
		}
		runners[i] = r
		t.Cleanup(func() { ctl.Close() })
		ctls = append(ctls, ctl)
	}

	pr := rand.New(rand.NewPCG(seed, 2))
	deadline := time.Now().Add(d)
	n := 0
	for ; time.Now().Before(deadline); n++ {
		p := makePlan(pr, n)
		f := schedule(n)
		for i, r := range runners {
			if f == faultRestart {
				if err := servers[i].restart(); err != nil {
					t.Fatal(err)
				}
			}
			if p.pause > 0 {
				time.Sleep(p.pause)
			}
			r.do(t, p, f.String())
		}
	}
	for i, r := range runners {
		r.checkWait(t)
		r.info.CloseIdle()
		servers[i].Close()
		t.Logf("%s: %d ops, %d errors %v", r.name, r.ops, r.errs, r.byKind)
	}
	for _, c := range ctls {
		c.Close()
	}
	closeAll := func() {
		for _, r := range runners {
			r.info.CloseIdle()
		}
	}
	for _, check := range checks {
		check(closeAll)
	}
	h := runners[0]
	for _, u := range runners[1:] {
		if u.errs > h.errs {
			t.Errorf("%s failed %d of %d operations, net/http %d under the same fault schedule", u.name, u.errs, u.ops, h.errs)
		}
	}
}

// checkWait fails the test if a lane that forced a wait mode did not run
// in it.
func (r *runner) checkWait(t *testing.T) {
	t.Helper()
	if r.lane.wait == "" {
		return
	}
	if w, _ := r.info.Facts(strings.TrimPrefix(r.endpoint, "http://"))["uring_wait"].(string); w != r.lane.wait {
		t.Errorf("%s: ran in wait %q, want %q", r.name, w, r.lane.wait)
	}
}

// TestSoakVersitygw: the same random operations, with idle pauses between
// some of them, against a real versitygw through both transports.
func TestSoakVersitygw(t *testing.T) {
	testenv.Need(t, "io_uring", uring.Available())
	env := testenv.Versitygw(t)
	d := budget(t, 15*time.Second)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, budget %v", seed, d)
	runners := make([]*runner, len(soakLanes))
	check := leakCheck(t)
	for i, l := range soakLanes {
		bucket := "soak-" + l.name
		r := newRunner(t, l, env.Endpoint, env.AccessKey, env.SecretKey, bucket)
		if err := r.client.MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatalf("%s: make bucket: %v", l.name, err)
		}
		runners[i] = r
	}
	pr := rand.New(rand.NewPCG(seed, 2))
	deadline := time.Now().Add(d)
	for n := 0; time.Now().Before(deadline); n++ {
		p := makePlan(pr, n)
		for _, r := range runners {
			if p.pause > 0 {
				time.Sleep(p.pause)
			}
			r.do(t, p, "versitygw")
		}
	}
	for _, r := range runners {
		r.checkWait(t)
		r.info.CloseIdle()
		t.Logf("%s: %d ops, %d errors %v", r.name, r.ops, r.errs, r.byKind)
		if r.errs > 0 {
			t.Errorf("%s: %d of %d operations failed against a healthy versitygw", r.name, r.errs, r.ops)
		}
	}
	check(func() {
		for _, r := range runners {
			r.info.CloseIdle()
		}
	})
}
