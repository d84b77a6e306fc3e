package workload_test

import (
	"errors"
	"testing"

	"github.com/nordisk/katbench/workload"
)

func TestParseSLO(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"p99<=50ms", "p99<=50ms,errors<=0"},
		{"p99.9<=200ms, commit_table:p99<=1s,errors<=1%", "p99.9<=200ms,commit_table:p99<=1s,errors<=0.01"},
		{"p50<=1ms,errors<=0.5", "p50<=1ms,errors<=0.5"},
		{"p100<=1s", ""}, {"p0<=1s", ""}, {"p99<50ms", ""}, {"p99<=", ""}, {"p99<=-1ms", ""}, {"p99<=fast", ""},
		{"q99<=1s", ""}, {"nope:p99<=1s", ""}, {"errors<=0.1", ""}, {"p99<=1s,errors<=2", ""}, {"p99<=1s,p99<=2s", ""},
		{"", ""}, {"pNaN<=1s", ""}, {"p99<=2h", ""},
	} {
		s, err := workload.ParseSLO(c.in)
		if c.want == "" {
			if err == nil || !errors.Is(err, workload.ErrBadSLO) {
				t.Errorf("ParseSLO(%q) = %v, %v: want ErrBadSLO", c.in, s, err)
			}
			continue
		}
		if err != nil || s.String() != c.want {
			t.Errorf("ParseSLO(%q) = %v, %v: want %s", c.in, s, err, c.want)
		}
	}
	s, _ := workload.ParseSLO("commit_table:p99<=1s")
	m, _ := workload.ParseMix("crawl")
	if err := s.CheckMix(m); err == nil {
		t.Fatal("an objective on commit_table accepted for crawl, which does not commit")
	}
}

func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99<=50ms", "commit_table:p99.9<=1s,errors<=0.01", "errors<=5%", "p<=1s", "p99<=1e9h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slo, err := workload.ParseSLO(s)
		if err != nil {
			if !errors.Is(err, workload.ErrBadSLO) {
				t.Fatalf("ParseSLO(%q): %v is not ErrBadSLO", s, err)
			}
			return
		}
		if len(slo.Latency) == 0 || slo.MaxErrorRate < 0 || slo.MaxErrorRate > 1 {
			t.Fatalf("ParseSLO(%q) = %+v", s, slo)
		}
		again, err := workload.ParseSLO(slo.String())
		if err != nil || again.String() != slo.String() {
			t.Fatalf("ParseSLO(%q) = %s does not round-trip: %v", s, slo, err)
		}
	})
}
