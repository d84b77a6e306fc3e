package s3bench

import (
	"context"
	"testing"

	"github.com/minio/minio-go/v7"
)

// TestRegisterRefusesIncompleteOrDuplicate: Register panics at init on an
// operation it could not run or whose name is taken, and leaves the
// registry as it was.
func TestRegisterRefusesIncompleteOrDuplicate(t *testing.T) {
	do := func(context.Context, *minio.Client, string, string, int64) error { return nil }
	cases := map[string]Operation{
		"no name":    {Doc: "d", Do: do},
		"no do":      {Name: "x1", Doc: "d"},
		"no doc":     {Name: "x2", Do: do},
		"upper case": {Name: "X3", Doc: "d", Do: do},
		"duplicate":  {Name: Head, Doc: "d", Do: do},
	}
	before := OpsDoc()
	for name, op := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", op)
				}
			}()
			Register(op)
		})
	}
	if after := OpsDoc(); after != before {
		t.Errorf("the operations changed: %q, was %q", after, before)
	}
}
