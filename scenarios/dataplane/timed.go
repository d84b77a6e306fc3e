package dataplane

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/results"
)

// Timed is a data-plane scenario added from outside this package: one
// value in one file, registered with [RegisterTimed] from an init
// function. Each round on each lane calls Round once and times it; the
// lane's line carries the merged times, the failed calls as errors (the
// first one's message), and the lane's target, transport and params, as
// every data-plane line does.
type Timed struct {
	// Name is the scenario's name on lines, --scenario and `katbench
	// list`; it starts with "data.".
	Name string
	// Doc is one line for `katbench list`.
	Doc string
	// Order places it in a run among the built-in scenarios (append 10,
	// scan 20, commit latency 30, overwrite 40): lower runs first.
	Order int
	// OptIn leaves it out of a run unless --scenario names it.
	OptIn bool
	// Round does one timed operation on lane in round (from 0). An error
	// is a failed operation, counted on the line; the run goes on.
	Round func(ctx context.Context, lane Lane, round int) error
	// Params, when set, adds the scenario's own params to each line.
	Params map[string]any
}

// RegisterTimed adds t to the data-plane scenarios; call it from an init
// function. It panics on an incomplete or duplicate scenario: a
// programming error found at init, never a user input.
func RegisterTimed(t Timed) {
	key, ok := strings.CutPrefix(t.Name, "data.")
	if !ok || key == "" || t.Round == nil || t.Doc == "" {
		panic(fmt.Sprintf("dataplane: RegisterTimed(%q) needs a name data.<key>, a Doc and a Round", t.Name))
	}
	register(scenario{
		key: key, order: t.Order, optIn: t.OptIn, doc: t.Doc,
		name:  func(Config) string { return t.Name },
		start: func(_ Config, lanes int) measurement { return &timedRun{t: t, lanes: make([]timedLane, lanes)} },
	})
}

// timedRun is a Timed scenario's state over one run.
type timedRun struct {
	t     Timed
	lanes []timedLane
}

type timedLane struct {
	rec   *results.Recorder
	wall  time.Duration
	first error
}

func (r *timedRun) round(ctx context.Context, _ Config, i int, l *laneState, round int) {
	st := &r.lanes[i]
	if st.rec == nil {
		st.rec = results.NewRecorder()
	}
	t0 := time.Now()
	err := r.t.Round(ctx, l.Lane, round)
	d := time.Since(t0)
	if err != nil {
		st.rec.Error()
		if st.first == nil {
			st.first = fmt.Errorf("%s round %d: %w", r.t.Name, round, err)
		}
		return
	}
	st.rec.Record(d)
	st.wall += d
}

func (*timedRun) finish(context.Context, Config, int, *laneState) {}

func (r *timedRun) record(cfg Config, i int, l *laneState, name string) results.Record {
	st := &r.lanes[i]
	if st.rec == nil {
		st.rec = results.NewRecorder()
	}
	p := l.params(cfg)
	for k, v := range r.t.Params {
		p[k] = v
	}
	p["hist_of"] = "one call of " + r.t.Name + "'s round"
	return l.line(cfg, name, st.rec, st.wall, p, st.first, nil)
}
