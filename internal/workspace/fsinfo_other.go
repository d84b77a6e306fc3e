//go:build !linux

package workspace

// FileSystem is not examined off Linux: "".
func FileSystem(string) (desc string, noJournal bool) { return "", false }

// FileSystemNote has nothing to say off Linux.
func FileSystemNote(string) string { return "" }
