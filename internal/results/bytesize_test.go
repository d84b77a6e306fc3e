package results

import (
	"errors"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	for _, c := range []struct {
		in      string
		max     int64
		want    int64
		tooLong bool
		bad     bool
	}{
		{"4KiB", 1 << 30, 4096, false, false},
		{" 1 mib ", 1 << 30, 1 << 20, false, false},
		{"512B", 1 << 30, 512, false, false},
		{"1000", 1 << 30, 1000, false, false},
		{"1GiB", 1 << 30, 1 << 30, false, false},
		{"2GiB", 1 << 30, 0, true, true},
		{"-1", 1 << 30, 0, false, true},
		{"4K", 1 << 30, 0, false, true},
		{"", 1 << 30, 0, false, true},
	} {
		n, err := ParseByteSize(c.in, c.max)
		if got := err != nil; got != c.bad || n != c.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d, error %v", c.in, n, err, c.want, c.bad)
		}
		if c.bad && !errors.Is(err, ErrByteSize) {
			t.Errorf("ParseByteSize(%q) error %v does not wrap ErrByteSize", c.in, err)
		}
		if errors.Is(err, ErrByteSizeTooLarge) != c.tooLong {
			t.Errorf("ParseByteSize(%q) too large = %v, want %v", c.in, !c.tooLong, c.tooLong)
		}
	}
}

func FuzzParseByteSize(f *testing.F) {
	for _, s := range []string{"4KiB", "1GiB", "512b", "9223372036854775807", "-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseByteSize(s, 1<<40)
		if err == nil && (n < 0 || n > 1<<40) {
			t.Fatalf("ParseByteSize(%q) = %d, outside 0..1TiB", s, n)
		}
	})
}
