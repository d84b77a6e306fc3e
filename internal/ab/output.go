package ab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrExists is returned by ExecuteToFile when its output file exists: a
// session never overwrites results.
var ErrExists = errors.New("exists; ab does not overwrite results")

// CheckEnv checks NAME=VALUE entries of a side's environment (Side.Env).
func CheckEnv(kvs []string) error {
	for _, kv := range kvs {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("%w: %q: want NAME=VALUE", ErrBadOptions, kv)
		}
	}
	return nil
}

// CheckOut returns ErrExists when path exists.
func CheckOut(path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s %w", path, ErrExists)
	}
	return nil
}

// ExecuteToFile runs the session (Execute) with o.Out a new file at path:
// written as path+".partial" and renamed to path only when the session
// succeeded, removed otherwise, so path is either every run's lines or
// absent. path must not exist (ErrExists).
func ExecuteToFile(ctx context.Context, o Options, path string) (Summary, error) {
	if err := CheckOut(path); err != nil {
		return Summary{}, err
	}
	part := path + ".partial"
	file, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return Summary{}, fmt.Errorf("ab output: %w", err)
	}
	o.Out = file
	sum, err := Execute(ctx, o)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(part, path)
	}
	if err != nil {
		os.Remove(part)
		return sum, err
	}
	return sum, nil
}

// Describe is the one-line account of a session of runs per side whose
// lines are in path, under the load limit maxLoad (0: none).
func (s Summary) Describe(runs int, maxLoad float64, path string) string {
	took := 0.0
	for _, r := range s.Runs {
		took += r.Took
	}
	load := "no load limit"
	if maxLoad > 0 {
		load = fmt.Sprintf("%d started or ended above load %.1f", s.OverLoad, maxLoad)
	}
	return fmt.Sprintf("ab: %d runs (%d a side, ABBA), %.0f s of runs; %s; lines in %s", len(s.Runs), runs, took, load, path)
}
