package scenarios_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/scenarios"
)

// watchedControl is the embedded catalog with a control round trip that
// notes whether the dataset existed and how many loads had run when it was
// called.
type watchedControl struct {
	competitors.Competitor
	root         string
	calls, early atomic.Int64
}

func (w *watchedControl) Control(ctx context.Context) error {
	w.calls.Add(1)
	ok, err := w.Catalog().CheckNamespaceExists(ctx, table.Identifier{w.root})
	if err != nil {
		return err
	}
	if !ok {
		w.early.Add(1)
	}
	return nil
}

// TestControlIsMeasuredAfterSetupAndWarmup: control.latency is measured on
// a competitor whose dataset is built and whose server warm-up is done, and
// its line (like every line) says what preceded it.
func TestControlIsMeasuredAfterSetupAndWarmup(t *testing.T) {
	o := tinyOptions()
	emb, err := competitors.Lookup("embedded")
	if err != nil {
		t.Fatal(err)
	}
	var w *watchedControl
	f := competitors.Factory{Name: "watched", New: func(ctx context.Context, cfg competitors.Config) (competitors.Competitor, error) {
		c, err := emb.New(ctx, cfg)
		if err != nil {
			return nil, err
		}
		w = &watchedControl{Competitor: c, root: o.Namespace}
		return w, nil
	}}
	var coll results.Collector
	r := &scenarios.Runner{Run: results.NewRun(), Sink: &coll, Opts: o}
	if err := r.Execute(context.Background(), []scenarios.CompetitorSetup{{Factory: f, Config: competitors.Config{Dir: t.TempDir()}}}); err != nil {
		t.Fatal(err)
	}
	if w.calls.Load() == 0 || w.early.Load() != 0 {
		t.Fatalf("control called %d times, %d of them before the dataset existed", w.calls.Load(), w.early.Load())
	}
	ctl := byKey(coll.Records)["embedded control.latency"]
	if ctl.Skipped != "" || ctl.Ops != int64(o.LatencyOps) {
		t.Fatalf("control line: %+v", ctl)
	}
	if got := fmt.Sprint(ctl.Params["preceded_by"]); got != "[dataset server_warmup]" {
		t.Errorf("control params.preceded_by = %s, want [dataset server_warmup]", got)
	}
	if ctl.Params["server_warmup_s"] != o.ServerWarmup.Seconds() {
		t.Errorf("control params.server_warmup_s = %v, want %v", ctl.Params["server_warmup_s"], o.ServerWarmup.Seconds())
	}
	for _, rec := range coll.Records {
		if rec.ControlP50US == nil && rec.Skipped == "" {
			t.Errorf("%s has no control_p50_us", rec.Scenario)
		}
	}
}
