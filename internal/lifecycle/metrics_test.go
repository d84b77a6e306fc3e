package lifecycle

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServeMetrics: a malformed address is the user's input; a good one
// serves the handler at /metrics and says where.
func TestServeMetrics(t *testing.T) {
	if _, err := ServeMetrics("no-port", http.NotFoundHandler(), io.Discard); !errors.Is(err, ErrSettings) {
		t.Fatalf("ServeMetrics(no-port) = %v, want ErrSettings", err)
	}
	var log bytes.Buffer
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "katbench_operations_total 3\n") })
	stop, err := ServeMetrics("127.0.0.1:0", h, &log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	url := strings.TrimSpace(strings.TrimPrefix(log.String(), "katbench: serving metrics at "))
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s (log %q): %v", url, log.String(), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(body) != "katbench_operations_total 3\n" {
		t.Fatalf("GET %s: %d %q", url, resp.StatusCode, body)
	}
}
