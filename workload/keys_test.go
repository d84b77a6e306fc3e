package workload

import (
	"math/rand/v2"
	"testing"
)

// draw counts how often each of n tables is chosen in draws picks.
func draw(t *testing.T, spec string, n, draws int) []int {
	t.Helper()
	k, err := ParseKeys(spec)
	if err != nil {
		t.Fatal(err)
	}
	ks := NewKeySpace(k, n, 9)
	choose := ks.Chooser(rand.New(rand.NewPCG(9, 1)))
	hits := make([]int, n)
	for range draws {
		i := choose()
		if i < 0 || i >= n {
			t.Fatalf("%s chose %d of %d", spec, i, n)
		}
		hits[i]++
	}
	return hits
}

func TestKeyDistributions(t *testing.T) {
	const n, draws = 100, 100_000
	// hotspot:0.1:0.9: ten tables get 90 % of the operations.
	hits := draw(t, "hotspot:0.1:0.9", n, draws)
	ks := NewKeySpace(Keys{Dist: "hotspot", Fraction: 0.1, Share: 0.9}, n, 9)
	hot := 0
	for _, i := range ks.perm[:ks.hot] {
		hot += hits[i]
	}
	if ks.hot != 10 || hot < 0.88*draws || hot > 0.92*draws {
		t.Fatalf("hotspot: %d hot tables got %d of %d", ks.hot, hot, draws)
	}
	// zipf:2: the hottest table gets 1/ζ(2) ≈ 61 % and 4× the second.
	hits = draw(t, "zipf:2", n, draws)
	first, second := 0, 0
	for _, h := range hits {
		if h > first {
			first, second = h, first
		} else if h > second {
			second = h
		}
	}
	if first < 0.58*draws || first > 0.64*draws || float64(first)/float64(second) < 3.5 || float64(first)/float64(second) > 4.5 {
		t.Fatalf("zipf:2: hottest %d, second %d of %d", first, second, draws)
	}
	// normal:0.5:0.1: ±1 σ (tables 40..59) holds ≈ 68 %.
	hits = draw(t, "normal:0.5:0.1", n, draws)
	mid := 0
	for i := 40; i < 60; i++ {
		mid += hits[i]
	}
	if mid < 0.64*draws || mid > 0.72*draws {
		t.Fatalf("normal: ±1σ holds %d of %d", mid, draws)
	}
	// uniform and sequential touch every table; sequential exactly evenly.
	for _, h := range draw(t, "uniform", n, draws) {
		if h < 800 || h > 1200 {
			t.Fatalf("uniform: a table chosen %d times of ≈ 1000", h)
		}
	}
	for _, h := range draw(t, "sequential", n, draws) {
		if h != draws/n {
			t.Fatalf("sequential: a table chosen %d times, want %d", h, draws/n)
		}
	}
}
