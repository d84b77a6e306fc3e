package ab

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/nordisk/katbench/internal/pacer"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Side names, as written in each line's ab.side.
const (
	Old = "old"
	New = "new"
)

// Side is one build under test.
type Side struct {
	// Ref is what the user named: a binary path or a revision.
	Ref string
	// Bin is the executable run for this side.
	Bin string
	// Revision is the commit Bin was built from: the one Build checked
	// out, or the vcs.revision a given binary carries ("" when none).
	Revision string
	// Env is added to the environment of this side's runs only.
	Env []string
}

// Options shape a session.
type Options struct {
	Old, New Side
	// Runs is the number of runs per side.
	Runs int
	// Args are the katbench arguments of every run ("run", "embedded",
	// …). "--format jsonl" is appended, so the lines come on stdout.
	Args []string
	// Cooldown is the pause before every run but the first.
	Cooldown time.Duration
	// MaxLoad is the highest one-minute load average at which a run
	// starts without waiting; 0 means no limit.
	MaxLoad float64
	// LoadWait bounds the wait for the load to drop; a run that starts
	// above the limit after it is recorded so (ab.load_ok false).
	LoadWait time.Duration
	// Out receives every run's lines, each with an "ab" object added.
	Out io.Writer
	// Log receives one status line per run; nil discards them.
	Log io.Writer
	// Env is the environment of every run; nil means this process's.
	Env []string
	// Load reads the load average; nil reads /proc/loadavg.
	Load func() (float64, error)
	// Sleep waits; nil uses a timer that ctx can cut short.
	Sleep func(context.Context, time.Duration)
}

// Run is what one process of a session did.
type Run struct {
	Side  string  `json:"side"`
	Index int     `json:"run"`   // the side's run number, from 0
	Order int     `json:"order"` // position in the session, from 0
	Ref   string  `json:"ref"`
	Rev   string  `json:"rev,omitempty"`
	Load1 float64 `json:"load1_before"`
	// Load1After is the load average when the run ended.
	Load1After float64 `json:"load1_after"`
	LoadLimit  float64 `json:"load_limit,omitempty"`
	LoadOK     bool    `json:"load_ok"`
	Lines      int     `json:"-"`
	Took       float64 `json:"-"` // seconds
}

// Summary is the outcome of a session.
type Summary struct {
	Runs []Run
	// OverLoad counts runs that started or ended above MaxLoad.
	OverLoad int
}

// ErrRun wraps the failure of one run's process.
var ErrRun = errors.New("run failed")

// ErrBadOptions is returned for options a session cannot run with.
var ErrBadOptions = errors.New("bad ab options")

// Order returns the side of each run of a session of runs per side:
// ABBA ABBA …, so each side is as often first as second.
func Order(runs int) []string {
	out := make([]string, 0, 2*runs)
	for p := range runs {
		if p%2 == 0 {
			out = append(out, Old, New)
		} else {
			out = append(out, New, Old)
		}
	}
	return out
}

// Execute runs the session: 2×Runs processes in ABBA order, each's lines
// written to Out as they come. It stops at the first run that fails
// (exit status, or a stdout line that is not JSON).
func Execute(ctx context.Context, o Options) (Summary, error) {
	if o.Runs < 1 || len(o.Args) == 0 || o.Old.Bin == "" || o.New.Bin == "" || o.Out == nil {
		return Summary{}, fmt.Errorf("%w: need runs ≥ 1, arguments, two binaries and an output", ErrBadOptions)
	}
	if o.Load == nil {
		o.Load = LoadAvg
	}
	if o.Sleep == nil {
		o.Sleep = pacer.Sleep
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	var sum Summary
	count := map[string]int{}
	for i, name := range Order(o.Runs) {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		if i > 0 {
			o.Sleep(ctx, o.Cooldown)
		}
		side := o.Old
		if name == New {
			side = o.New
		}
		r := Run{Side: name, Index: count[name], Order: i, Ref: side.Ref, Rev: side.Revision, LoadLimit: o.MaxLoad}
		count[name]++
		r.Load1 = o.waitLoad(ctx)
		fmt.Fprintf(o.Log, "ab: run %d/%d: %s #%d (%s), load %.2f\n", i+1, 2*o.Runs, name, r.Index+1, side.Ref, r.Load1)
		t0 := time.Now()
		out, err := o.exec(ctx, side)
		r.Took = time.Since(t0).Seconds()
		if err != nil {
			return sum, fmt.Errorf("%s run %d (%s): %w", name, r.Index+1, side.Ref, err)
		}
		r.Load1After, _ = o.Load()
		r.LoadOK = o.MaxLoad <= 0 || (r.Load1 <= o.MaxLoad && r.Load1After <= o.MaxLoad)
		if !r.LoadOK {
			sum.OverLoad++
		}
		n, err := annotate(o.Out, out, r)
		if err != nil {
			return sum, fmt.Errorf("%s run %d (%s): %w", name, r.Index+1, side.Ref, err)
		}
		r.Lines = n
		sum.Runs = append(sum.Runs, r)
	}
	return sum, nil
}

// waitLoad waits (at most LoadWait) for the load to drop to MaxLoad and
// returns the load it started at. An unreadable load reads as 0 and is
// not waited for.
func (o Options) waitLoad(ctx context.Context) float64 {
	l, err := o.Load()
	if err != nil || o.MaxLoad <= 0 {
		return l
	}
	const poll = time.Second
	for waited := time.Duration(0); l > o.MaxLoad && waited < o.LoadWait && ctx.Err() == nil; waited += poll {
		o.Sleep(ctx, poll)
		if l, err = o.Load(); err != nil {
			return 0
		}
	}
	return l
}

// exec runs one process of side and returns its stdout.
func (o Options) exec(ctx context.Context, side Side) ([]byte, error) {
	args := append(append([]string(nil), o.Args...), "--format", "jsonl")
	cmd := exec.CommandContext(ctx, side.Bin, args...)
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string(nil), env...), side.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w%s", ErrRun, side.Bin, strings.Join(args, " "), err, tail(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// annotate writes each JSON line of out to w with an "ab" object added.
func annotate(w io.Writer, out []byte, r Run) (int, error) {
	tag, err := json.Marshal(r)
	if err != nil {
		return 0, fmt.Errorf("encode ab tag: %w", err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return n, fmt.Errorf("%w: stdout line %d is not a result line: %w", ErrRun, n+1, err)
		}
		m["ab"] = tag
		line, err := json.Marshal(m)
		if err != nil {
			return n, fmt.Errorf("encode line: %w", err)
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return n, fmt.Errorf("write lines: %w", err)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("read run output: %w", err)
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: the run wrote no result line", ErrRun)
	}
	return n, nil
}

// LoadAvg returns the one-minute load average from /proc/loadavg.
func LoadAvg() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, fmt.Errorf("load average: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("load average: empty /proc/loadavg")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, fmt.Errorf("load average: %w", err)
	}
	return v, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return "\n" + s
}
