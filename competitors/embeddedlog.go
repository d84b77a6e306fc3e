package competitors

import "context"

func init() {
	Register(Factory{
		Name: "embedded-log",
		Description: "the bbolt catalog in-process with its commit log: an Immediate group is durable after its metadata files, " +
			"one log append and one fdatasync, and bbolt is checkpointed in the background",
		Durability: true,
		Store:      StoreBbolt,
		Storage:    true,
		Peer:       "embedded",
		FileFloor:  FileFloorName,
		DirState:   true,
		Example: `  katbench run embedded embedded-log fs-floor --scenario 'create_table.throughput.*' --threads 1,8,32,128
  katbench embedded-log --quick`,
		New: newEmbeddedLog,
	})
}

func newEmbeddedLog(ctx context.Context, cfg Config) (Competitor, error) {
	cfg.CommitLog = true
	return newEmbeddedNamed(ctx, "embedded-log", cfg)
}
