package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// tablesValue is the --tables flag: one size (the dataset's tables) or
// several, ascending, for a growth sweep. Sizes take k and M suffixes
// (1k = 1,000; 1M = 1,000,000).
type tablesValue struct {
	one   *int
	sizes *[]int
}

func (v tablesValue) String() string {
	if v.sizes != nil && len(*v.sizes) > 1 {
		parts := make([]string, len(*v.sizes))
		for i, n := range *v.sizes {
			parts[i] = strconv.Itoa(n)
		}
		return strings.Join(parts, ",")
	}
	if v.one == nil {
		return "0"
	}
	return strconv.Itoa(*v.one)
}

func (v tablesValue) Type() string { return "sizes" }

func (v tablesValue) Set(s string) error {
	sizes, err := ParseSizes(s)
	if err != nil {
		return err
	}
	*v.one = sizes[0]
	*v.sizes = nil
	if len(sizes) > 1 {
		*v.sizes = sizes
	}
	return nil
}

// ParseSizes parses "1k,10k,100k,1M": positive counts with optional k or
// M suffixes, strictly ascending (a growth sweep only adds tables).
func ParseSizes(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		mult := 1
		switch {
		case strings.HasSuffix(part, "k"), strings.HasSuffix(part, "K"):
			mult, part = 1000, part[:len(part)-1]
		case strings.HasSuffix(part, "M"):
			mult, part = 1_000_000, part[:len(part)-1]
		}
		n, err := strconv.Atoi(part)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a count of tables like 200, 1k or 1M", s)
		}
		out = append(out, n*mult)
	}
	if !slices.IsSorted(out) || len(slices.Compact(slices.Clone(out))) != len(out) {
		return nil, fmt.Errorf("%q: sizes of a growth sweep must be ascending, each once", s)
	}
	return out, nil
}
