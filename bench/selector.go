package bench

import (
	"fmt"
	"path"
	"strings"
)

// Selector chooses scenarios by glob (path.Match syntax, comma-separated
// alternatives). The empty selector chooses everything.
type Selector []string

// ParseSelectorOf is ParseSelector against the given names: the one glob
// rule of every command that runs scenarios.
func ParseSelectorOf(globs string, names []string) (Selector, error) {
	if strings.TrimSpace(globs) == "" {
		return nil, nil
	}
	var sel Selector
	for _, g := range strings.Split(globs, ",") {
		g = strings.TrimSpace(g)
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("bad scenario glob %q: %w", g, err)
		}
		matched := false
		for _, n := range names {
			if ok, _ := path.Match(g, n); ok {
				matched = true
				break
			}
		}
		if !matched {
			return nil, fmt.Errorf("scenario %q matches nothing (valid: %s)", g, strings.Join(names, ", "))
		}
		sel = append(sel, g)
	}
	return sel, nil
}

// Selects reports whether name is chosen.
func (s Selector) Selects(name string) bool {
	if len(s) == 0 {
		return true
	}
	for _, g := range s {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
