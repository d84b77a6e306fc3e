package pacer

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/nordisk/katbench/internal/phold"
)

// sleepCall is what one nanosleep the seam saw was asked to do.
type sleepCall struct {
	hold bool
	held int32 // phold.Held() while it slept
}

// recordSleeps turns sleepWithinBudget on and replaces the nanosleep seam
// for the test with one that records each call and returns results[i] for
// the i-th (0 past the end).
func recordSleeps(t *testing.T, results ...unix.Errno) *[]sleepCall {
	t.Helper()
	var calls []sleepCall
	saved, within := nanosleep, sleepWithinBudget
	sleepWithinBudget = true
	nanosleep = func(ts *unix.Timespec, hold bool) unix.Errno {
		calls = append(calls, sleepCall{hold: hold, held: phold.Held()})
		if i := len(calls) - 1; i < len(results) {
			return results[i]
		}
		return 0
	}
	t.Cleanup(func() { nanosleep, sleepWithinBudget = saved, within })
	return &calls
}

func TestPacingSleepHoldsAPWhenAPlaceIsFree(t *testing.T) {
	calls := recordSleeps(t)
	before := phold.Held()
	preciseSleep(200*time.Microsecond, before+1)
	if len(*calls) != 1 {
		t.Fatalf("%d nanosleeps, want 1", len(*calls))
	}
	if c := (*calls)[0]; !c.hold || c.held != before+1 {
		t.Fatalf("sleep with a free place: hold=%v with %d places taken, want a raw sleep holding place %d", c.hold, c.held, before+1)
	}
	if got := phold.Held(); got != before {
		t.Fatalf("%d places taken after the sleep, want %d: the sleep kept its place", got, before)
	}
}

func TestPacingSleepLetsThePGoWhenTheBudgetIsFull(t *testing.T) {
	calls := recordSleeps(t)
	const limit = 1
	if !phold.TryHold(limit) { // an io_uring hold wait on the other P
		t.Fatal("the budget is not empty at the start")
	}
	defer phold.Release()
	preciseSleep(200*time.Microsecond, limit)
	if len(*calls) != 1 || (*calls)[0].hold {
		t.Fatalf("sleeps %+v with every place taken, want one that lets its P go", *calls)
	}
	if got := phold.Held(); got != limit {
		t.Fatalf("%d places taken after the sleep, want %d", got, limit)
	}
}

func TestPacingSleepNeverHoldsTheOnlyP(t *testing.T) {
	calls := recordSleeps(t)
	preciseSleep(200*time.Microsecond, 0) // GOMAXPROCS=1: the limit is 0
	if len(*calls) != 1 || (*calls)[0].hold {
		t.Fatalf("sleeps %+v on a single P, want one that lets the P go", *calls)
	}
}

func TestPacingSleepResumesAfterASignalInTheSamePlace(t *testing.T) {
	calls := recordSleeps(t, unix.EINTR, unix.EINTR)
	before := phold.Held()
	preciseSleep(200*time.Microsecond, before+1)
	if len(*calls) != 3 {
		t.Fatalf("%d nanosleeps after two interruptions, want 3", len(*calls))
	}
	for i, c := range *calls {
		if !c.hold || c.held != before+1 {
			t.Fatalf("nanosleep %d: hold=%v with %d places taken, want every retry in the one place taken", i, c.hold, c.held)
		}
	}
	if got := phold.Held(); got != before {
		t.Fatalf("%d places taken after the sleep, want %d", got, before)
	}
}

func TestPacingSleepOfALongGapTakesNoPlace(t *testing.T) {
	calls := recordSleeps(t)
	preciseSleep(3*rawSleepMax, 1) // slept with time.Sleep up to rawSleepMax before the deadline
	if len(*calls) != 0 {
		t.Fatalf("a gap of %v made %d nanosleeps, want time.Sleep alone", 3*rawSleepMax, len(*calls))
	}
}

func TestPacingSleepOutsideTheBudgetIsRawAndTakesNoPlace(t *testing.T) {
	calls := recordSleeps(t)
	sleepWithinBudget = false // the default
	const limit = 1
	if !phold.TryHold(limit) { // an io_uring hold wait on the other P
		t.Fatal("the budget is not empty at the start")
	}
	defer phold.Release()
	preciseSleep(200*time.Microsecond, limit)
	if len(*calls) != 1 || !(*calls)[0].hold || (*calls)[0].held != limit {
		t.Fatalf("sleeps %+v outside the budget with every place taken, want one raw sleep taking no place", *calls)
	}
}
