package servercost

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// pgDatabaseDir matches a file of one PostgreSQL database: base/<oid>/….
var pgDatabaseDir = regexp.MustCompile(`^(.*/base/[0-9]+)/[^/]+$`)

// storeParts returns the files and directories holding the catalog's
// store among the regular files processes pids hold open: a PostgreSQL
// database's directory (base/<oid>), a RocksDB directory (one holding
// *.sst files), a bbolt or SQLite file with its journal. Jars, libraries
// and logs are not stores and are not counted.
func storeParts(pids []int) []string {
	var out []string
	for _, pid := range pids {
		dir := fmt.Sprintf("%s/%d/fd", procRoot, pid)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			target, err := os.Readlink(dir + "/" + e.Name())
			if err != nil || !strings.HasPrefix(target, "/") {
				continue
			}
			target = strings.TrimSuffix(target, " (deleted)")
			if p := storePart(target); p != "" {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// storePart maps one open file to the store part it belongs to, "" for
// none.
func storePart(path string) string {
	if m := pgDatabaseDir.FindStringSubmatch(path); m != nil {
		return m[1]
	}
	switch filepath.Ext(path) {
	case ".sst":
		return filepath.Dir(path)
	case ".db", ".sqlite", ".sqlite3", ".bolt":
		return path
	}
	return ""
}

// storeBytes sums the bytes of parts: every regular file under a
// directory, a file with its -wal, -shm and -journal companions.
func storeBytes(parts []string) (int64, error) {
	var total int64
	for _, p := range parts {
		st, err := os.Stat(p)
		if err != nil {
			return 0, err
		}
		if !st.IsDir() {
			total += st.Size()
			for _, sfx := range []string{"-wal", "-shm", "-journal"} {
				if c, err := os.Stat(p + sfx); err == nil {
					total += c.Size()
				}
			}
			continue
		}
		err = filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					total += info.Size()
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return total, nil
}
