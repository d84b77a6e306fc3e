package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/nordisk/katbench/catalog/grpcfront"
	"github.com/nordisk/katbench/catalog/grpcfront/catalogv1"
	"github.com/nordisk/katbench/catalog/restserver"
	"github.com/nordisk/katbench/internal/testenv"
)

// peakRSS is a process's peak resident set (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

const mib = 1 << 20

// startServeGRPC starts `katbench serve grpc args…` on a free loopback port
// and returns its address and process; stopped with SIGTERM at cleanup.
func startServeGRPC(t *testing.T, args ...string) (string, *os.Process) {
	t.Helper()
	cmd := exec.Command(needKatbench(t), append([]string{"serve", "grpc", "--addr", "127.0.0.1:0", "--dir", filepath.Join(t.TempDir(), "cat")}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	re := regexp.MustCompile(`serving gRPC at (\S+)`)
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, pipe) }() // keep draining stderr
			return m[1], cmd.Process
		}
	}
	t.Fatal("katbench serve grpc announced no address")
	return "", nil
}

// concurrently runs n calls of fn at once and returns their errors.
func concurrently(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	return errs
}

// TestHostileGRPCLimits: unauthenticated calls carrying big messages are
// refused before they are read, so the server's peak RSS stays near its
// baseline; GetToken, the one call read before auth, is bounded by
// MaxTokenCalls × the receive limit.
func TestHostileGRPCLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: sends about 1 GB of probes (-short)")
	}
	addr, proc := startServeGRPC(t, "--credential", "bench:s3cret")
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64*mib)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rpc := catalogv1.NewCatalogServiceClient(conn)
	ctx := context.Background()
	if _, err := rpc.GetToken(ctx, &catalogv1.GetTokenRequest{Id: "bench", Secret: "s3cret"}); err != nil {
		t.Fatalf("warm-up GetToken: %v", err)
	}
	base := peakRSS(t, proc.Pid)

	// 16 unauthenticated commits of 24 MiB each: under the old 64 MiB
	// receive limit, over the current one, refused on their headers.
	const calls, size = 16, 24 * mib
	big := &catalogv1.CommitTableRequest{Ident: []string{"ns", "t"}, UpdatesJson: bytes.Repeat([]byte{' '}, size)}
	for i, err := range concurrently(calls, func(int) error { _, err := rpc.CommitTable(ctx, big); return err }) {
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("unauthenticated commit %d: %v, want Unauthenticated", i, err)
		}
	}
	afterCommits := peakRSS(t, proc.Pid)
	// Nothing of them is decoded: the bound is flow-control buffering of
	// one connection window (grpcfront's 64 MiB), far below calls × size.
	const commitBound = 64 * mib
	t.Logf("gRPC peak RSS: baseline %d MiB, after %d × %d MiB unauthenticated commits %d MiB (bound +%d MiB)",
		base/mib, calls, size/mib, afterCommits/mib, commitBound/mib)
	if afterCommits-base > commitBound {
		t.Errorf("peak RSS grew by %d MiB on unauthenticated commits, want ≤ %d MiB", (afterCommits-base)/mib, commitBound/mib)
	}

	// 16 GetTokens with a 15 MiB wrong secret: each is read (GetToken is
	// the pre-auth call) but at most MaxTokenCalls at once; the rest are
	// refused with ResourceExhausted.
	secret := strings.Repeat("s", 15*mib)
	for i, err := range concurrently(calls, func(int) error {
		_, err := rpc.GetToken(ctx, &catalogv1.GetTokenRequest{Id: "bench", Secret: secret})
		return err
	}) {
		if c := status.Code(err); c != codes.Unauthenticated && c != codes.ResourceExhausted {
			t.Errorf("GetToken %d with a wrong 15 MiB secret: %v, want Unauthenticated or ResourceExhausted", i, err)
		}
	}
	afterTokens := peakRSS(t, proc.Pid)
	// Each admitted GetToken holds its received frames, the message and
	// the decoded string: about 3× its size (measured: ~45 MiB for 15 MiB).
	tokenBound := int64(grpcfront.MaxTokenCalls*3*grpcfront.DefaultMaxRecvBytes) + 64*mib
	t.Logf("gRPC peak RSS after %d × 15 MiB GetTokens: %d MiB (bound baseline +%d MiB)", calls, afterTokens/mib, tokenBound/mib)
	if afterTokens-base > tokenBound {
		t.Errorf("peak RSS grew by %d MiB on big GetTokens, want ≤ %d MiB", (afterTokens-base)/mib, tokenBound/mib)
	}
}

// TestHostileRESTLimits: bodies without a token are refused unread, big
// token requests are refused on their Content-Length, and authenticated
// big commits are admitted a budget's worth at a time, so the server's
// peak RSS is bounded by the in-flight budget, not by the bodies sent.
func TestHostileRESTLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: sends about 1 GB of probes (-short)")
	}
	cmd := exec.Command(needKatbench(t), "serve", "rest", "--addr", "127.0.0.1:0", "--dir", filepath.Join(t.TempDir(), "cat"),
		"--credential", "bench:s3cret")
	base, stop := testenv.ServeRest(t, cmd)
	defer func() {
		if log, err := stop(); err != nil {
			t.Errorf("serve rest: %v\n%s", err, log)
		}
	}()
	pid := cmd.Process.Pid
	client := &http.Client{Timeout: 2 * time.Minute}
	post := func(path, tok, ctype string, body []byte) (int, error) {
		req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", ctype)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"bench"}, "client_secret": {"s3cret"}}.Encode()
	tok := mintToken(t, client, base, form)
	baseline := peakRSS(t, pid)

	const calls, size = 32, 12 * mib
	commit := []byte(`{"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"` + strings.Repeat("x", size) + `"}}]}`)
	tokenBody := []byte(form + "&scope=" + strings.Repeat("x", size))
	probes := []struct {
		name       string
		path, tok  string
		ctype      string
		body       []byte
		refusals   []int
		boundBytes int64 // peak RSS growth allowed over the baseline
	}{
		{"unauthenticated commits", "/v1/namespaces/ns/tables/t", "", "application/json", commit, []int{401}, 64 * mib},
		{"big token requests", "/v1/oauth/tokens", "", "application/x-www-form-urlencoded", tokenBody, []int{413}, 64 * mib},
		// Admitted a budget at a time; each costs a few times its size to
		// decode (body, the string, the update) before the 404.
		{"authenticated big commits", "/v1/namespaces/ns/tables/t", tok, "application/json", commit, []int{404, 503},
			6*restserver.DefaultMaxInflightBodyBytes + 64*mib},
	}
	for _, p := range probes {
		for i, err := range concurrently(calls, func(int) error {
			code, err := post(p.path, p.tok, p.ctype, p.body)
			if err != nil {
				return err
			}
			for _, want := range p.refusals {
				if code == want {
					return nil
				}
			}
			return fmt.Errorf("status %d, want one of %v", code, p.refusals)
		}) {
			if err != nil {
				t.Errorf("%s %d: %v", p.name, i, err)
			}
		}
		peak := peakRSS(t, pid)
		t.Logf("REST peak RSS: baseline %d MiB, after %d × %d MiB %s %d MiB (bound +%d MiB)",
			baseline/mib, calls, size/mib, p.name, peak/mib, p.boundBytes/mib)
		if peak-baseline > p.boundBytes {
			t.Errorf("%s: peak RSS grew by %d MiB, want ≤ %d MiB", p.name, (peak-baseline)/mib, p.boundBytes/mib)
		}
	}
}

// mintToken gets a bearer token from the REST front's token endpoint.
func mintToken(t *testing.T, client *http.Client, base, form string) string {
	t.Helper()
	resp, err := client.Post(base+"/v1/oauth/tokens", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.AccessToken == "" {
		t.Fatalf("token: %d %v", resp.StatusCode, err)
	}
	return out.AccessToken
}
