package registry

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ErrDuplicate is the error of registering a name twice.
var ErrDuplicate = errors.New("registered twice")

// Registry holds values of type T by name: scenarios, operations, what a
// bench registers in its init functions. The zero value is empty and
// ready; a Registry is safe for concurrent use.
type Registry[T any] struct {
	mu     sync.RWMutex
	byName map[string]T
}

// Register adds v under name. A name registered before is an error
// (wrapping ErrDuplicate) and leaves the registry as it was.
func (r *Registry[T]) Register(name string, v T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byName[name]; dup {
		return fmt.Errorf("%s: %w", name, ErrDuplicate)
	}
	if r.byName == nil {
		r.byName = map[string]T{}
	}
	r.byName[name] = v
	return nil
}

// Lookup returns the value registered under name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.byName[name]
	return v, ok
}

// Names returns every registered name, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sortedNames()
}

// Values returns every registered value, in the order of their names.
func (r *Registry[T]) Values() []T {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := r.sortedNames()
	out := make([]T, len(names))
	for i, n := range names {
		out[i] = r.byName[n]
	}
	return out
}

// sortedNames is Names for a caller holding r.mu.
func (r *Registry[T]) sortedNames() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
