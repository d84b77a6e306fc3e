package bench

import (
	"errors"
	"fmt"
)

// ErrSettings wraps every error of a bench's settings (an [OptionError],
// and every error of scenarios.Settings.Options): a setting a user gave
// is wrong, and nothing has been created.
var ErrSettings = errors.New("bad settings")

// OptionError is a bad value of one option of a bench as a command line
// gives it; Option is the flag's name without dashes. Commands report it
// as a usage error (exit 2) before anything runs.
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return fmt.Sprintf("--%s: %v", e.Option, e.Err) }

// Unwrap gives ErrSettings (a bad option is bad settings: exit 2 in
// cmd) and the value's own error.
func (e *OptionError) Unwrap() []error { return []error{ErrSettings, e.Err} }

// OptionErr wraps err as a bad value of option; nil stays nil.
func OptionErr(option string, err error) error {
	if err == nil {
		return nil
	}
	return &OptionError{Option: option, Err: err}
}

// OptionErrf is OptionErr of a formatted message.
func OptionErrf(option, format string, args ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf(format, args...)}
}

// Select parses globs against names (ParseSelectorOf) as the --scenario
// option: the selection's Selects, or nil for every scenario.
func Select(globs string, names []string) (func(string) bool, error) {
	sel, err := ParseSelectorOf(globs, names)
	if err != nil {
		return nil, OptionErr("scenario", err)
	}
	if sel == nil {
		return nil, nil
	}
	return sel.Selects, nil
}
