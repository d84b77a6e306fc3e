// Command pause is the test cluster's pod sandbox ("pause") process: it
// holds a pod's namespaces open, reaps the orphans it inherits as PID 1 and
// exits 0 on SIGINT or SIGTERM. Built static and packed with
// `go run ./containers/k8s/ociimage -pause`, it lets containerd start pods
// without pulling registry.k8s.io/pause.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sig {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
