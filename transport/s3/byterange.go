package s3

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// errRange reports a Range header the control cannot satisfy.
var errRange = errors.New("unsatisfiable range")

// ParseRange parses one "bytes=" range against an object of size bytes and
// returns inclusive bounds. Multiple ranges are not supported.
func ParseRange(s string, size int64) (start, end int64, err error) {
	spec, ok := strings.CutPrefix(s, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0, 0, fmt.Errorf("%w: %q", errRange, s)
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return 0, 0, fmt.Errorf("%w: %q", errRange, s)
	}
	switch {
	case first == "": // suffix: the last N bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n <= 0 || size == 0 {
			return 0, 0, fmt.Errorf("%w: %q", errRange, s)
		}
		if n > size {
			n = size
		}
		return size - n, size - 1, nil
	default:
		start, err = strconv.ParseInt(first, 10, 64)
		if err != nil || start < 0 || start >= size {
			return 0, 0, fmt.Errorf("%w: %q", errRange, s)
		}
		end = size - 1
		if last != "" {
			e, err := strconv.ParseInt(last, 10, 64)
			if err != nil || e < start {
				return 0, 0, fmt.Errorf("%w: %q", errRange, s)
			}
			if e < end {
				end = e
			}
		}
		return start, end, nil
	}
}
