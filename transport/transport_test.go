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
		// A command's default comes from EnvKind (DefaultKind); the
		// package itself never reads the environment.
		got, err := ParseKind(DefaultKind(tc.in, func(string) string { return tc.env }))
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

	rt, used, fallback, err := New(Uring, srv.URL, Options{Settings: Settings{"uring.force-fail": "1"}})
	check("forced", rt, used, fallback, err, "forced")
	if got := get(t, rt, srv.URL); got != "ok HTTP/1.1" {
		t.Fatalf("fallback transport answered %q", got)
	}

	env, err := EnvSettings(func(k string) (string, bool) { return "1", k == uring.ForceFailEnv })
	if err != nil {
		t.Fatal(err)
	}
	rt, used, fallback, err = New(Uring, srv.URL, Options{Settings: env})
	check("env", rt, used, fallback, err, uring.ForceFailEnv)

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
	if _, _, _, err := New(Uring, "http://127.0.0.1:1", Options{Settings: Settings{"uring.wait": "hodl"}}); !errors.Is(err, ErrBadSetting) {
		t.Errorf("New(uring, wait hodl): err = %v, want ErrBadSetting", err)
	}
	if err := (Settings{"quic.x": "1"}).Check(); !errors.Is(err, ErrBadSetting) {
		t.Errorf("Check(quic.x): err = %v, want ErrBadSetting", err)
	}
	if _, err := EnvSettings(func(k string) (string, bool) { return "hodl", k == uring.WaitEnv }); err == nil || !strings.Contains(err.Error(), uring.WaitEnv) {
		t.Errorf("EnvSettings with a bad wait mode: %v, want an error naming %s", err, uring.WaitEnv)
	}
}
