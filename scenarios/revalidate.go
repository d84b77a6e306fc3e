package scenarios

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/dataset"
	"github.com/nordisk/katbench/internal/results"
)

// The freshness-aware load: a client that already holds a table's current
// version asks whether it is still current (HTTP If-None-Match with the
// version's ETag). A server that answers 304 saves the metadata transfer
// and parse; one that never does is measured all the same, and its
// not_modified_ratio of 0 is the finding.

// revalidateTables bounds the tables one round revalidates (and so the
// unmeasured loads that fetch their tags first).
const revalidateTables = 256

// NeedRevalidator: the competitor can send a conditional load.
var NeedRevalidator = Capability[competitors.Revalidator]("competitor has no conditional load to send " +
	"(REST If-None-Match, our gRPC front's known_metadata_location)")

// revalidation holds the tag of each table's current version as the client
// last saw it, and counts the answers. One worker only.
type revalidation struct {
	r      competitors.Revalidator
	tables []table.Identifier
	tags   []string
	order  []int

	answers, notModified, bytes atomic.Int64
}

// newRevalidation loads up to revalidateTables dataset tables once,
// unconditionally, to learn the tag of each one's current version.
func newRevalidation(ctx context.Context, r competitors.Revalidator, d *dataset.Dataset, n int) (*revalidation, error) {
	rv := &revalidation{r: r, tables: d.Tables[:min(len(d.Tables), revalidateTables)]}
	rv.tags = make([]string, len(rv.tables))
	for i, id := range rv.tables {
		a, err := r.RevalidateTable(ctx, id, "")
		if err != nil {
			return nil, fmt.Errorf("first load of %s: %w", strings.Join(id, "."), err)
		}
		rv.tags[i] = a.ETag
	}
	rv.order = picks(min(max(n, 1), 1<<16), len(rv.tables))
	return rv, nil
}

// op revalidates one table per operation with the tag held for it; a 200
// replaces the held tag with the answer's (the client now holds that
// version).
func (rv *revalidation) op() Op {
	return func(ctx context.Context, _, i int) error {
		k := rv.order[i%len(rv.order)]
		a, err := rv.r.RevalidateTable(ctx, rv.tables[k], rv.tags[k])
		if err != nil {
			return err
		}
		rv.answers.Add(1)
		rv.bytes.Add(int64(a.Bytes))
		if a.NotModified {
			rv.notModified.Add(1)
		} else if a.ETag != "" {
			rv.tags[k] = a.ETag
		}
		return nil
	}
}

func (rv *revalidation) reset() {
	rv.answers.Store(0)
	rv.notModified.Store(0)
	rv.bytes.Store(0)
}

func init() {
	Register(Scenario{
		Scenario: bench.Scenario{
			Name: "load_table.revalidate.latency", Kind: bench.KindLatency, Metric: results.P50, Order: 17, ReadsOnly: true,
			Doc: "revalidate a held table version: a load with If-None-Match of its ETag (304 where the server supports it); " +
				"params.not_modified_ratio says how many answers were 304",
			Needs: []bench.Requirement{NeedDataset, NeedTables, NeedRevalidator},
		},
		Run: func(ctx context.Context, env *Env) (Outcome, error) {
			r, _ := competitors.As[competitors.Revalidator](env.Competitor)
			o := env.Opts
			rv, err := newRevalidation(ctx, r, env.Dataset, o.LatencyOps)
			if err != nil {
				return Outcome{}, Skip("revalidate: " + err.Error())
			}
			op := rv.op()
			// The warm-up runs apart, so that the ratio counts measured
			// answers only.
			warm := Latency(ctx, op, o.Warmup, 10, 10*o.LatencyOps+1000, 0)
			rv.reset()
			m := Latency(ctx, op, 0, 0, 0, o.LatencyOps)
			m.WarmupErrors = warm.WarmupErrors
			if m.FirstErr == nil {
				m.FirstErr = warm.FirstErr
			}
			p := map[string]any{
				"request":         r.RevalidationRequest(),
				"held":            "the table's current version",
				"revalidated":     len(rv.tables),
				"server_sent_tag": rv.tags[0] != "",
			}
			if n := rv.answers.Load(); n > 0 {
				p["not_modified_ratio"] = float64(rv.notModified.Load()) / float64(n)
				p["mean_answer_bytes"] = float64(rv.bytes.Load()) / float64(n)
			}
			return Outcome{M: m, Params: p}, nil
		},
	})
}
