// Package usage marks errors that are the user's input: a flag, argument
// or environment value that is wrong, found before anything was created.
// Each package that checks input keeps its own sentinel (bench,
// workspace and serve each have an ErrSettings) so a caller can tell whose
// check failed; this package gives them one error type, so the message is
// the cause's own and errors.Is finds both the sentinel and the cause.
package usage

import "fmt"

// Error is bad input: it reads as Err and is both Kind (a package's
// sentinel) and Err for errors.Is and errors.As.
type Error struct {
	Kind error // the checking package's sentinel, e.g. bench.ErrSettings
	Err  error // what is wrong, in the user's words
}

func (e Error) Error() string   { return e.Err.Error() }
func (e Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// Errorf is an Error of kind with a message as fmt.Errorf makes it (%w
// wraps as there).
func Errorf(kind error, format string, args ...any) error {
	return Error{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// Wrap is err as an Error of kind; nil stays nil.
func Wrap(kind, err error) error {
	if err == nil {
		return nil
	}
	return Error{Kind: kind, Err: err}
}
