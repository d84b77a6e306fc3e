package servercost

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestSettingsCheck: --server-pid gives process ids; contradicting or
// malformed flags are ErrSettings naming the flag.
func TestSettingsCheck(t *testing.T) {
	parse := func(args ...string) Settings {
		var s Settings
		fl := pflag.NewFlagSet("t", pflag.ContinueOnError)
		s.RegisterFlags(fl)
		if err := fl.Parse(args); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if pids, err := parse("--server-pid", "12, 40").Check(); err != nil || !slices.Equal(pids, []int{12, 40}) {
		t.Fatalf("--server-pid 12,40: %v, %v", pids, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-cost=false", "--server-pid", "1"}, "--server-pid and --server-metrics need --server-cost"},
		{[]string{"--server-pid", "1", "--server-metrics", "http://h/m"}, "--server-pid and --server-metrics are two"},
		{[]string{"--server-metrics", "h:9000"}, `--server-metrics "h:9000"`},
		{[]string{"--server-pid", "0"}, `--server-pid "0"`},
	} {
		if _, err := parse(c.args...).Check(); !errors.Is(err, ErrSettings) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v; want ErrSettings starting %q", c.args, err, c.want)
		}
	}
}
