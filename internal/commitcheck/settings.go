package commitcheck

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/usage"
)

// Settings are the flags of `katbench verify` that shape its cells: the
// Cells, with the writer and table counts as given. A value: safe to copy.
type Settings struct {
	Cells
	writers, tables string
}

// RegisterFlags adds verify's cell flags to fl.
func (f *Settings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.writers, "writers", "1,16,64", "writer counts, comma-separated: one cell each")
	fl.StringVar(&f.tables, "tables", "1", "table counts, comma-separated: one cell each (1 is one hot table)")
	fl.DurationVar(&f.Duration, "duration", 10*time.Second, "how long each cell commits (commits in flight then finish)")
	fl.IntVar(&f.Commits, "commits", 0, "commits to attempt per cell, instead of --duration")
	fl.IntVar(&f.Retries, "commit-retries", DefaultRetries, "commit.retry.num-retries on the tables: how often iceberg-go refreshes and re-applies a commit that lost a race (default as Iceberg's Java client; iceberg-go's own default is 0)")
	fl.BoolVar(&f.NoMarkers, "no-markers", false, "commit without markers and check nothing: the checker's own cost, beside a run with markers")
	fl.DurationVar(&f.KillEvery, "kill-every", 0, "kill -9 the server at random moments about this far apart during each cell (uniform in [D/2, 3D/2), seeded by --seed) and restart it: rest or grpc (katbench runs its serve rest or serve grpc as a child), or the server --kill-pid-file and --restart name")
	fl.StringVar(&f.PIDFile, "kill-pid-file", "", "with --kill-every: crash instead the server whose process id this file holds (its process group), e.g. $KATBENCH_STATE_DIR/nessie-pg/pid")
	fl.StringVar(&f.Restart, "restart", "", "with --kill-pid-file: the shell command that starts that server again on the same state and port, e.g. 'containers/nessie_up.sh --store jdbc'")
	fl.Uint64Var(&f.Seed, "seed", 0, "seed of the kill moments (default: from the clock; every line says its kill_seed)")
	fl.BoolVar(&f.Keep, "keep", false, "leave each cell's tables on the server (namespace katbench_verify) to inspect an anomaly; default: dropped after the cell on a server that outlives the run")
	fl.IntVar(&f.Show, "show", 20, "anomalies printed with their evidence per cell (the counts are always whole)")
}

// Check validates the settings that need no competitor (changed reports
// whether the user gave a flag) and returns the cells they plan.
func (f Settings) Check(changed func(flag string) bool) (Cells, error) {
	c := f.Cells
	var err error
	if c.Writers, err = ParseCounts("writers", f.writers); err != nil {
		return c, err
	}
	if c.Tables, err = ParseCounts("tables", f.tables); err != nil {
		return c, err
	}
	if c.Commits < 0 || c.Retries < 0 || c.Retries > 100 || c.Duration <= 0 || c.Show < 0 {
		return c, usage.Errorf(ErrSettings, "--commits, --commit-retries (0…100), --duration and --show must be positive")
	}
	if changed("commits") && changed("duration") {
		return c, usage.Errorf(ErrSettings, "--commits and --duration both say when a cell ends: give one")
	}
	return c, nil
}
