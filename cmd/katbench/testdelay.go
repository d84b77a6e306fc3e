package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nordisk/katbench/scenarios"
)

// envTestDelay injects a fixed per-operation slowdown, for measuring how
// well compare and ab find one: "US" slows every target's scenarios by US
// microseconds, "TARGET:US" only TARGET's. The control scenario is never
// slowed, and every slowed line says so (params.test_delay_us).
const envTestDelay = "KATBENCH_TEST_DELAY_US"

// testDelay reads envTestDelay; unset or empty means no delay.
func testDelay() (scenarios.TestDelay, error) {
	v := strings.TrimSpace(os.Getenv(envTestDelay))
	if v == "" {
		return scenarios.TestDelay{}, nil
	}
	target, us, ok := strings.Cut(v, ":")
	if !ok {
		target, us = "", v
	}
	n, err := strconv.ParseFloat(us, 64)
	if err != nil || n < 0 || n > 1e6 {
		return scenarios.TestDelay{}, usagef("%s=%q: want microseconds (0..1000000), optionally TARGET:US", envTestDelay, v)
	}
	return scenarios.TestDelay{Per: time.Duration(n * 1e3), Target: target}, nil
}
