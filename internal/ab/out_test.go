package ab

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDefaultOutIsNeverTheWorkingDirectory(t *testing.T) {
	now := time.Date(2026, 12, 3, 23, 59, 1, 0, time.UTC)
	const name = "ab-20261203T235901Z.jsonl"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "embedded", "--quick"}, filepath.Join(os.TempDir(), name)},
		{[]string{"run", "embedded", "--history", "/srv/h/bench_history.jsonl"}, "/srv/h/" + name},
		{[]string{"run", "embedded", "--history=runs/h.jsonl", "--quick"}, "runs/" + name},
		{[]string{"run", "embedded", "--history", "a/h.jsonl", "--history=b/h.jsonl"}, "b/" + name},
		{[]string{"run", "--history"}, filepath.Join(os.TempDir(), name)},
	} {
		if got := DefaultOut(c.args, now); got != c.want {
			t.Errorf("DefaultOut(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
