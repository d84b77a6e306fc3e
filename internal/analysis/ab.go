package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNotAB is returned by SplitAB for lines that were not written by
// `katbench ab`.
var ErrNotAB = errors.New("not an ab session")

// SplitAB splits the lines of a `katbench ab` session into its OLD and NEW
// sides by each line's ab.side. A line without one is an error: a file
// that mixes sessions with other runs cannot be split honestly.
func SplitAB(lines []Line) (old, new []Line, err error) {
	for _, l := range lines {
		var tag struct {
			Side string `json:"side"`
		}
		b, ok := l.raw["ab"]
		if !ok || json.Unmarshal(b, &tag) != nil {
			return nil, nil, fmt.Errorf("%w: %s has no ab.side", ErrNotAB, l.Where())
		}
		switch tag.Side {
		case "old":
			old = append(old, l)
		case "new":
			new = append(new, l)
		default:
			return nil, nil, fmt.Errorf("%w: %s: ab.side %q, want old or new", ErrNotAB, l.Where(), tag.Side)
		}
	}
	if len(old) == 0 || len(new) == 0 {
		return nil, nil, fmt.Errorf("%w: %d OLD and %d NEW lines", ErrNotAB, len(old), len(new))
	}
	return old, new, nil
}
