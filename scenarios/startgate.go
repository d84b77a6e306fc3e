package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// ReadyMark starts the log line a worker with a start barrier
// (--start-file) writes when its setup is done; `katbench cluster run`
// releases the workers once every one of them has written it.
const ReadyMark = "katbench-ready"

// WaitStartFile is the worker's side of a start barrier: it checks path at
// once and then at every tick until the file holds an RFC 3339 instant,
// and returns that instant. The file is written whole (WriteStartFile), so
// a read never sees half of it.
func WaitStartFile(ctx context.Context, path string, tick <-chan time.Time) (time.Time, error) {
	for {
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			s := strings.TrimSpace(string(b))
			at, perr := time.Parse(time.RFC3339Nano, s)
			if perr != nil {
				return time.Time{}, fmt.Errorf("start file %s holds %q: want an RFC 3339 time", path, s)
			}
			return at, nil
		case !errors.Is(err, fs.ErrNotExist):
			return time.Time{}, err
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-tick:
		}
	}
}

// WriteStartFile writes the start instant to path whole: a temporary file
// beside it, renamed over it.
func WriteStartFile(path string, at time.Time) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(at.UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// fileGate is the StartGate of --start-file: it polls path every 50 ms.
func fileGate(path string) func(ctx context.Context) (time.Time, error) {
	return func(ctx context.Context) (time.Time, error) {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		return WaitStartFile(ctx, path, t.C)
	}
}
