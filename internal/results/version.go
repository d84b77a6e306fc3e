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
	commit := "commit not recorded (built without version control information)"
	if c.Known() {
		state := "clean"
		switch {
		case !c.TreeKnown():
			state = "unchecked"
		case c.Dirty:
			state = "dirty"
		}
		commit = fmt.Sprintf("commit %s (%s)", c.SHA, state)
	}
	return fmt.Sprintf("katbench %s, %s, %s %s/%s", mod, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
