package bench

// Interleave calls fn(round, lane) once for every round and lane, in the
// one order every katbench benchmark measures in (see [Lane]): the lanes
// in order on even rounds and reversed on odd ones (A B C, C B A, A B C,
// …), so drift of the machine over a run hits every lane alike. It stops
// at the first error fn returns and returns it. Catalog targets, S3
// transports and data-plane lanes are all lanes here.
func Interleave(rounds, lanes int, fn func(round, lane int) error) error {
	for round := range rounds {
		for j := range lanes {
			if err := fn(round, Lane(round, j, lanes)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Lane is the lane measured j-th of lanes in round round of [Interleave]'s
// order, for a loop whose number of rounds is not known ahead (a capacity
// search steps until every lane is done).
func Lane(round, j, lanes int) int {
	if round%2 == 1 {
		return lanes - 1 - j
	}
	return j
}
