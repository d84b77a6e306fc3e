package serve

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestFrontSettings: the flags' defaults (the durability from the
// environment), and every bad value is ErrSettings naming its flag.
func TestFrontSettings(t *testing.T) {
	var f FrontSettings
	fl := pflag.NewFlagSet("rest", pflag.ContinueOnError)
	f.RegisterFlags(fl, "127.0.0.1:8181", func(k string) string { return map[string]string{"BENCH_DURABILITY": "eventual"}[k] })
	if err := fl.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if dur, err := f.Check(); err != nil || dur != "eventual" || f.Addr != "127.0.0.1:8181" {
		t.Fatalf("defaults: %+v → %q, %v", f, dur, err)
	}
	for _, c := range []struct {
		f    FrontSettings
		want string
	}{
		{FrontSettings{Addr: ":1", Durability: "sometimes"}, "--durability"},
		{FrontSettings{Addr: ":1", AllowedLocations: []string{"rel/path"}}, "--allowed-location"},
		{FrontSettings{Addr: "nohostport"}, `--addr "nohostport"`},
	} {
		if _, err := c.f.Check(); !errors.Is(err, ErrSettings) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v; want ErrSettings naming %s", c.f, err, c.want)
		}
	}
	if err := CheckByteLimit("max-body-bytes", -1); !errors.Is(err, ErrSettings) || !strings.HasPrefix(err.Error(), "--max-body-bytes -1") {
		t.Errorf("CheckByteLimit(-1) = %v", err)
	}
	if err := CheckByteLimit("max-body-bytes", 0); err != nil {
		t.Errorf("CheckByteLimit(0) = %v", err)
	}
}
