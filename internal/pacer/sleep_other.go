//go:build !linux

package pacer

import "time"

// preciseSleep is time.Sleep where no finer sleep is built.
func preciseSleep(d time.Duration) { time.Sleep(d) }
