package output

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// FirstWrite passes the first write through and drops the rest, so a
// fallback found against every endpoint is announced once. Not safe for
// concurrent use; the benches write warnings from one goroutine.
type FirstWrite struct {
	W    io.Writer
	done bool
}

func (f *FirstWrite) Write(b []byte) (int, error) {
	if f.done {
		return len(b), nil
	}
	f.done = true
	return f.W.Write(b)
}

// CPUProfile is the --cpuprofile of `katbench run`: the file is created
// when the flag is read (a path that cannot be written is refused before
// anything is measured), the profile covers only what Start and its stop
// bracket (the measured phase, not the dataset's setup).
type CPUProfile struct{ f *os.File }

// CreateCPUProfile creates path for a profile.
func CreateCPUProfile(path string) (*CPUProfile, error) {
	pf, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return &CPUProfile{f: pf}, nil
}

// Start starts profiling into the file; stop ends it.
func (p *CPUProfile) Start() (stop func() error, err error) {
	if err := pprof.StartCPUProfile(p.f); err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error { pprof.StopCPUProfile(); return nil }, nil
}

// Close closes the file (a profile never started leaves it empty).
func (p *CPUProfile) Close() error { return p.f.Close() }

// StartCPUProfile is the --cpuprofile of a bench: a CPU profile to path
// until the returned stop.
func StartCPUProfile(path string) (stop func() error, err error) {
	pf, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		return nil, errors.Join(fmt.Errorf("--cpuprofile: %w", err), pf.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		return pf.Close()
	}, nil
}
