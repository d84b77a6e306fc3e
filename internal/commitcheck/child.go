package commitcheck

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/competitors"
)

// A competitor whose whole state is its directory (the embedded catalog
// on disk) has no server to crash: its writers are the process. Such a
// storm runs in a child process (ChildSpec, RunChild) that reports every
// attempt to its parent over its stdout, one JSON line an event: a line
// before each commit and one after its answer. An acknowledgement reaches
// the parent only after the catalog acknowledged it, so a marker the
// parent holds as acknowledged was acknowledged. The parent (ChildWriters)
// kills the child with SIGKILL, starts another on the same files, and in
// the end opens the catalog itself and checks it: a commit in flight at a
// kill (begun, no answer) is indeterminate.

// ChildSpec is what a child process runs: the competitor on its
// directory, the storm's shape and when to stop. It travels as one JSON
// argument.
type ChildSpec struct {
	Competitor string `json:"competitor"`
	Dir        string `json:"dir"`
	Durability string `json:"durability,omitempty"`
	// Namespace, Prefix and Tables name the tables (created by the
	// parent); Markers starts this child's markers (one per generation).
	Namespace []string `json:"namespace"`
	Prefix    string   `json:"prefix"`
	Markers   string   `json:"markers"`
	Tables    int      `json:"tables"`
	Writers   int      `json:"writers"`
	// Commits ends the child after that many attempts; otherwise Until
	// does (commits in flight then finish).
	Commits int       `json:"commits,omitempty"`
	Until   time.Time `json:"until,omitzero"`
	Retries int       `json:"retries"`
	Backoff Backoff   `json:"backoff"`
}

// childEvent is one line of the child's report.
type childEvent struct {
	Done bool `json:"done"`
	Attempt
}

// maxChildErr bounds an error text in a report line, so each line stays
// one atomic pipe write (PIPE_BUF, 4 KiB): a kill never leaves half a line.
const maxChildErr = 1000

// RunChild opens spec's competitor, runs its writers and writes each
// event to out as it happens (one write a line), then closes the
// competitor. It is the body of the child process.
func RunChild(ctx context.Context, spec ChildSpec, out io.Writer) error {
	fac, err := competitors.Lookup(spec.Competitor)
	if err != nil {
		return err
	}
	comp, err := fac.New(ctx, competitors.Config{Dir: spec.Dir, Durability: spec.Durability})
	if err != nil {
		return fmt.Errorf("open %s on %s: %w", spec.Competitor, spec.Dir, err)
	}
	s := Storm{Catalog: comp.Catalog(), Namespace: table.Identifier(spec.Namespace), Prefix: spec.Prefix, Markers: spec.Markers,
		Tables: spec.Tables, Writers: spec.Writers, Commits: spec.Commits, Retries: spec.Retries, Backoff: spec.Backoff}
	if spec.Commits == 0 {
		s.Duration = time.Until(spec.Until)
		if s.Duration <= 0 {
			return comp.Close() // started after the end: nothing to do
		}
	}
	var mu sync.Mutex
	var werr error
	s.Observe = func(a Attempt, done bool) {
		if len(a.Err) > maxChildErr {
			a.Err = a.Err[:maxChildErr]
		}
		b, err := json.Marshal(childEvent{Done: done, Attempt: a})
		mu.Lock()
		defer mu.Unlock()
		if err == nil && werr == nil {
			_, err = out.Write(append(b, '\n'))
		}
		if err != nil && werr == nil {
			werr = err
		}
	}
	s.Run(ctx)
	return errors.Join(werr, comp.Close())
}

// ChildWriters is the parent's side: it starts child processes one after
// another (a generation each), reads their reports into one Log, and kills
// them. It is a Crasher. Kill, Restart, Start and Wait are called by one
// goroutine at a time; Attempts and Done are safe meanwhile.
type ChildWriters struct {
	// Argv is the command of generation g's child.
	Argv func(generation int) []string
	// Stderr receives the children's stderr; may be nil.
	Stderr io.Writer
	// OnEvent, when set, is called for each event read, in order, from
	// the goroutine reading the current child (it must not block long).
	OnEvent func(a Attempt, done bool)

	log     Log
	mu      sync.Mutex
	pending map[string]Attempt
	gen     int
	cmd     *exec.Cmd
	done    chan struct{} // closed when the current child exited and its report is read
	exitErr error         // the current child's exit, once done
	// badLines are the report lines that did not parse, once done.
	badLines error
}

var _ Crasher = (*ChildWriters)(nil)

// Start starts the current generation's child.
func (c *ChildWriters) Start(ctx context.Context) error {
	argv := c.Argv(c.gen)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = c.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start writers (generation %d): %w", c.gen, err)
	}
	done := make(chan struct{})
	c.cmd, c.done = cmd, done
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var bad error
		for sc.Scan() {
			var ev childEvent
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Marker == "" {
				bad = errors.Join(bad, fmt.Errorf("unreadable report line %q", sc.Text()))
				continue
			}
			c.record(ev)
		}
		c.badLines, c.exitErr = bad, cmd.Wait()
	}()
	return nil
}

func (c *ChildWriters) record(ev childEvent) {
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[string]Attempt{}
	}
	if ev.Done {
		delete(c.pending, ev.Marker)
		c.log.Add(ev.Attempt)
	} else {
		c.pending[ev.Marker] = ev.Attempt
	}
	c.mu.Unlock()
	if c.OnEvent != nil {
		c.OnEvent(ev.Attempt, ev.Done)
	}
}

// Done is closed when the current child has exited and its report is read.
func (c *ChildWriters) Done() <-chan struct{} { return c.done }

// Kill ends the current child with SIGKILL and waits until it is gone and
// its report read; the attempts it had begun without an answer become
// indeterminate.
func (c *ChildWriters) Kill() error {
	if c.cmd == nil {
		return errors.New("writers not running")
	}
	select {
	case <-c.done:
		// It ended by itself before the kill: only a clean end (its
		// duration passed) is not a failure.
		c.cmd = nil
		c.settle("the writers exited before the answer")
		if err := errors.Join(c.badLines, c.exitErr); err != nil {
			return fmt.Errorf("writers (generation %d) ended by themselves: %w", c.gen, err)
		}
		return nil
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL) // it may end meanwhile: not a failure to kill it
	<-c.done
	var ee *exec.ExitError
	if err := c.exitErr; err != nil && !(errors.As(err, &ee) && killedBySignal(ee)) {
		return fmt.Errorf("writers (generation %d): %w", c.gen, err)
	}
	if c.badLines != nil {
		return fmt.Errorf("writers (generation %d): %w", c.gen, c.badLines)
	}
	c.cmd = nil
	c.settle("killed with SIGKILL before the answer")
	return nil
}

// killedBySignal reports whether the process ended by a signal (ours),
// not by an exit status of its own.
func killedBySignal(ee *exec.ExitError) bool {
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// Restart starts the next generation on the same files.
func (c *ChildWriters) Restart(ctx context.Context) error {
	c.gen++
	return c.Start(ctx)
}

// Wait waits for the current child to end by itself and fails unless it
// exited 0 with a readable report.
func (c *ChildWriters) Wait() error {
	if c.cmd == nil {
		return nil
	}
	<-c.done
	c.cmd = nil
	c.settle("the writers exited before the answer")
	if err := errors.Join(c.badLines, c.exitErr); err != nil {
		return fmt.Errorf("writers (generation %d): %w", c.gen, err)
	}
	return nil
}

// Generations is how many children were started.
func (c *ChildWriters) Generations() int { return c.gen + 1 }

// settle logs the pending attempts as indeterminate.
func (c *ChildWriters) settle(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range c.pending {
		a.Outcome, a.Err = Indeterminate, why
		c.log.Add(a)
	}
	c.pending = nil
}

// Attempts returns every attempt reported so far (and, after Kill or
// Wait, those left without an answer).
func (c *ChildWriters) Attempts() []Attempt { return c.log.Attempts() }

// childArg is spec as the child's one argument.
func childArg(spec ChildSpec) string {
	b, _ := json.Marshal(spec) // strings, numbers and a time: it always marshals
	return string(b)
}

// ChildArgv is the command of a child running spec: argv0 (the program
// and the arguments before the spec) and the spec as JSON.
func ChildArgv(argv0 []string, spec ChildSpec) []string {
	return append(append([]string{}, argv0...), childArg(spec))
}

// ParseChildSpec reads a child's one argument.
func ParseChildSpec(arg string) (ChildSpec, error) {
	var s ChildSpec
	d := json.NewDecoder(strings.NewReader(arg))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return s, fmt.Errorf("writers spec: %w", err)
	}
	if s.Competitor == "" || s.Dir == "" || s.Tables < 1 || s.Writers < 1 || (s.Commits < 1 && s.Until.IsZero()) {
		return s, errors.New("writers spec: competitor, dir, tables, writers and commits or until are required")
	}
	return s, nil
}
