package testenv

import (
	"testing"
	"time"
)

// PollUntil polls cond every few milliseconds until it holds, failing the
// test with what it waited for after a generous 30 s: a bound on a hang,
// not a timing assertion (cond decides, the sleep only paces the polls).
func PollUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after 30 s waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
