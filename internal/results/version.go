package results

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is what `katbench --version` prints: the module version, the
// commit the binary was built from and whether its tree was dirty, and the
// Go toolchain.
func Version() string {
	mod := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		mod = bi.Main.Version
	}
	c := ThisCommit()
	commit := "commit " + CommitNotRecorded
	if c.Known() {
		commit = fmt.Sprintf("commit %s (%s)", c.SHA, c.TreeState())
	}
	return fmt.Sprintf("katbench %s, %s, %s %s/%s", mod, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
