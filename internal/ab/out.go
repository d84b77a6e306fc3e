package ab

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultOut is where a session's lines go when --out is not given:
// beside the history file that the command after -- appends to (its
// --history), else in the system's temporary directory; never the working
// directory. The name is ab-<UTC time>.jsonl.
func DefaultOut(args []string, now time.Time) string {
	name := "ab-" + now.UTC().Format("20060102T150405Z") + ".jsonl"
	if h := historyArg(args); h != "" {
		return filepath.Join(filepath.Dir(h), name)
	}
	return filepath.Join(os.TempDir(), name)
}

// historyArg is the value of --history in a katbench command line ("" when
// it has none); the last one wins, as the flag parser does.
func historyArg(args []string) string {
	h := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--history="); ok {
			h = v
		} else if a == "--history" && i+1 < len(args) {
			h = args[i+1]
		}
	}
	return h
}
