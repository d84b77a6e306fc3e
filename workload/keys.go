package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
)

// ErrBadKeys is returned by ParseKeys for a key distribution it cannot
// build.
var ErrBadKeys = errors.New("bad --keys")

// Keys is a key distribution: how a mix chooses which of the dataset's
// tables each operation touches. Hot keys make reads hit caches and
// commits conflict, as on a real platform. A Keys value is immutable and
// safe for concurrent use; the choosers it makes are not (one per worker).
type Keys struct {
	// Dist is the distribution: "uniform", "zipf", "hotspot", "normal" or
	// "sequential".
	Dist string
	// S is Zipf's exponent (> 1): the hottest table is chosen 2^S times as
	// often as the second.
	S float64
	// Fraction of the tables (0 < Fraction ≤ 1) receive Share (0 ≤ Share
	// ≤ 1) of the operations, for "hotspot".
	Fraction, Share float64
	// Mean and StdDev place a normal distribution on the tables in creation
	// order (neighbours share a namespace), as fractions of the table
	// count: normal:0.5:0.1 centres on the middle table.
	Mean, StdDev float64
}

// UniformKeys chooses every table with the same probability.
var UniformKeys = Keys{Dist: "uniform"}

// KeysHelp describes the accepted forms.
const KeysHelp = "uniform | zipf:S (S > 1) | hotspot:FRACTION:SHARE (FRACTION of the tables get SHARE of the operations) | " +
	"normal:MEAN:STDDEV (fractions of the table count, in creation order) | sequential (every table in turn)"

// ParseKeys reads a --keys value (see KeysHelp).
func ParseKeys(s string) (Keys, error) {
	s = strings.TrimSpace(s)
	name, rest, _ := strings.Cut(s, ":")
	var args []string
	if rest != "" || strings.HasSuffix(s, ":") {
		args = strings.Split(rest, ":")
	}
	nums := make([]float64, len(args))
	for i, a := range args {
		v, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Keys{}, fmt.Errorf("%w %q: %q is not a number", ErrBadKeys, s, a)
		}
		nums[i] = v
	}
	want := func(n int, form string) error {
		if len(nums) != n {
			return fmt.Errorf("%w %q: want %s", ErrBadKeys, s, form)
		}
		return nil
	}
	k := Keys{Dist: name}
	switch name {
	case "uniform", "sequential":
		if err := want(0, name); err != nil {
			return Keys{}, err
		}
	case "zipf":
		if err := want(1, "zipf:S"); err != nil {
			return Keys{}, err
		}
		k.S = nums[0]
		if !(k.S > 1) || k.S > 100 {
			return Keys{}, fmt.Errorf("%w %q: zipf exponent S must be > 1 (and ≤ 100)", ErrBadKeys, s)
		}
	case "hotspot":
		if err := want(2, "hotspot:FRACTION:SHARE"); err != nil {
			return Keys{}, err
		}
		k.Fraction, k.Share = nums[0], nums[1]
		if !(k.Fraction > 0 && k.Fraction <= 1) {
			return Keys{}, fmt.Errorf("%w %q: hotspot FRACTION %v must be in (0,1]", ErrBadKeys, s, k.Fraction)
		}
		if !(k.Share >= 0 && k.Share <= 1) {
			return Keys{}, fmt.Errorf("%w %q: hotspot SHARE %v must be in [0,1]", ErrBadKeys, s, k.Share)
		}
	case "normal":
		if err := want(2, "normal:MEAN:STDDEV"); err != nil {
			return Keys{}, err
		}
		k.Mean, k.StdDev = nums[0], nums[1]
		if !(k.Mean >= 0 && k.Mean <= 1) {
			return Keys{}, fmt.Errorf("%w %q: normal MEAN %v must be in [0,1] (a fraction of the tables)", ErrBadKeys, s, k.Mean)
		}
		if !(k.StdDev > 0 && k.StdDev <= 10) {
			return Keys{}, fmt.Errorf("%w %q: normal STDDEV %v must be in (0,10] (a fraction of the tables)", ErrBadKeys, s, k.StdDev)
		}
	default:
		return Keys{}, fmt.Errorf("%w %q: unknown distribution %q (want %s)", ErrBadKeys, s, name, KeysHelp)
	}
	return k, nil
}

// String is the distribution in ParseKeys' form; it goes on result lines.
func (k Keys) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch k.Dist {
	case "zipf":
		return "zipf:" + f(k.S)
	case "hotspot":
		return "hotspot:" + f(k.Fraction) + ":" + f(k.Share)
	case "normal":
		return "normal:" + f(k.Mean) + ":" + f(k.StdDev)
	case "":
		return "uniform"
	}
	return k.Dist
}

// KeySpace is a distribution over n tables, shared by the workers of one
// run: its fixed permutation (so the hot tables of zipf and hotspot are
// spread over the namespace tree, the same ones on every competitor) and
// the shared cursor of "sequential". Safe for concurrent use.
type KeySpace struct {
	k    Keys
	n    int
	perm []int
	hot  int // hotspot: the first hot entries of perm are hot
	seq  atomic.Int64
	seed uint64
}

// NewKeySpace is k over n tables, its permutation drawn from seed.
func NewKeySpace(k Keys, n int, seed uint64) *KeySpace {
	ks := &KeySpace{k: k, n: n, seed: seed}
	if n == 0 {
		return ks
	}
	ks.perm = rand.New(rand.NewPCG(seed, 0x6b6579)).Perm(n)
	ks.hot = min(n, max(1, int(math.Ceil(k.Fraction*float64(n)))))
	return ks
}

// Chooser returns worker w's key chooser: a function returning a table
// index below n, drawn from its own seeded source. Not safe for
// concurrent use.
func (ks *KeySpace) Chooser(r *rand.Rand) func() int {
	n := ks.n
	if n == 0 {
		return func() int { return 0 }
	}
	switch ks.k.Dist {
	case "zipf":
		z := rand.NewZipf(r, ks.k.S, 1, uint64(n-1))
		return func() int { return ks.perm[z.Uint64()] }
	case "hotspot":
		return func() int {
			if ks.hot == n || r.Float64() < ks.k.Share {
				return ks.perm[r.IntN(ks.hot)]
			}
			return ks.perm[ks.hot+r.IntN(n-ks.hot)]
		}
	case "normal":
		return func() int {
			// Redraw outside the tables (a truncated normal); after a few
			// misses clamp, so a wide STDDEV cannot spin.
			var x float64
			for range 16 {
				x = (ks.k.Mean + ks.k.StdDev*r.NormFloat64()) * float64(n)
				if x >= 0 && x < float64(n) {
					break
				}
			}
			return min(n-1, max(0, int(x)))
		}
	case "sequential":
		return func() int { return int((ks.seq.Add(1) - 1) % int64(n)) }
	}
	return func() int { return r.IntN(n) }
}
