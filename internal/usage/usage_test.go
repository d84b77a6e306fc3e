package usage

import (
	"errors"
	"io/fs"
	"testing"
)

var errKind = errors.New("bad test settings")

func TestErrorIsKindAndCause(t *testing.T) {
	err := Errorf(errKind, "--dir %s: %w", "/x", fs.ErrNotExist)
	if got, want := err.Error(), "--dir /x: "+fs.ErrNotExist.Error(); got != want {
		t.Fatalf("message %q, want %q (the cause's own, no prefix)", got, want)
	}
	if !errors.Is(err, errKind) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%v: errors.Is finds kind %v, cause %v; want both", err, errors.Is(err, errKind), errors.Is(err, fs.ErrNotExist))
	}
	var ue Error
	if !errors.As(err, &ue) || ue.Kind != errKind {
		t.Fatalf("errors.As(%v) = %+v, want an Error of kind %v", err, ue, errKind)
	}
	if errors.Is(Errorf(errKind, "plain"), fs.ErrNotExist) {
		t.Fatal("an error without %w is not its format's arguments")
	}
}

func TestWrap(t *testing.T) {
	if Wrap(errKind, nil) != nil {
		t.Fatal("Wrap(kind, nil) is not nil")
	}
	cause := errors.New("rows must be positive")
	err := Wrap(errKind, cause)
	if err.Error() != cause.Error() || !errors.Is(err, errKind) || !errors.Is(err, cause) {
		t.Fatalf("Wrap = %v: want the cause's message, is kind and cause", err)
	}
}
