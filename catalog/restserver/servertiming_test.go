package restserver

import (
	"net/http"
	"strings"
	"testing"
)

// TestServerTimingOnEveryAnswer: a success, an error and a refused method
// each carry the server's own time, in the W3C Server-Timing form.
func TestServerTimingOnEveryAnswer(t *testing.T) {
	_, url := startServer(t, newEmbedded(t), Options{})
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/v1/config", http.StatusOK},
		{http.MethodGet, "/v1/namespaces/missing", http.StatusNotFound},
		{http.MethodPatch, "/v1/config", http.StatusMethodNotAllowed},
	} {
		status, _, h := do(t, c.method, url+c.path, "", "")
		if status != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, status, c.status)
		}
		st := h.Get(ServerTimingHeader)
		if _, ok := strings.CutPrefix(st, "app;dur="); !ok {
			t.Errorf("%s %s: Server-Timing %q, want app;dur=MS", c.method, c.path, st)
		}
	}
}
