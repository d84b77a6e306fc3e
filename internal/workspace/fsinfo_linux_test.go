package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileSystem checks the description against other accounts the
// kernel gives of the mount: the type /proc/self/mountinfo gives for the
// mount holding the directory, and for ext4 whether jbd2 runs a journal
// for its device (/proc/fs/jbd2/<device>-<n>), which FileSystem does not
// read.
func TestFileSystem(t *testing.T) {
	dirs := []string{t.TempDir(), "/proc", "/dev/shm"}
	if d := os.Getenv("KATBENCH_FS_PROBE_DIR"); d != "" {
		dirs = append(dirs, d) // e.g. a journaled ext4 mounted for the test
	}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		desc, noJournal := FileSystem(dir)
		want, source := mountType(t, dir)
		t.Logf("%s: %q (mountinfo type %q)", dir, desc, want)
		if desc == "" {
			t.Fatalf("%s: no description", dir)
		}
		if want != "" && fsNamesHas(want) && !strings.HasPrefix(desc, want) {
			t.Errorf("%s: described as %q, mountinfo says %q", dir, desc, want)
		}
		if want == "ext4" {
			journals, _ := filepath.Glob("/proc/fs/jbd2/" + filepath.Base(source) + "-*")
			if noJournal != (len(journals) == 0) {
				t.Errorf("%s on %s: noJournal %v, jbd2 journals %v", dir, source, noJournal, journals)
			}
		}
		if noJournal != strings.Contains(desc, "no journal") {
			t.Errorf("%s: noJournal %v but described as %q", dir, noJournal, desc)
		}
		if note := FileSystemNote(dir); (note != "") != noJournal {
			t.Errorf("%s: note %q with noJournal %v", dir, note, noJournal)
		}
	}
	if desc, _ := FileSystem("/no/such/dir"); desc != "" {
		t.Errorf("missing dir described as %q", desc)
	}
}

func fsNamesHas(name string) bool {
	for _, n := range fsNames {
		if n == name {
			return true
		}
	}
	return false
}

// mountType returns the type and source of the mount holding dir, the
// longest mount point that prefixes it in /proc/self/mountinfo.
func mountType(t *testing.T, dir string) (typ, source string) {
	raw, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	best := ""
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+2 >= len(f) || len(f) < 5 {
			continue
		}
		mp := f[4]
		if (dir == mp || strings.HasPrefix(dir, strings.TrimSuffix(mp, "/")+"/")) && len(mp) >= len(best) {
			best, typ, source = mp, f[sep+1], f[sep+2]
		}
	}
	return typ, source
}
