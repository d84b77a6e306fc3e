package disturb

import (
	"fmt"
	"os/exec"
)

// StartBusyLoad starts n CPU-bound busy-loop processes (/bin/sh
// spinning), so a bench shares the machine's cores the way it does on a
// busy host. The returned func kills and reaps them.
func StartBusyLoad(n int) (stop func(), err error) {
	var procs []*exec.Cmd
	stop = func() {
		for _, p := range procs {
			p.Process.Kill()
			p.Wait()
		}
	}
	for i := 0; i < n; i++ {
		p := exec.Command("/bin/sh", "-c", "while :; do :; done")
		if err := p.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("--background-load: start busy loop: %w", err)
		}
		procs = append(procs, p)
	}
	return stop, nil
}
