package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/scenarios"
)

// shardFlags make one process one of N identical workers of a distributed
// run (a Kubernetes Indexed Job, or any runner that sets an index): worker
// I builds and reads its own 1/N of the dataset and does 1/N of the
// recorded operations, all workers start measuring at --start-at, and
// `katbench merge --cross-host` adds their histograms afterwards.
type shardFlags struct {
	shard   string
	shards  int
	startAt string
}

func (s *shardFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&s.shard, "shard", "", "this worker's shard I/N of a distributed run (default: JOB_COMPLETION_INDEX of --shards when set)")
	fl.IntVar(&s.shards, "shards", 0, "number of workers N, with the index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
	fl.StringVar(&s.startAt, "start-at", "", "RFC 3339 time at which to start measuring, after setup (every worker of a distributed run gets the same)")
}

// parse returns the shard index and count (0, 1 when not sharded).
func (s *shardFlags) parse() (int, int, error) {
	spec := s.shard
	if spec == "" && s.shards > 0 {
		idx := os.Getenv("JOB_COMPLETION_INDEX")
		if idx == "" {
			return 0, 0, usagef("--shards %d needs JOB_COMPLETION_INDEX (or give --shard I/N)", s.shards)
		}
		spec = idx + "/" + strconv.Itoa(s.shards)
	}
	if spec == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || n > 10000 || i < 0 || i >= n {
		return 0, 0, usagef("--shard %q: want I/N with 0 ≤ I < N ≤ 10000", spec)
	}
	if s.shards > 0 && s.shards != n {
		return 0, 0, usagef("--shard %s disagrees with --shards %d", spec, s.shards)
	}
	return i, n, nil
}

// apply gives o this worker's slice and start time and stamps them on the
// lines' params. It runs after every other option is set.
func (s *shardFlags) apply(o *scenarios.Options, namespaceGiven bool) error {
	i, n, err := s.parse()
	if err != nil {
		return err
	}
	if s.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, s.startAt)
		if err != nil {
			return usagef("--start-at %q: want an RFC 3339 time like 2026-12-01T06:00:00Z", s.startAt)
		}
		o.StartAt = t
		o.Extra["start_at"] = t.UTC().Format(time.RFC3339Nano)
	}
	if n == 1 {
		return nil
	}
	per := func(v int) int { return int(math.Ceil(float64(v) / float64(n))) }
	o.Shape = scenarios.ShapeFor(per(o.Shape.Tables()))
	o.LatencyOps = per(o.LatencyOps)
	o.CreateOps = per(o.CreateOps)
	if namespaceGiven {
		// A shared --namespace: each shard builds under its own child name.
		o.Namespace = fmt.Sprintf("%s_s%d", o.Namespace, i)
		if err := catalog.ValidateIdentifier(table.Identifier{o.Namespace, "t"}); err != nil {
			return usagef("--namespace for shard %d: %v", i, err)
		}
	}
	o.Extra["shard"] = fmt.Sprintf("%d/%d", i, n)
	o.Extra["shards"] = n
	return nil
}
