//go:build !linux

package pacer

import "time"

// preciseSleep is time.Sleep where no finer sleep is built.
func preciseSleep() (sleep func(time.Duration), release func()) {
	return time.Sleep, func() {}
}
