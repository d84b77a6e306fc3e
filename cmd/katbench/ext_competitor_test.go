package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nordisk/katbench/competitors"
)

// A competitor in one file: the embedded catalog under another name, in a
// directory of its own, with a param of its own, one optional argument it
// checks, and the embedded catalog's file-system floor beside it (its
// declared Floor, not its name, makes the floor run).

const extCompetitorName = "ext-embedded"

func init() {
	competitors.Register(competitors.Factory{
		Name:        extCompetitorName,
		Usage:       "[LABEL]",
		Description: "the embedded catalog under another name (a test extension)",
		Store:       competitors.StoreBbolt,
		FileFloor:   competitors.FileFloorName,
		CheckArgs: func(args []string) error {
			if len(args) > 1 || len(args) == 1 && strings.Trim(args[0], "abcdefghijklmnopqrstuvwxyz") != "" {
				return fmt.Errorf("want at most one lower-case LABEL, got %q", args)
			}
			return nil
		},
		New: func(ctx context.Context, cfg competitors.Config) (competitors.Competitor, error) {
			embedded, err := competitors.Lookup("embedded")
			if err != nil {
				return nil, err
			}
			label := ""
			if len(cfg.Args) == 1 {
				label, cfg.Args = cfg.Args[0], nil
			}
			c, err := embedded.New(ctx, cfg)
			if err != nil {
				return nil, err
			}
			p := map[string]any{"ext_label": label}
			for k, v := range c.Params() {
				p[k] = v
			}
			return &competitors.Base{TargetName: extCompetitorName, Cat: c.Catalog(), LineParams: p, CloseFn: c.Close}, nil
		},
	})
}

func TestExtCompetitor(t *testing.T) {
	if list := extList(t); !strings.Contains(list, extCompetitorName+"  ") || !strings.Contains(list, "the embedded catalog under another name") {
		t.Errorf("list does not show %s with its description:\n%s", extCompetitorName, list)
	}
	lines := extLines(t, nil, "load_table.latency", "run", extCompetitorName+"=mine", "--quick", "--scenario", "load_table.latency")
	if len(lines) != 1 {
		t.Fatalf("%d lines of load_table.latency, want 1 (the extension's)", len(lines))
	}
	l := lines[0]
	if l["target"] != extCompetitorName {
		t.Errorf("target %v, want %s", l["target"], extCompetitorName)
	}
	wantMeasured(t, l)
	params, _ := l["params"].(map[string]any)
	if params["ext_label"] != "mine" || params["store"] != competitors.StoreBbolt {
		t.Errorf("params ext_label %v store %v, want mine and %s", params["ext_label"], params["store"], competitors.StoreBbolt)
	}

	t.Run("floor beside it", func(t *testing.T) {
		const scenario = "create_table.throughput.t1"
		targets := map[any]bool{}
		for _, l := range extLines(t, nil, scenario, "run", extCompetitorName, "--quick", "--scenario", scenario) {
			targets[l["target"]] = true
			wantMeasured(t, l)
		}
		if !targets[extCompetitorName] || !targets[competitors.FileFloorName] || len(targets) != 2 {
			t.Errorf("%s lines for %v, want %s and its floor %s", scenario, targets, extCompetitorName, competitors.FileFloorName)
		}
	})
	t.Run("bad argument", func(t *testing.T) {
		wantExtUsageError(t, nil, []string{"run", extCompetitorName + "=Not-A-Label", "--quick"}, extCompetitorName, "LABEL")
	})
}
