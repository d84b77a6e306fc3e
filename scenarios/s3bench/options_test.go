package s3bench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/bench"
)

// TestOptionsConfig: good options parse into the config's dimensions and
// loop; every bad value is an OptionError naming its option.
func TestOptionsConfig(t *testing.T) {
	good := Options{Ops: "get,head", Sizes: "4KiB", Concurrency: "1,8", Transports: "http", Baseline: "http",
		Duration: time.Second, Seed: 1, Rounds: 3, Quick: true, Scenario: "s3.get.*"}
	c, err := good.Config()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ops) != 2 || len(c.Concurrency) != 2 || c.Rounds != 3 || c.Iterations != QuickIterations || c.Select == nil ||
		!c.Select("s3.get.4KiB.c8") || c.Select("s3.head.c1") {
		t.Errorf("config %+v", c)
	}
	for opt, mod := range map[string]func(o *Options){
		OpsFlag:       func(o *Options) { o.Ops = "copy" },
		"sizes":       func(o *Options) { o.Sizes = "4XB" },
		"concurrency": func(o *Options) { o.Concurrency = "300" },
		"transports":  func(o *Options) { o.Transports = "pigeon" },
		"baseline":    func(o *Options) { o.Baseline = "pigeon" },
		"scenario":    func(o *Options) { o.Scenario = "s3.nosuch" },
		"rate":        func(o *Options) { o.Rates = "5x%" },
		"duration":    func(o *Options) { o.Duration = 0 },
		"seed":        func(o *Options) { o.Seed = 0 },
		"iterations":  func(o *Options) { o.Iterations = -1 },
		"rounds":      func(o *Options) { o.Rounds = 0 },
	} {
		o := good
		mod(&o)
		_, err := o.Config()
		if oe := (*bench.OptionError)(nil); !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "--"+opt+":") {
			t.Errorf("%s: error %v, want an OptionError naming --%s", opt, err, opt)
		}
	}
}
