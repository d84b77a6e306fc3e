package dataplane

import "testing"

// FuzzParseRows: any input either fails with ErrBadOption or yields a
// positive count that FormatRows writes back to the same count.
func FuzzParseRows(f *testing.F) {
	for _, s := range []string{"100k", "2M", "1_500", "0", "-1", "k", "9223372036854775807", "4611686018427387904M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseRows(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("ParseRows(%q) = %d with error %v", s, n, err)
			}
			return
		}
		if n < 1 {
			t.Fatalf("ParseRows(%q) = %d", s, n)
		}
		back, err := ParseRows(FormatRows(n))
		if err != nil || back != n {
			t.Fatalf("FormatRows(%d) = %q parses to %d, %v", n, FormatRows(n), back, err)
		}
	})
}
