package dataplane

import (
	"context"
	"slices"
	"testing"
)

// TestRegisterTimedRefusesIncompleteOrDuplicate: RegisterTimed panics at
// init on a scenario it could not run or whose name is taken, and leaves
// the registry as it was.
func TestRegisterTimedRefusesIncompleteOrDuplicate(t *testing.T) {
	round := func(context.Context, Lane, int) error { return nil }
	cases := map[string]Timed{
		"no data. prefix": {Name: "x", Doc: "d", Round: round},
		"no key":          {Name: "data.", Doc: "d", Round: round},
		"no round":        {Name: "data.x", Doc: "d"},
		"no doc":          {Name: "data.x", Round: round},
		"duplicate":       {Name: "data.overwrite", Doc: "d", Round: round},
	}
	before := Names(DefaultRows)
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterTimed(%q) did not panic", s.Name)
				}
			}()
			RegisterTimed(s)
		})
	}
	if after := Names(DefaultRows); !slices.Equal(after, before) {
		t.Errorf("the scenarios changed: %v, was %v", after, before)
	}
}
