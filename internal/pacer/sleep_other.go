//go:build !linux

package pacer

import "time"

// preciseSleep is time.Sleep where no finer sleep is built; it holds no
// P, so it takes no place of the P-holding budget (limit,
// sleepWithinBudget).
func preciseSleep(d time.Duration, limit int32) { time.Sleep(d) }
