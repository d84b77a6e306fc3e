package commitcheck

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/usage"
)

// Settings are the flags of `katbench verify` that shape its cells: the
// Cells, with the writer and table counts as given. A value: safe to copy.
type Settings struct {
	Cells
	writers, tables, retries, backoff string
}

// RegisterFlags adds verify's cell flags to fl.
func (f *Settings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.writers, "writers", "1,16,64", "writer counts, comma-separated: one cell each")
	fl.StringVar(&f.tables, "tables", "1", "table counts, comma-separated: one cell each (1 is one hot table)")
	fl.DurationVar(&f.Duration, "duration", 10*time.Second, "how long each cell commits (commits in flight then finish)")
	fl.IntVar(&f.Commits, "commits", 0, "commits to attempt per cell, instead of --duration")
	fl.StringVar(&f.retries, "commit-retries", strconv.Itoa(DefaultRetries), "commit.retry.num-retries on the tables, 0…100, comma-separated: one cell each; how often iceberg-go refreshes and re-applies a commit that lost a race (default as Iceberg's Java client; iceberg-go's own default is 0)")
	fl.StringVar(&f.backoff, "commit-backoff", "", "MIN:MAX, e.g. 10ms:1s: commit.retry.min-wait-ms and commit.retry.max-wait-ms on the tables, iceberg-go's wait before a retry (jittered in [MIN, min(MIN·2^retry, MAX)]), whole milliseconds, 1ms ≤ MIN ≤ MAX ≤ 1h (default iceberg-go's and Java's, 100ms:60s)")
	fl.BoolVar(&f.NoMarkers, "no-markers", false, "commit without markers and check nothing: the checker's own cost, beside a run with markers")
	fl.DurationVar(&f.KillEvery, "kill-every", 0, "kill -9 the server at random moments about this far apart during each cell (uniform in [D/2, 3D/2), seeded by --seed) and restart it: rest or grpc (katbench runs its serve rest or serve grpc as a child), embedded or embedded-log (the writers run in a child katbench on the catalog's files, which is what is killed; the check opens the files afterwards), or the server --kill-pid-file and --restart name")
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
	if c.Retries, err = parseRetries(f.retries); err != nil {
		return c, err
	}
	if c.Backoff, err = ParseBackoff(f.backoff); err != nil {
		return c, err
	}
	if c.Commits < 0 || c.Duration <= 0 || c.Show < 0 {
		return c, usage.Errorf(ErrSettings, "--commits, --duration and --show must be positive")
	}
	if changed("commits") && changed("duration") {
		return c, usage.Errorf(ErrSettings, "--commits and --duration both say when a cell ends: give one")
	}
	return c, nil
}

// parseRetries reads --commit-retries: counts 0…100 (the cap keeps a
// refused commit's retries, and a cell's tail, bounded), comma-separated.
func parseRetries(s string) ([]int, error) {
	var out []int
	for p := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 || n > 100 {
			return nil, usage.Errorf(ErrSettings, "--commit-retries %q: want counts 0…100, comma-separated, like 4,16,64", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// Backoff is iceberg-go's wait before a commit retry: the first retry
// waits a random time in [Min, 2·Min], each next one doubles the ceiling,
// up to Max. The zero value is iceberg-go's default, 100 ms to 60 s.
type Backoff struct{ Min, Max time.Duration }

// DefaultBackoff is iceberg-go v0.7.0's (and Java's) commit.retry.min-wait-ms
// and commit.retry.max-wait-ms.
var DefaultBackoff = Backoff{Min: 100 * time.Millisecond, Max: 60 * time.Second}

// String is the MIN:MAX form --commit-backoff reads.
func (b Backoff) String() string { return b.Min.String() + ":" + b.Max.String() }

// orDefault is b, or DefaultBackoff for the zero value.
func (b Backoff) orDefault() Backoff {
	if b == (Backoff{}) {
		return DefaultBackoff
	}
	return b
}

// ParseBackoff reads --commit-backoff MIN:MAX ("" is the default): whole
// milliseconds (iceberg-go's unit; it reads 0 as its default), 1ms ≤ MIN
// ≤ MAX ≤ 1h.
func ParseBackoff(s string) (Backoff, error) {
	if s == "" {
		return DefaultBackoff, nil
	}
	lo, hi, ok := strings.Cut(s, ":")
	bad := func(why string) (Backoff, error) {
		return Backoff{}, usage.Errorf(ErrSettings, "--commit-backoff %q: %s; want MIN:MAX like 10ms:1s", s, why)
	}
	if !ok {
		return bad("no colon")
	}
	var b Backoff
	for _, v := range []struct {
		text string
		d    *time.Duration
	}{{lo, &b.Min}, {hi, &b.Max}} {
		d, err := time.ParseDuration(strings.TrimSpace(v.text))
		if err != nil {
			return bad(err.Error())
		}
		if d%time.Millisecond != 0 || d < time.Millisecond || d > time.Hour {
			return bad(fmt.Sprintf("%s is not whole milliseconds in 1ms…1h", d))
		}
		*v.d = d
	}
	if b.Min > b.Max {
		return bad("MIN is above MAX")
	}
	return b, nil
}
