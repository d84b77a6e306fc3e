package results

import (
	"slices"
	"strings"
	"testing"
)

func TestCheckLabel(t *testing.T) {
	for _, ok := range []string{"a", "transport-quick", "v1.2_x"} {
		if err := CheckLabel(ok); err != nil {
			t.Errorf("CheckLabel(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", "A", "a b", strings.Repeat("a", 65)} {
		if err := CheckLabel(bad); err == nil {
			t.Errorf("CheckLabel(%q) accepted", bad)
		}
	}
}

func TestLabelled(t *testing.T) {
	var c Collector
	if err := Labelled(&c, "lab").Write(Record{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if err := Labelled(&c, "").Write(Record{RunID: "s"}); err != nil {
		t.Fatal(err)
	}
	got := c.Snapshot()
	if len(got) != 2 || got[0].Label != "lab" || got[1].Label != "" {
		t.Fatalf("labels %+v", got)
	}
}

func TestCommandLine(t *testing.T) {
	if CommandLine("katbench", nil) != nil {
		t.Error("no invocation: want no command")
	}
	got := CommandLine("katbench", []string{"rest", "--secret-key", "S", "a b"})
	if want := []string{"katbench", "rest", "--secret-key", "REDACTED", "'a b'"}; !slices.Equal(got, want) {
		t.Errorf("CommandLine = %q, want %q", got, want)
	}
	if !strings.Contains(Version(), "katbench ") {
		t.Errorf("Version() = %q", Version())
	}
}
