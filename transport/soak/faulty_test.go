package soak_test

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// fault is what the faulty server does to one operation's first attempt.
type fault int

const (
	faultNone    fault = iota
	faultSlow          // answers after 20–150 ms
	faultReset         // sends the headers and half the body, then a TCP RST
	faultStall         // sends the headers and half the body, then stalls past the deadline
	fault503           // 503 SlowDown with Retry-After
	faultRestart       // the server restarts (all connections dropped) before the op
	numFaults
)

func (f fault) String() string {
	return [...]string{"none", "slow", "reset", "stall", "503", "restart"}[f]
}

// opHeader carries the operation number to the faulty server: a custom
// header on GET/HEAD, user metadata on PUT.
const (
	opHeader     = "X-Soak-Op"
	opMetaHeader = "X-Amz-Meta-Soak-Op"
)

// faultyServer is an S3 store (the in-process control store) behind a real
// net/http server that injects faults: idle keep-alive connections are
// closed after a random 10–500 ms, and each operation's first attempt
// suffers the fault the schedule gives it. Retries of that operation are
// served normally, so a client that retries well recovers.
//
// Safe for concurrent use.
type faultyServer struct {
	backend  http.Handler
	schedule func(op int) fault
	stall    time.Duration

	mu      sync.Mutex
	addr    string
	srv     *http.Server
	conns   map[net.Conn]uint64 // generation of each conn's last state change
	seen    map[int]bool        // ops whose first attempt was served
	rng     *rand.Rand
	stopped chan struct{}
	wg      sync.WaitGroup
}

func newFaultyServer(backend http.Handler, seed uint64, schedule func(int) fault, stall time.Duration) (*faultyServer, error) {
	s := &faultyServer{backend: backend, schedule: schedule, stall: stall,
		conns: map[net.Conn]uint64{}, seen: map[int]bool{},
		rng: rand.New(rand.NewPCG(seed, 7)), stopped: make(chan struct{})}
	if err := s.start("127.0.0.1:0"); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *faultyServer) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "http://" + s.addr
}

func (s *faultyServer) start(addr string) error {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the old socket may linger a moment on restart
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("faulty server: listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve), ConnState: s.connState}
	s.mu.Lock()
	s.addr, s.srv = ln.Addr().String(), srv
	s.mu.Unlock()
	s.wg.Add(1)
	go func() { defer s.wg.Done(); srv.Serve(ln) }()
	return nil
}

// restart drops every connection and listens again on the same address.
func (s *faultyServer) restart() error {
	s.mu.Lock()
	srv, addr := s.srv, s.addr
	s.mu.Unlock()
	srv.Close()
	return s.start(addr)
}

// Close stops the server and ends every stall.
func (s *faultyServer) Close() {
	close(s.stopped)
	s.mu.Lock()
	srv := s.srv
	s.mu.Unlock()
	srv.Close()
	s.wg.Wait()
}

// connState closes a keep-alive connection that stays idle for a random
// 10–500 ms, as S3 servers close idle connections on their own schedule.
func (s *faultyServer) connState(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(s.conns, c)
		return
	}
	gen := s.conns[c] + 1
	s.conns[c] = gen
	if st != http.StateIdle {
		return
	}
	d := time.Duration(10+s.rng.IntN(491)) * time.Millisecond
	time.AfterFunc(d, func() {
		s.mu.Lock()
		still := s.conns[c] == gen
		s.mu.Unlock()
		if still {
			c.Close()
		}
	})
}

func (s *faultyServer) serve(w http.ResponseWriter, r *http.Request) {
	f := faultNone
	v := r.Header.Get(opHeader)
	if v == "" {
		v = r.Header.Get(opMetaHeader)
	}
	if op, err := strconv.Atoi(v); err == nil {
		s.mu.Lock()
		if !s.seen[op] {
			s.seen[op] = true
			f = s.schedule(op)
		}
		s.mu.Unlock()
	}
	switch f {
	case faultSlow:
		s.mu.Lock()
		d := time.Duration(20+s.rng.IntN(131)) * time.Millisecond
		s.mu.Unlock()
		time.Sleep(d)
	case fault503:
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusServiceUnavailable)
		if r.Method != http.MethodHead {
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><Resource>%s</Resource><RequestId>soak</RequestId></Error>`, r.URL.Path)
		}
		return
	case faultReset, faultStall:
		s.broken(w, r, f)
		return
	}
	s.backend.ServeHTTP(w, r)
}

// broken serves r into a buffer, then writes the status line, the headers
// and half the body on the raw connection, and then either resets it or
// stalls until s.stall passes (or the server stops).
func (s *faultyServer) broken(w http.ResponseWriter, r *http.Request, f fault) {
	rec := httptest.NewRecorder()
	s.backend.ServeHTTP(rec, r)
	conn, bw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	res := rec.Result()
	body := rec.Body.Bytes()
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", res.StatusCode, http.StatusText(res.StatusCode))
	if res.Header.Get("Content-Length") == "" && r.Method != http.MethodHead {
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	res.Header.Write(bw)
	bw.WriteString("\r\n")
	if r.Method != http.MethodHead {
		bw.Write(body[:len(body)/2])
	}
	bw.Flush()
	if f == faultReset {
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // close sends RST
		}
		return
	}
	select {
	case <-time.After(s.stall):
	case <-s.stopped:
	}
}
