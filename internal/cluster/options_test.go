package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestOptionsCheck: every bad setting is ErrSettings naming its flag, and
// the worker flags cluster run sets itself are refused in the command.
func TestOptionsCheck(t *testing.T) {
	var good Options
	good.RegisterFlags(pflag.NewFlagSet("t", pflag.ContinueOnError), func(string) string { return "" })
	good.Workers = 2
	if good.Image != "katbench:dev" || good.Kubectl != "kubectl" || good.Setup != 10*time.Minute {
		t.Fatalf("defaults %+v", good)
	}
	sel, err := good.Check([]string{"rest", "http://catalog:8181", "--quick"})
	if err != nil || len(sel) != 0 {
		t.Fatalf("good options: %v, %v", sel, err)
	}
	for _, c := range []struct {
		edit func(*Options)
		args []string
		want string
	}{
		{func(o *Options) { o.Workers = 0 }, nil, "--workers 0"},
		{func(o *Options) { o.MetricsPort = 70000 }, nil, "--metrics-port 70000"},
		{func(o *Options) { o.Setup = o.Timeout }, nil, "--setup"},
		{func(o *Options) { o.NodeSelector = []string{"nokey"} }, nil, `--node-selector "nokey"`},
		{func(*Options) {}, []string{"rest", "--shards=4"}, "--shards=4: cluster run sets"},
		{func(*Options) {}, []string{"rest", "--start-file", "x"}, "--start-file: cluster run sets"},
	} {
		o := good
		c.edit(&o)
		_, err := o.Check(c.args)
		if !errors.Is(err, ErrSettings) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v %v: %v; want ErrSettings starting %q", o, c.args, err, c.want)
		}
	}
	o := good
	o.NodeSelector = []string{"pool=bench"}
	if sel, err := o.Check(nil); err != nil || sel["pool"] != "bench" {
		t.Fatalf("selector %v, %v", sel, err)
	}
}
