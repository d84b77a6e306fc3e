package registry

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestRegistry: values by name, names sorted, and a name registered twice
// is ErrDuplicate with the first value kept.
func TestRegistry(t *testing.T) {
	var r Registry[int]
	if _, ok := r.Lookup("a"); ok || len(r.Names()) != 0 {
		t.Fatal("the zero Registry is not empty")
	}
	for _, n := range []string{"b", "a", "c"} {
		if err := r.Register(n, len(n)+int(n[0])); err != nil {
			t.Fatal(err)
		}
	}
	err := r.Register("a", -1)
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), "a") {
		t.Errorf("second a: %v, want ErrDuplicate naming it", err)
	}
	if v, ok := r.Lookup("a"); !ok || v != 1+'a' {
		t.Errorf("Lookup(a) = %d, %v; want the first value %d", v, ok, 1+'a')
	}
	if got := r.Names(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Names = %v", got)
	}
	if got := r.Values(); !slices.Equal(got, []int{1 + 'a', 1 + 'b', 1 + 'c'}) {
		t.Errorf("Values = %v, want in name order", got)
	}
}
