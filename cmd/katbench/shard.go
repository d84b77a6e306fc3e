package main

import (
	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/scenarios"
)

// registerShard adds the flags that make one process one of N identical
// workers of a distributed run (scenarios.ShardSettings); `katbench merge
// --cross-host` adds their histograms afterwards.
func registerShard(fl *pflag.FlagSet, s *scenarios.ShardSettings) {
	fl.StringVar(&s.Spec, "shard", "", "this worker's shard I/N of a distributed run (default: JOB_COMPLETION_INDEX of --shards when set)")
	fl.IntVar(&s.Shards, "shards", 0, "number of workers N, with the index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
	fl.StringVar(&s.StartAt, "start-at", "", "RFC 3339 time at which to start measuring, after setup (every worker of a distributed run gets the same)")
}
