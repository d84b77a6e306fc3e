package dataplane

import (
	"errors"
	"strings"
	"testing"

	"github.com/nordisk/katbench/bench"
)

// TestOptionsConfig: good options parse into the config (data.raw
// selectable); every bad value is an OptionError naming its option.
func TestOptionsConfig(t *testing.T) {
	good := Options{Rows: "10k", Compression: "zstd", Transports: "http", Baseline: "http", Scenario: "data.raw",
		BatchRows: 100, Rounds: 2, CommitRows: 1, Seed: 1}
	c, kinds, err := good.Config()
	if err != nil {
		t.Fatal(err)
	}
	if c.Rows != 10_000 || c.Rounds != 2 || len(kinds) != 1 || c.Select == nil || !c.Select(RawName) || c.Select(ScanName) {
		t.Errorf("config %+v kinds %v", c, kinds)
	}
	for opt, mod := range map[string]func(o *Options){
		"rows":             func(o *Options) { o.Rows = "lots" },
		"target-file-size": func(o *Options) { o.TargetFileSize = "big" },
		"row-group-rows":   func(o *Options) { o.RowGroupRows = "0" },
		"rounds":           func(o *Options) { o.Rounds = 0 },
		"commit-ops":       func(o *Options) { o.CommitOps = -1 },
		"raw-iterations":   func(o *Options) { o.RawIterations = -1 },
		"seed":             func(o *Options) { o.Seed = 0 },
		"compression":      func(o *Options) { o.Compression = "lz4" },
		"scenario":         func(o *Options) { o.Scenario = "data.nosuch" },
		"transports":       func(o *Options) { o.Transports = "pigeon" },
		"baseline":         func(o *Options) { o.Baseline = "pigeon" },
	} {
		o := good
		mod(&o)
		_, _, err := o.Config()
		if oe := (*bench.OptionError)(nil); !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "--"+opt+":") {
			t.Errorf("%s: error %v, want an OptionError naming --%s", opt, err, opt)
		}
	}
}
