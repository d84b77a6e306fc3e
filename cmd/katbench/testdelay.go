package main

// envTestDelay injects a fixed per-operation slowdown, for measuring how
// well compare and ab find one (scenarios.ParseTestDelay): "US" slows every
// target's scenarios by US microseconds, "TARGET:US" only TARGET's. The
// control scenario is never slowed, and every slowed line says so
// (params.test_delay_us).
const envTestDelay = "KATBENCH_TEST_DELAY_US"
