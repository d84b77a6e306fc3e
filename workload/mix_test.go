package workload_test

import (
	"errors"
	"testing"

	"github.com/nordisk/katbench/workload"
)

func TestParseMix(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want string
	}{
		{"read-heavy", true, "load_table=80,table_exists=10,commit_table=10"},
		{"load_table=80, table_exists=10,commit_table=6,create_table=1,list_tables=3", true, "load_table=80,table_exists=10,commit_table=6,create_table=1,list_tables=3"},
		{"load_table=1,commit_table=0", true, "load_table=1,commit_table=0"},
		{"load_table=-1,commit_table=2", false, ""},
		{"load_table=0", false, ""},
		{"load_tables=5", false, ""},
		{"load_table=x", false, ""},
		{"load_table=NaN", false, ""},
		{"load_table=Inf", false, ""},
		{"load_table=1,load_table=2", false, ""},
		{"=3", false, ""},
		{"load_table=1,", false, ""},
		{"no-such-mix", false, ""},
		{"", false, ""},
	} {
		m, err := workload.ParseMix(c.in)
		if (err == nil) != c.ok {
			t.Errorf("ParseMix(%q): err %v, want ok=%v", c.in, err, c.ok)
			continue
		}
		if err != nil && !errors.Is(err, workload.ErrBadMix) {
			t.Errorf("ParseMix(%q): %v is not ErrBadMix", c.in, err)
		}
		if c.ok && m.String() != c.want {
			t.Errorf("ParseMix(%q) = %s, want %s", c.in, m, c.want)
		}
	}
}

func TestBuiltinMixes(t *testing.T) {
	want := map[string]bool{"read-heavy": true, "write-heavy": true, "commit-storm": true, "crawl": true}
	for _, m := range workload.Mixes() {
		delete(want, m.Name)
		if m.Doc == "" {
			t.Errorf("mix %s has no doc", m.Name)
		}
	}
	if len(want) != 0 {
		t.Fatalf("missing mixes %v", want)
	}
	m, _ := workload.ParseMix("read-heavy")
	if s := m.Share("commit_table"); s != 0.1 {
		t.Fatalf("read-heavy updates %.2f, want 0.10", s)
	}
}

func TestParseKeys(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"uniform", "uniform"}, {"sequential", "sequential"}, {"zipf:1.2", "zipf:1.2"},
		{"hotspot:0.1:0.9", "hotspot:0.1:0.9"}, {"hotspot:1:0", "hotspot:1:0"}, {"normal:0.5:0.1", "normal:0.5:0.1"},
		{"zipf:1", ""}, {"zipf:0.5", ""}, {"zipf", ""}, {"zipf:x", ""}, {"hotspot:0:0.5", ""}, {"hotspot:1.5:0.5", ""},
		{"hotspot:0.1:2", ""}, {"hotspot:0.1", ""}, {"normal:0.5:0", ""}, {"normal:2:0.1", ""}, {"normal:NaN:0.1", ""},
		{"uniform:3", ""}, {"gauss", ""}, {"", ""}, {"zipf:", ""},
	} {
		k, err := workload.ParseKeys(c.in)
		if c.want == "" {
			if err == nil || !errors.Is(err, workload.ErrBadKeys) {
				t.Errorf("ParseKeys(%q) = %v, %v: want ErrBadKeys", c.in, k, err)
			}
			continue
		}
		if err != nil || k.String() != c.want {
			t.Errorf("ParseKeys(%q) = %v, %v: want %s", c.in, k, err, c.want)
		}
	}
}

func FuzzParseMix(f *testing.F) {
	for _, s := range []string{"read-heavy", "load_table=80,commit_table=20", "load_table=-1", "a=b=c", ",,,", "load_table=1e999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := workload.ParseMix(s)
		if err != nil {
			if !errors.Is(err, workload.ErrBadMix) {
				t.Fatalf("ParseMix(%q): %v is not ErrBadMix", s, err)
			}
			return
		}
		var total float64
		for _, w := range m.Weights {
			if w.Weight < 0 {
				t.Fatalf("ParseMix(%q) accepted a negative weight", s)
			}
			total += w.Weight
		}
		if !(total > 0) {
			t.Fatalf("ParseMix(%q) accepted a zero total", s)
		}
		if _, err := workload.ParseMix(m.String()); err != nil && m.Name == "custom" {
			t.Fatalf("ParseMix(%q).String() = %q does not parse: %v", s, m.String(), err)
		}
	})
}

func FuzzParseKeys(f *testing.F) {
	for _, s := range []string{"uniform", "zipf:1.1", "hotspot:0.2:0.8", "normal:0.5:0.2", "hotspot:0:1", "zipf:-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := workload.ParseKeys(s)
		if err != nil {
			if !errors.Is(err, workload.ErrBadKeys) {
				t.Fatalf("ParseKeys(%q): %v is not ErrBadKeys", s, err)
			}
			return
		}
		again, err := workload.ParseKeys(k.String())
		if err != nil || again != k {
			t.Fatalf("ParseKeys(%q) = %v does not round-trip: %v, %v", s, k, again, err)
		}
	})
}
