package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// fsNames are the file systems a work dir is commonly on, by statfs magic.
var fsNames = map[int64]string{
	unix.EXT4_SUPER_MAGIC:      "ext4",
	unix.XFS_SUPER_MAGIC:       "xfs",
	unix.BTRFS_SUPER_MAGIC:     "btrfs",
	unix.TMPFS_MAGIC:           "tmpfs",
	unix.OVERLAYFS_SUPER_MAGIC: "overlay",
	unix.F2FS_SUPER_MAGIC:      "f2fs",
	unix.NFS_SUPER_MAGIC:       "nfs",
}

// FileSystem describes the file system dir is on, for the params of a
// line whose numbers depend on it: its type ("ext4", "xfs", "tmpfs", …, or
// the statfs magic), and for ext4 whether it keeps a journal. noJournal
// is true for ext4 without one. "" when dir cannot be examined.
func FileSystem(dir string) (desc string, noJournal bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return "", false
	}
	name, ok := fsNames[int64(st.Type)] //nolint:unconvert // Type's width differs between ports
	if !ok {
		return fmt.Sprintf("statfs type %#x", st.Type), false
	}
	if name != "ext4" {
		return name, false
	}
	switch ext4Journal(dir) {
	case "none":
		return "ext4 (no journal)", true
	case "yes":
		return "ext4 (journal)", false
	}
	return "ext4", false
}

// ext4Journal reads whether the ext4 file system holding dir has a
// journal from /sys/fs/ext4/<device>/journal_task ("<none>" without
// one): "yes", "none", or "" when it cannot tell.
func ext4Journal(dir string) string {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return ""
	}
	dev, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))) //nolint:unconvert
	if err != nil {
		return ""
	}
	raw, err := os.ReadFile(filepath.Join("/sys/fs/ext4", filepath.Base(dev), "journal_task"))
	if err != nil {
		return ""
	}
	if strings.TrimSpace(string(raw)) == "<none>" {
		return "none"
	}
	return "yes"
}

// FileSystemNote is what a command says on stderr before writing under
// dir when the numbers it measures there depend on the file system's
// recent past, or "" when there is nothing to say.
func FileSystemNote(dir string) string {
	if _, noJournal := FileSystem(dir); !noJournal {
		return ""
	}
	return fmt.Sprintf("note: %s is on ext4 without a journal. Such an ext4 does not reuse an inode freed in the last minute "+
		"(five while its inode table block is not yet written back) and scans past each of them when it allocates one, "+
		"so creating files and directories is slower for minutes after a large delete, such as the removal of an earlier run's temp dir; "+
		"write numbers then depend on what ran before. For comparable write numbers, use --dir on a file system with a journal, "+
		"or start after a few idle minutes", dir)
}
