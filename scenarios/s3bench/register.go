package s3bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/minio/minio-go/v7"
)

// Operation is an S3 operation added from outside this package: one
// value in one file, registered with [Register] from an init function.
// The bench writes the object it reads once before the cells, gives every
// worker its key, times Do, counts Do's errors, and stamps the lines with
// the scenario s3.<Name> as it does the built-in operations (head, get,
// put, range, list).
type Operation struct {
	// Name is the operation's name on --s3-ops and, after "s3.", its
	// scenario's. It must be lower case and not registered yet.
	Name Op
	// Doc is one line for `katbench list` and --s3-ops's help.
	Doc string
	// Size, when not 0, is the operation's one cell size, the object it
	// reads (its lines' names carry it, as s3.range's do, and their dims
	// do not); 0 means the cells are Config.Sizes.
	Size int64
	// Do performs one operation on the object key of size bytes in
	// bucket. An error is a failed operation, counted on the line.
	Do func(ctx context.Context, c *minio.Client, bucket, key string, size int64) error
	// Moves says Do moves size bytes per operation: its lines carry mib_s.
	Moves bool
	// Params, when set, adds the operation's own params to a line of
	// cell size size.
	Params func(size int64, p map[string]any)
}

// Register adds op to the operations `katbench transport` measures and
// `katbench list` shows; call it from an init function. It panics on an
// incomplete or duplicate operation: a programming error found at init,
// never a user input.
func Register(op Operation) {
	if op.Name == "" || op.Do == nil || op.Doc == "" {
		panic(fmt.Sprintf("s3bench: Register(%q) needs a Name, a Doc and a Do", op.Name))
	}
	if n := string(op.Name); n != strings.ToLower(strings.TrimSpace(n)) {
		panic(fmt.Sprintf("s3bench: operation %q: not lower case", n))
	}
	registerOp(op.Name, &opSpec{
		doc:    op.Doc,
		size:   op.Size,
		object: func(size int64) int64 { return size },
		do:     func(w *worker, ctx context.Context) error { return op.Do(ctx, w.client, w.bucket, w.key, w.size) },
		moves:  op.Moves,
		params: func(_ Config, size int64, p map[string]any) {
			p["object_bytes"] = size
			if op.Params != nil {
				op.Params(size, p)
			}
		},
	})
}
