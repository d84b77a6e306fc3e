package ab

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckEnv(t *testing.T) {
	if err := CheckEnv([]string{"A=1", "B="}); err != nil {
		t.Errorf("CheckEnv of good entries: %v", err)
	}
	for _, kv := range []string{"NOEQUALS", "=v"} {
		if err := CheckEnv([]string{kv}); !errors.Is(err, ErrBadOptions) || !strings.Contains(err.Error(), "NAME=VALUE") {
			t.Errorf("CheckEnv(%q) = %v, want ErrBadOptions naming NAME=VALUE", kv, err)
		}
	}
}

// TestExecuteToFile: a session that succeeds leaves exactly its lines at
// the path; one that fails leaves nothing; an existing path is refused.
func TestExecuteToFile(t *testing.T) {
	dir := t.TempDir()
	a := script(t, dir, "a")
	o := Options{Old: Side{Ref: "a", Bin: a}, New: Side{Ref: "b", Bin: a}, Runs: 2, Args: []string{"run"},
		Load: func() (float64, error) { return 0, nil }, Sleep: func(context.Context, time.Duration) {}}
	good := filepath.Join(dir, "good.jsonl")
	sum, err := ExecuteToFile(context.Background(), o, good)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil || strings.Count(string(b), "\n") != 4 || len(sum.Runs) != 4 {
		t.Fatalf("%d runs, file %q (%v); want 4 lines", len(sum.Runs), b, err)
	}
	if d := sum.Describe(2, 0, good); !strings.Contains(d, "4 runs (2 a side") || !strings.Contains(d, "no load limit") {
		t.Errorf("Describe = %q", d)
	}
	if _, err := ExecuteToFile(context.Background(), o, good); !errors.Is(err, ErrExists) {
		t.Errorf("second session on %s: %v, want ErrExists", good, err)
	}
	o.New.Env = []string{"FAIL=1"}
	bad := filepath.Join(dir, "bad.jsonl")
	if _, err := ExecuteToFile(context.Background(), o, bad); !errors.Is(err, ErrRun) {
		t.Fatalf("failing session: %v, want ErrRun", err)
	}
	for _, p := range []string{bad, bad + ".partial"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind by a failed session: %v", p, err)
		}
	}
}

func TestSettingsCheck(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "exists.jsonl")
	if err := os.WriteFile(exists, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	good := Settings{OldRef: "a", NewRef: "b", Runs: 4, Out: filepath.Join(dir, "out.jsonl")}
	if err := good.Check(4); err != nil {
		t.Fatalf("good settings: %v", err)
	}
	for name, edit := range map[string]func(*Settings){
		"no new":     func(s *Settings) { s.NewRef = "" },
		"few runs":   func(s *Settings) { s.Runs = 3 },
		"negative":   func(s *Settings) { s.Cooldown = -1 },
		"bad env":    func(s *Settings) { s.NewEnv = []string{"NOEQUALS"} },
		"out exists": func(s *Settings) { s.Out = exists },
	} {
		s := good
		edit(&s)
		if err := s.Check(4); !errors.Is(err, ErrBadOptions) {
			t.Errorf("%s: %v, want ErrBadOptions", name, err)
		}
	}
}
