package workload

import (
	"github.com/nordisk/katbench/internal/pacer"
)

// Workload is a mix run: the mix, its key distribution, its seed and its
// arrivals; what scenarios.Options.Workload holds when a mix replaces the
// scenarios. A Workload is immutable and safe for concurrent use.
type Workload struct {
	Mix Mix
	// Keys chooses each operation's table (Mix.Keys when zero).
	Keys Keys
	// Seed seeds every random choice (operation, table, Poisson gap); the
	// same seed gives every competitor the same sequence per worker.
	Seed uint64
	// Arrivals spaces an open loop's due times (constant or poisson).
	Arrivals pacer.Arrivals
}

// KeysUsed is the key distribution the run uses: Keys, or the mix's own
// when Keys is zero (uniform when neither is set).
func (w *Workload) KeysUsed() Keys {
	if w.Keys.Dist == "" {
		if w.Mix.Keys.Dist == "" {
			return UniformKeys
		}
		return w.Mix.Keys
	}
	return w.Keys
}

// Weighted returns the mix's operations with a positive weight, in order.
func (w *Workload) Weighted() []Weight {
	var out []Weight
	for _, x := range w.Mix.Weights {
		if x.Weight > 0 {
			out = append(out, x)
		}
	}
	return out
}

// Params are the params every line of the mix carries.
func (wl *Workload) Params() map[string]any {
	return map[string]any{"mix": wl.Mix.Name, "mix_weights": wl.Mix.String(), "keys": wl.KeysUsed().String(), "seed": wl.Seed}
}
