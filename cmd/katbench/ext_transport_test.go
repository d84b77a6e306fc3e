package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nordisk/katbench/transport"
)

// A transport in one file: net/http's, counting the requests it carries
// and saying so on every line (transport.Describer), with one setting
// read from the environment and checked.

const (
	extTransportName transport.Kind = "counted"
	extTransportEnv                 = "KATBENCH_COUNTED_TAG"
)

func init() {
	transport.Register(transport.Plugin{
		Name:  extTransportName,
		Doc:   "net/http's transport, counting its requests (a test extension)",
		Order: 90,
		Env:   map[string]string{"tag": extTransportEnv},
		Check: func(settings map[string]string) error {
			if tag := settings["tag"]; strings.Trim(tag, "abcdefghijklmnopqrstuvwxyz") != "" {
				return fmt.Errorf("tag %q: want lower-case letters", tag)
			}
			return nil
		},
		New: func(_ *url.URL, opts transport.Options) (http.RoundTripper, error) {
			return &countedTransport{next: transport.NewHTTP(opts), tag: opts.Settings.For(extTransportName)["tag"]}, nil
		},
	})
}

// countedTransport is safe for concurrent use, as its next is.
type countedTransport struct {
	next     http.RoundTripper
	tag      string
	requests atomic.Int64
}

func (c *countedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	return c.next.RoundTrip(r)
}

// Describe puts the requests so far and the tag on the lines.
func (c *countedTransport) Describe(string) map[string]any {
	return map[string]any{"counted_requests": c.requests.Load(), "counted_tag": c.tag}
}

func TestExtTransport(t *testing.T) {
	stdout, stderr, code := katbenchExt(t, t.TempDir(), []string{extTransportEnv + "=blue"},
		"transport", "--quick", "--s3-ops", "head", "--concurrency", "1", "--transports", "http,"+string(extTransportName), "--history", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	targets := map[any]bool{}
	for _, l := range jsonLines(t, stdout) {
		if l["scenario"] != "s3.head.c1" {
			continue
		}
		targets[l["target"]] = true
		wantMeasured(t, l)
		params, _ := l["params"].(map[string]any)
		if l["target"] == string(extTransportName) {
			if n, _ := params["counted_requests"].(float64); n < l["ops"].(float64) || params["counted_tag"] != "blue" {
				t.Errorf("counted line: counted_requests %v for %v ops, counted_tag %v; want at least the ops, and blue", params["counted_requests"], l["ops"], params["counted_tag"])
			}
			if l["transport_fallback"] != nil {
				t.Errorf("counted line fell back: %v", l["transport_fallback"])
			}
		} else if params["counted_requests"] != nil {
			t.Errorf("%v line carries counted_requests", l["target"])
		}
	}
	if !targets["http"] || !targets[string(extTransportName)] || len(targets) != 2 {
		t.Errorf("s3.head.c1 lines for %v, want http and %s", targets, extTransportName)
	}

	t.Run("bad setting", func(t *testing.T) {
		wantExtUsageError(t, []string{extTransportEnv + "=Blue!"}, []string{"transport", "--quick"}, extTransportEnv, "lower-case letters")
	})
	t.Run("misspelt", func(t *testing.T) {
		wantExtUsageError(t, nil, []string{"transport", "--quick", "--transports", "countd"}, "countd", string(extTransportName))
	})
}
