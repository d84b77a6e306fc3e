package commitcheck

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestSettingsCheck: the flags' defaults plan the documented cells, and
// every bad value is ErrSettings naming its flag.
func TestSettingsCheck(t *testing.T) {
	var s Settings
	fl := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	s.RegisterFlags(fl)
	none := func(string) bool { return false }
	c, err := s.Check(none)
	if err != nil || !slices.Equal(c.Writers, []int{1, 16, 64}) || !slices.Equal(c.Tables, []int{1}) || !slices.Equal(c.Retries, []int{DefaultRetries}) || c.Backoff != DefaultBackoff {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	for _, bad := range []struct {
		args    []string
		changed func(string) bool
		want    string
	}{
		{[]string{"--writers", "0"}, none, `--writers "0"`},
		{[]string{"--tables", "1,x"}, none, `--tables "1,x"`},
		{[]string{"--commit-retries", "101"}, none, `--commit-retries "101"`},
		{[]string{"--commit-retries", "4,-1"}, none, `--commit-retries "4,-1"`},
		{[]string{"--commit-backoff", "10ms"}, none, `--commit-backoff "10ms": no colon`},
		{[]string{"--commit-backoff", "0ms:1s"}, none, `--commit-backoff "0ms:1s"`},
		{[]string{"--commit-backoff", "1500us:1s"}, none, `--commit-backoff "1500us:1s"`},
		{[]string{"--commit-backoff", "2s:1s"}, none, `--commit-backoff "2s:1s": MIN is above MAX`},
		{[]string{"--commit-backoff", "1s:2h"}, none, `--commit-backoff "1s:2h"`},
		{[]string{"--commit-backoff", "x:1s"}, none, `--commit-backoff "x:1s"`},
		{[]string{"--duration", "0s"}, none, "--commits, --duration"},
		{nil, func(string) bool { return true }, "--commits and --duration"},
	} {
		var s Settings
		fl := pflag.NewFlagSet("verify", pflag.ContinueOnError)
		s.RegisterFlags(fl)
		if err := fl.Parse(bad.args); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Check(bad.changed); !errors.Is(err, ErrSettings) || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("%v: %v; want ErrSettings starting %q", bad.args, err, bad.want)
		}
	}
}

// TestSettingsRetriesAndBackoff: a list of retry budgets plans one cell
// each, and --commit-backoff reads into milliseconds.
func TestSettingsRetriesAndBackoff(t *testing.T) {
	var s Settings
	fl := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	s.RegisterFlags(fl)
	if err := fl.Parse([]string{"--commit-retries", "4, 8,64", "--commit-backoff", "10ms:1s"}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Check(func(string) bool { return false })
	if err != nil || !slices.Equal(c.Retries, []int{4, 8, 64}) || c.Backoff != (Backoff{10 * time.Millisecond, time.Second}) {
		t.Fatalf("got %+v, %v", c, err)
	}
	if got := c.Backoff.String(); got != "10ms:1s" {
		t.Errorf("String = %q", got)
	}
}
