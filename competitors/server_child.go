package competitors

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"syscall"
	"time"
)

// childStartTimeout bounds how long a child server may take to print the
// address it listens on.
const childStartTimeout = time.Minute

// childStopTimeout is how long a child server gets to shut down after
// SIGTERM before it is killed.
const childStopTimeout = 30 * time.Second

// childBanner matches the line `katbench serve` prints once it listens:
// "katbench: serving Iceberg REST at http://127.0.0.1:PORT (…)".
var childBanner = regexp.MustCompile(`serving .+ at (?:http://)?(\S+) \(`)

// childServer is one of our fronts serving as a child process, so its
// CPU and memory are its own and not the benchmark's. Not safe for
// concurrent use.
type childServer struct {
	cmd  *exec.Cmd
	addr string
	done chan error // the process's exit
}

// childAuth is how a child server authenticates its clients: flags added
// to its command line and variables added to its environment (a secret
// goes in the environment, off the process list). The zero value is none.
type childAuth struct {
	args, env []string
}

// startChild runs `cfg.ServeChild... serve FRONT` on a free loopback port
// over a fresh catalog in cfg.Dir/server-FRONT and waits until it says
// where it listens. Its log lines go to cfg.Log.
func startChild(ctx context.Context, cfg Config, front string, auth childAuth) (*childServer, error) {
	return startChildAt(ctx, cfg, front, "127.0.0.1:0", auth)
}

// startChildAt is startChild on addr.
func startChildAt(ctx context.Context, cfg Config, front, addr string, auth childAuth) (*childServer, error) {
	if len(cfg.ServeChild) == 0 {
		return nil, errors.New("no command to serve a child with")
	}
	args := append(cfg.ServeChild[1:len(cfg.ServeChild):len(cfg.ServeChild)], "serve", front,
		"--addr", addr, "--dir", childDir(cfg, front))
	if cfg.Durability != "" {
		args = append(args, "--durability", cfg.Durability)
	}
	args = append(args, auth.args...)
	cmd := exec.Command(cfg.ServeChild[0], args...)
	if len(auth.env) > 0 {
		cmd.Env = append(cmd.Environ(), auth.env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // never outlive the benchmark
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve %s: %w", cfg.ServeChild[0], front, err)
	}
	s := &childServer{cmd: cmd, done: make(chan error, 1)}
	addrc := make(chan string, 1)
	var tail []string // what it said before failing, for the error
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			line := sc.Text()
			if !found {
				if m := childBanner.FindStringSubmatch(line); m != nil {
					found = true
					addrc <- m[1]
					continue
				}
				tail = append(tail[max(0, len(tail)-4):], line)
				continue
			}
			cfg.Logf("%s server: %s", front, line)
		}
		_, _ = io.Copy(io.Discard, stderr)
		s.done <- cmd.Wait()
		close(addrc)
	}()
	select {
	case a, ok := <-addrc:
		if ok {
			s.addr = a
			return s, nil
		}
		err := <-s.done
		s.done <- err
		return nil, fmt.Errorf("serve %s exited before listening (%v): %q", front, err, tail)
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), s.stop())
	case <-time.After(childStartTimeout):
		return nil, errors.Join(fmt.Errorf("serve %s printed no address within %v", front, childStartTimeout), s.stop())
	}
}

// pid is the child's process id.
func (s *childServer) pid() int { return s.cmd.Process.Pid }

// stop sends SIGTERM, waits for a graceful exit, and kills the child when
// it does not come.
func (s *childServer) stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		s.done <- err
		return childExit(err)
	case <-time.After(childStopTimeout):
		_ = s.cmd.Process.Kill()
		err := <-s.done
		s.done <- err
		return fmt.Errorf("child server did not stop within %v of SIGTERM; killed", childStopTimeout)
	}
}

// childExit keeps a failure of the child's shutdown: an exit after
// SIGTERM with status 0 is the graceful one.
func childExit(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("child server: %w", err)
}
