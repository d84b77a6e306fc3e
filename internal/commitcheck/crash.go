package commitcheck

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Crasher is a server a storm can kill and restart. Kill must end it as
// kill -9 does (no shutdown, nothing flushed); Restart starts it again on
// the same state and address and returns once it answers.
type Crasher interface {
	Kill() error
	Restart(ctx context.Context) error
}

// Kills kills c at random moments until ctx ends, each after a wait drawn
// uniformly from [every/2, 3·every/2) by a generator seeded with seed (so
// a run's moments are reproducible), and restarts it at once. It returns
// how many times it killed c and the first failure to kill or restart
// (then it stops: a server that does not come back ends the storm's
// usefulness, not the check).
func Kills(ctx context.Context, c Crasher, every time.Duration, seed uint64) (int, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	kills := 0
	for {
		wait := every/2 + time.Duration(rng.Int64N(int64(every)))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return kills, nil
		case <-t.C:
		}
		if err := c.Kill(); err != nil {
			return kills, fmt.Errorf("kill: %w", err)
		}
		kills++
		if err := c.Restart(context.WithoutCancel(ctx)); err != nil {
			return kills, fmt.Errorf("restart after kill %d: %w", kills, err)
		}
	}
}

// ServeProcess is `katbench serve FRONT` as a child process on a fixed
// loopback address and state directory, so a restart finds the same
// state where the clients look for it. Not safe for concurrent use.
type ServeProcess struct {
	// Argv is the command before the address: the katbench executable,
	// "serve", the front and its flags (--dir …).
	Argv []string
	// Addr is host:port; Start picks a free loopback port when empty.
	Addr string
	// Log receives the server's output; may be nil.
	Log io.Writer
	// StartTimeout bounds one start (default a minute).
	StartTimeout time.Duration

	cmd  *exec.Cmd
	done chan error
}

var _ Crasher = (*ServeProcess)(nil)

// URL is the server's base URL.
func (p *ServeProcess) URL() string { return "http://" + p.Addr }

// Start starts the server and waits until it prints that it serves.
func (p *ServeProcess) Start(ctx context.Context) error {
	if p.Addr == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		p.Addr = l.Addr().String()
		if err := l.Close(); err != nil {
			return err
		}
	}
	timeout := p.StartTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	// The killed server's port may take a moment to be free again:
	// retry a start that fails until the timeout.
	for attempt := 0; ; attempt++ {
		if last = p.startOnce(ctx); last == nil {
			return nil
		}
		t := time.NewTimer(time.Duration(min(attempt+1, 20)) * 25 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("start %s on %s: %w (last: %v)", strings.Join(p.Argv[1:], " "), p.Addr, ctx.Err(), last)
		case <-t.C:
		}
	}
}

func (p *ServeProcess) startOnce(ctx context.Context) error {
	args := append(append([]string(nil), p.Argv[1:]...), "--addr", p.Addr)
	cmd := exec.Command(p.Argv[0], args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	ready := make(chan struct{})
	var tail []string
	go func() {
		sc := bufio.NewScanner(stderr)
		up := false
		for sc.Scan() {
			line := sc.Text()
			if !up && strings.Contains(line, "serving ") {
				up = true
				close(ready)
			} else if !up {
				tail = append(tail[max(0, len(tail)-4):], line)
			} else if p.Log != nil {
				fmt.Fprintln(p.Log, "server:", line)
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case <-ready:
		p.cmd, p.done = cmd, done
		return nil
	case err := <-done:
		return fmt.Errorf("server exited before serving (%v): %q", err, tail)
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return ctx.Err()
	}
}

// Kill sends SIGKILL and waits for the process to be gone.
func (p *ServeProcess) Kill() error {
	if p.cmd == nil {
		return errors.New("server not running")
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-p.done
	p.cmd = nil
	return nil
}

// Restart starts the server again on the same address.
func (p *ServeProcess) Restart(ctx context.Context) error { return p.Start(ctx) }

// Stop ends the server with SIGTERM (SIGKILL after 30 s).
func (p *ServeProcess) Stop() error {
	if p.cmd == nil {
		return nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	select {
	case err := <-p.done:
		p.cmd = nil
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // a signal's exit status is the stop asked for
		}
		return err
	case <-t.C:
		return p.Kill()
	}
}
