package results

import (
	"errors"
	"strconv"
	"strings"
)

// ErrByteSize is wrapped by every error of ParseByteSize;
// ErrByteSizeTooLarge also by the one for a size above its bound.
var (
	ErrByteSize         = errors.New("not a byte size")
	ErrByteSizeTooLarge = errors.New("byte size too large")
)

// ParseByteSize reads a byte count such as "4KiB", "1MiB", "1GiB", "512B"
// or "1000" (binary units, case-insensitive, spaces allowed before the
// unit) of at most max bytes. It is the one parser of sizes on the command
// line: object sizes, a neighbour's file and its rate.
func ParseByteSize(s string, max int64) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"b", 1}} {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, ErrByteSize
	}
	if n > max/mult {
		return 0, errors.Join(ErrByteSize, ErrByteSizeTooLarge)
	}
	return n * mult, nil
}
