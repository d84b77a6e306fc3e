package results

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
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

// TestLabelFlag: a good label parses into the string, a bad one is the
// flag's parse error and leaves it as it was.
func TestLabelFlag(t *testing.T) {
	var label string
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	RegisterLabelFlag(fl, &label)
	if err := fl.Parse([]string{"--label", "nightly-1"}); err != nil || label != "nightly-1" {
		t.Fatalf("--label nightly-1: %q, %v", label, err)
	}
	if err := fl.Parse([]string{"--label", "Bad Label"}); err == nil || !strings.Contains(err.Error(), "a label is") || label != "nightly-1" {
		t.Fatalf("--label 'Bad Label': %q, %v; want the label's error", label, err)
	}
}
