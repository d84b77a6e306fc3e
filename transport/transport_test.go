package transport

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nordisk/katbench/internal/testenv"
	"github.com/nordisk/katbench/transport/uring"
)

func TestParseKind(t *testing.T) {
	cases := []struct {
		in, env string
		want    Kind
		wantErr bool
	}{
		{"http", "", HTTP, false},
		{"uring", "", Uring, false},
		{" URING ", "", Uring, false},
		{"", "", HTTP, false},
		{"", "uring", Uring, false},
		{"http", "uring", HTTP, false},
		{"", "quic", "", true},
		{"tcp", "", "", true},
	}
	for _, tc := range cases {
		t.Setenv(EnvKind, tc.env)
		got, err := ParseKind(tc.in)
		if tc.wantErr {
			if !errors.Is(err, ErrUnknownKind) {
				t.Errorf("ParseKind(%q) env %q: err = %v, want ErrUnknownKind", tc.in, tc.env, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseKind(%q) env %q = %q, %v; want %q", tc.in, tc.env, got, err, tc.want)
		}
	}
}

func TestNewHTTPTuning(t *testing.T) {
	tr := NewHTTP(Options{PoolSize: 5})
	if tr.MaxIdleConnsPerHost != 5 || tr.MaxConnsPerHost != 5 || tr.MaxIdleConns != 5 {
		t.Fatalf("pool sizes %d/%d/%d, want 5", tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost, tr.MaxIdleConns)
	}
	if tr.ForceAttemptHTTP2 || tr.TLSNextProto == nil || len(tr.TLSNextProto) != 0 || !tr.DisableCompression || tr.DisableKeepAlives {
		t.Fatal("net/http transport not tuned: want HTTP/1.1 only, no compression, keep-alive")
	}
	if NewHTTP(Options{}).MaxConnsPerHost != DefaultPoolSize {
		t.Fatal("default pool size not applied")
	}
}

func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok "+r.Proto)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, rt http.RoundTripper, url string) string {
	t.Helper()
	resp, err := (&http.Client{Transport: rt}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewUring(t *testing.T) {
	testenv.Need(t, "io_uring", uring.Available())
	srv := echoServer(t)
	rt, used, fallback, err := New(Uring, srv.URL, Options{PoolSize: 2})
	if err != nil || used != Uring || fallback != "" {
		t.Fatalf("New(uring) = %T, %q, %q, %v", rt, used, fallback, err)
	}
	if _, ok := rt.(*uring.Transport); !ok {
		t.Fatalf("uring RoundTripper is %T", rt)
	}
	if got := get(t, rt, srv.URL); got != "ok HTTP/1.1" {
		t.Fatalf("body %q", got)
	}
}

func TestNewFallbacks(t *testing.T) {
	srv := echoServer(t)
	check := func(name string, rt http.RoundTripper, used Kind, fallback string, err error, want string) {
		t.Helper()
		if err != nil || used != HTTP || !strings.HasPrefix(fallback, "uring: ") || !strings.Contains(fallback, want) {
			t.Fatalf("%s: used %q fallback %q err %v; want http with a reason mentioning %q", name, used, fallback, err, want)
		}
		if _, ok := rt.(*http.Transport); !ok {
			t.Fatalf("%s: fallback RoundTripper is %T", name, rt)
		}
	}

	uring.ForceFail = true
	rt, used, fallback, err := New(Uring, srv.URL, Options{})
	uring.ForceFail = false
	check("forced", rt, used, fallback, err, "forced")
	if got := get(t, rt, srv.URL); got != "ok HTTP/1.1" {
		t.Fatalf("fallback transport answered %q", got)
	}

	t.Setenv(uring.ForceFailEnv, "1")
	rt, used, fallback, err = New(Uring, srv.URL, Options{})
	check("env", rt, used, fallback, err, uring.ForceFailEnv)
	t.Setenv(uring.ForceFailEnv, "")

	rt, used, fallback, err = New(Uring, "https://127.0.0.1:9", Options{})
	check("https", rt, used, fallback, err, "https")

	rt, used, fallback, err = New(HTTP, srv.URL, Options{})
	if err != nil || used != HTTP || fallback != "" || rt == nil {
		t.Fatalf("New(http): %q %q %v", used, fallback, err)
	}
}

func TestNewBadInput(t *testing.T) {
	for _, ep := range []string{"", "127.0.0.1:9000", "ftp://x", "http://", "::"} {
		if _, _, _, err := New(HTTP, ep, Options{}); !errors.Is(err, ErrBadEndpoint) {
			t.Errorf("New(http, %q): err = %v, want ErrBadEndpoint", ep, err)
		}
	}
	if _, _, _, err := New("quic", "http://127.0.0.1:1", Options{}); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("New(quic): err = %v, want ErrUnknownKind", err)
	}
}
