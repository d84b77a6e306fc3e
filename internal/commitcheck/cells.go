package commitcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
)

// ErrSettings is wrapped by the errors of ParseCounts: a flag the user
// gave is wrong, and nothing has been created.
var ErrSettings = errors.New("bad verify settings")

// ParseCounts reads flag's comma-separated list of counts, 1…4096 each.
func ParseCounts(flag, s string) ([]int, error) {
	var out []int
	for p := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 4096 {
			return nil, usage.Errorf(ErrSettings, "--%s %q: want counts 1…4096, comma-separated, like 1,16,64", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// Cells is the plan of a verify run on one competitor: a Storm per cell
// (Tables × Writers), checked with Check unless NoMarkers, one line each.
// A value: safe to copy; a run of it is one goroutine's.
type Cells struct {
	Writers, Tables []int
	Commits         int           // per cell; 0: Duration ends a cell
	Duration        time.Duration // per cell, when Commits is 0
	// Retries are the commit.retry.num-retries of the cells, one cell
	// each (innermost); Backoff is the wait between them for all.
	Retries         []int
	Backoff         Backoff
	NoMarkers, Keep bool
	Show            int // anomalies printed with their evidence per cell
	// KillEvery > 0 crashes the server about this often during each cell
	// (seeded by Seed plus the cell's number): the one PIDFile names,
	// started again by Restart, or else our own server, started as the
	// child ServeArgv with --dir under the competitor's directory.
	KillEvery        time.Duration
	Seed             uint64
	PIDFile, Restart string
	ServeArgv        []string
	// WritersArgv is the command that runs a ChildSpec (its JSON appended)
	// as a child process: with KillEvery on a competitor whose state is its
	// directory (competitors.Factory.DirState), the writers are the process
	// killed (runWriterKills).
	WritersArgv []string
}

// Run starts the competitor name (fac with cfg), runs every cell on it
// and closes it. Each cell's summary goes to summary, its line to lines,
// the servers' logs to log. It returns how many anomalies its cells had.
func (c Cells) Run(ctx context.Context, run *results.Run, name string, fac competitors.Factory, cfg competitors.Config,
	summary, log io.Writer, lines results.Sink) (anomalies int, err error) {
	if c.KillEvery > 0 && c.PIDFile == "" && fac.DirState {
		return c.runWriterKills(ctx, run, name, fac, cfg, summary, log, lines)
	}
	var proc Crasher
	if c.PIDFile != "" {
		proc = &ScriptServer{PIDFile: c.PIDFile, Command: c.Restart, Log: log}
	} else if c.KillEvery > 0 {
		sp := &ServeProcess{Argv: append(append([]string{}, c.ServeArgv...), "--dir", filepath.Join(cfg.Dir, "server")), Log: log}
		if err := sp.Start(ctx); err != nil {
			return 0, fmt.Errorf("start %s server: %w", name, err)
		}
		defer func() { err = errors.Join(err, sp.Stop()) }()
		arg := sp.URL()
		if fac.ServeArg != nil {
			arg = fac.ServeArg(sp.Addr)
		}
		cfg.Args, proc = []string{arg}, sp
	}
	comp, err := fac.New(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", name, err)
	}
	defer func() { err = errors.Join(err, comp.Close()) }()
	err = c.eachStorm(run, func(s Storm, cell uint64) error {
		s.Catalog = comp.Catalog()
		n, err := c.cell(ctx, run, name, comp, proc, s, cell, summary, lines)
		anomalies += n
		return err
	})
	return anomalies, err
}

// eachStorm calls fn with the storm of every cell (tables × writers ×
// retry budgets, in that order; its catalog not set) and the cell's
// number from 1, which seeds its kill moments; it stops at fn's first
// error.
func (c Cells) eachStorm(run *results.Run, fn func(s Storm, cell uint64) error) error {
	cell := uint64(0)
	for _, k := range c.Tables {
		for _, w := range c.Writers {
			for _, r := range c.Retries {
				cell++
				prefix := fmt.Sprintf("v%s_w%d_k%d", run.ID[:8], w, k)
				if len(c.Retries) > 1 {
					prefix += fmt.Sprintf("_r%d", r)
				}
				s := Storm{Namespace: table.Identifier{"katbench_verify"}, Prefix: prefix, Tables: k, Writers: w,
					Commits: c.Commits, Duration: c.Duration, Retries: r, Backoff: c.Backoff, NoMarkers: c.NoMarkers}
				if err := fn(s, cell); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// cell runs and checks one storm and writes its line.
func (c Cells) cell(ctx context.Context, run *results.Run, name string, comp competitors.Competitor, proc Crasher, s Storm, cell uint64,
	summary io.Writer, lines results.Sink) (anomalies int, err error) {
	if c.Commits > 0 {
		s.Duration = 0
	}
	if err := s.Setup(ctx); err != nil {
		return anomalies, fmt.Errorf("%s: %w", name, err)
	}
	params := maps.Clone(comp.Params())
	res, kerr := runStorm(ctx, s, proc, c.KillEvery, c.Seed+cell, params)
	if err := errors.Join(ctx.Err(), kerr); err != nil {
		return anomalies, err
	}
	if proc != nil {
		// The server was restarted: the check reads the recovered
		// one once the client reaches it again (a gRPC channel in
		// its reconnect backoff fails fast meanwhile, which is not
		// an unreadable history).
		if err := awaitCatalog(ctx, comp.Catalog(), reachTimeout); err != nil {
			return anomalies, fmt.Errorf("%s: after the last restart: %w", name, err)
		}
	}
	var rep *Report
	if !s.NoMarkers {
		r, cerr := Check(ctx, comp.Catalog(), s.Idents(), res.Log.Attempts())
		if cerr != nil {
			return anomalies, cerr
		}
		rep = &r
		anomalies = r.Errors()
	}
	line := s.Line(run, name, res, rep, params)
	Summary(summary, name, s, line, rep, c.Show)
	if err := lines.Write(line); err != nil {
		return anomalies, err
	}
	if !c.Keep {
		dropTables(ctx, comp, s.Idents())
	}
	return anomalies, nil
}

// reachTimeout bounds the wait for a restarted server to answer again.
const reachTimeout = 2 * time.Minute

// awaitCatalog polls cat with a cheap call until it answers, or fails
// after timeout with the last error.
func awaitCatalog(ctx context.Context, cat catalog.Catalog, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		_, err := cat.ListNamespaces(ctx, nil)
		if err == nil {
			return nil
		}
		t := time.NewTimer(50 * time.Millisecond) // polling a server's return, with a deadline
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("the catalog did not answer within %v: %w", timeout, err)
		case <-t.C:
		}
	}
}

// dropTables drops a cell's tables on a competitor that keeps its state
// after the run (a server by URL); failures are not the measurement's.
func dropTables(ctx context.Context, c competitors.Competitor, ids []table.Identifier) {
	if eph, ok := competitors.As[competitors.Ephemeral](c); ok && eph.Ephemeral() {
		return
	}
	for _, id := range ids {
		_ = c.Catalog().DropTable(ctx, id)
	}
}

// runStorm runs s; with a server to crash, it kills and restarts it
// every about every meanwhile (seeded by seed) and puts the kill
// settings and count into params.
func runStorm(ctx context.Context, s Storm, proc Crasher, every time.Duration, seed uint64, params map[string]any) (Result, error) {
	if proc == nil {
		return s.Run(ctx), nil
	}
	kctx, stop := context.WithCancel(ctx)
	type killed struct {
		n   int
		err error
	}
	done := make(chan killed, 1)
	go func() {
		n, err := Kills(kctx, proc, every, seed)
		done <- killed{n, err}
	}()
	res := s.Run(ctx)
	stop()
	k := <-done
	params["kill_every"], params["kill_seed"], params["kills"] = every.String(), seed, k.n
	if _, ours := proc.(*ServeProcess); ours {
		params["store"] = competitors.StoreBbolt // the server katbench started and crashes
	} else {
		params["kill_restart"] = results.RedactText(proc.(*ScriptServer).Command)
	}
	return res, k.err
}
