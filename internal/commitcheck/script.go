package commitcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ScriptServer is a server started by a script of its own (the repo's
// containers/*_up.sh, or yours), crashed through the process id it
// records in a file. Not safe for concurrent use.
type ScriptServer struct {
	// PIDFile holds the server's process id (read afresh at every kill:
	// a restart records a new one).
	PIDFile string
	// Command is a shell command that starts the server again on the same
	// state and address and exits 0 once it answers.
	Command string
	// Log receives the restart's output; may be nil.
	Log io.Writer
	// Timeout bounds a restart and the wait for a killed process to be
	// gone (default 10 minutes: a JVM server on a busy machine).
	Timeout time.Duration
}

var _ Crasher = (*ScriptServer)(nil)

func (s *ScriptServer) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 10 * time.Minute
}

// Kill sends SIGKILL to the process group of the recorded process (the
// server and its children), or to the process alone when it leads none,
// and waits until it is gone.
func (s *ScriptServer) Kill() error {
	b, err := os.ReadFile(s.PIDFile)
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return fmt.Errorf("pid file %s: bad process id %q", s.PIDFile, b)
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return fmt.Errorf("kill %d: %w", pid, err)
		}
	}
	// The up scripts record the port beside the pid: the process is
	// gone only once its last thread has let go of it too.
	port := 0
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(s.PIDFile), "port")); err == nil {
		port, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	deadline := time.Now().Add(s.timeout())
	for alive(pid) || (port > 0 && !portFree(port)) {
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d or its port %d still held %s after SIGKILL", pid, port, s.timeout())
		}
		time.Sleep(20 * time.Millisecond) // polling a process's exit
	}
	return nil
}

// portFree reports whether nothing listens on the loopback port.
func portFree(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	return l.Close() == nil
}

// alive reports whether pid runs (a zombie does not: it holds nothing).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name's closing parenthesis.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z' && b[i+2] != 'X'
	}
	return true
}

// Restart runs the restart command and waits for it to succeed.
func (s *ScriptServer) Restart(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", s.Command)
	var out bytes.Buffer
	cmd.Stdout = io.Discard // the up scripts print exports (keys among them)
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		tail := out.String()
		if len(tail) > 600 {
			tail = tail[len(tail)-600:]
		}
		return errors.Join(fmt.Errorf("restart %q: %w", s.Command, err), errors.New(strings.TrimSpace(tail)))
	}
	if s.Log != nil {
		fmt.Fprintf(s.Log, "restarted: %s\n", s.Command)
	}
	return nil
}
