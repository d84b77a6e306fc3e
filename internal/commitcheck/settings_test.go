package commitcheck

import (
	"errors"
	"slices"
	"strings"
	"testing"

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
	if err != nil || !slices.Equal(c.Writers, []int{1, 16, 64}) || !slices.Equal(c.Tables, []int{1}) || c.Retries != DefaultRetries {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	for _, bad := range []struct {
		args    []string
		changed func(string) bool
		want    string
	}{
		{[]string{"--writers", "0"}, none, `--writers "0"`},
		{[]string{"--tables", "1,x"}, none, `--tables "1,x"`},
		{[]string{"--commit-retries", "101"}, none, "--commits, --commit-retries"},
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
