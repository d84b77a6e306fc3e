package output

import (
	"bytes"
	"testing"
)

// TestFirstWrite: the first write passes, the rest are dropped but
// reported as written.
func TestFirstWrite(t *testing.T) {
	var b bytes.Buffer
	w := &FirstWrite{W: &b}
	for _, s := range []string{"fallback: net/http\n", "fallback: net/http\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if b.String() != "fallback: net/http\n" {
		t.Errorf("wrote %q, want the first write only", b.String())
	}
}
