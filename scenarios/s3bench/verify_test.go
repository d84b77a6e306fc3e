package s3bench_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios/s3bench"
	"github.com/nordisk/katbench/transport"
)

// corruptingProxy forwards to the control server and flips the first byte
// of the body of every GET of a test object for which corrupt(n) is true,
// n counting those GETs from 1. The length stays right, so only a byte
// comparison can notice: a fault no real store here produces on demand.
func corruptingProxy(t *testing.T, target string, corrupt func(n int64) bool) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var gets atomic.Int64
	p := httputil.NewSingleHostReverseProxy(u)
	p.ModifyResponse = func(resp *http.Response) error {
		r := resp.Request
		if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/obj-") || resp.StatusCode != http.StatusOK {
			return nil
		}
		if !corrupt(gets.Add(1)) {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if len(b) > 0 {
			b[0] ^= 0xff
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		return nil
	}
	s := httptest.NewServer(p)
	t.Cleanup(s.Close)
	return s.URL
}

// getOnly is one GET cell on net/http: 2 warm-up GETs, then 16 measured in
// 2 rounds on one worker.
func getOnly(endpoint string) s3bench.Config {
	cfg := tiny(endpoint, "proxy", "k", "s")
	cfg.Ops = []s3bench.Op{s3bench.Get}
	cfg.Sizes = []int64{1 << 10}
	cfg.Concurrency = []int{1}
	cfg.Transports = []transport.Kind{"http"}
	cfg.Iterations = 16
	cfg.Warmup = 2
	return cfg
}

// TestWarmupErrorsAreCounted: failures in the unrecorded warm-up are on the
// line as warmup_errors, with the reason, and do not vanish.
func TestWarmupErrorsAreCounted(t *testing.T) {
	ctl := startControl(t)
	cfg := getOnly(corruptingProxy(t, ctl.URL(), func(n int64) bool { return n <= 2 }))
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatal(err)
	}
	r := got.Records[0]
	if r.WarmupErrors == nil || *r.WarmupErrors != 2 || r.Errors != 0 || r.Ops != 16 {
		t.Fatalf("warmup_errors %v errors %d ops %d, want 2, 0, 16", r.WarmupErrors, r.Errors, r.Ops)
	}
	if !strings.Contains(r.FirstError, "warm-up") || !strings.Contains(r.FirstError, "differs") {
		t.Errorf("first_error = %q, want the warm-up's byte mismatch", r.FirstError)
	}
	if !r.Failed() {
		t.Error("a line with warm-up errors does not count as failed")
	}
}

// TestMeasuredGetsAreVerified: a store that corrupts bytes after the
// warm-up is caught in the measured rounds (every VerifyEvery-th GET of a
// worker), and each mismatch is an error, not a sample.
func TestMeasuredGetsAreVerified(t *testing.T) {
	ctl := startControl(t)
	cfg := getOnly(corruptingProxy(t, ctl.URL(), func(n int64) bool { return n > 2 }))
	var got results.Collector
	if err := s3bench.Run(context.Background(), cfg, &got); err != nil {
		t.Fatal(err)
	}
	r := got.Records[0]
	// 2 rounds of 8 GETs on one worker: ops 0 and 8 … counted per round,
	// so the first GET of each round is verified.
	if r.Errors < 2 || r.Errors+r.Ops != 16 || !strings.Contains(r.FirstError, "differs") {
		t.Fatalf("errors %d ops %d first_error %q; want ≥ 2 byte mismatches counted as errors", r.Errors, r.Ops, r.FirstError)
	}
	if r.Params["verify"] == nil || r.WarmupErrors == nil || *r.WarmupErrors != 0 {
		t.Errorf("params.verify %v, warmup_errors %v", r.Params["verify"], r.WarmupErrors)
	}
	if len(r.RoundP50US) != 2 || len(r.RoundOpsSec) != 2 || r.Rounds != 2 {
		t.Errorf("rounds %d, round_p50_us %v, round_ops_sec %v; want 2 of each", r.Rounds, r.RoundP50US, r.RoundOpsSec)
	}
}
