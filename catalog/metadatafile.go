package catalog

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// fsFor returns the IO (and a table.FSysF returning it) for a metadata
// location. Locations under the warehouse's scheme and host share the IO
// loaded at Open; others get their own, configured with the catalog's IO
// properties overlaid with the table's properties.
func (c *Catalog) fsFor(ctx context.Context, loc string, tableProps iceberg.Properties) (icebergio.IO, table.FSysF, error) {
	if schemeHost(loc) == c.whPrefix {
		return c.whFS, c.whFSF, nil
	}
	props := maps.Clone(c.ioProps)
	if props == nil {
		props = iceberg.Properties{}
	}
	maps.Copy(props, tableProps)
	fsys, err := icebergio.LoadFS(ctx, props, loc)
	if err != nil {
		return nil, nil, fmt.Errorf("load IO for %s: %w", loc, err)
	}
	return fsys, func(context.Context) (icebergio.IO, error) { return fsys, nil }, nil
}

// newMetadataLocation names version's metadata file for meta:
// <metadata dir>/<5-digit version>-<uuid>.metadata.json, where the metadata
// dir honours the table's write.metadata.path property. Files are always
// plain JSON, whatever the compression property says, so that the stored
// bytes can be served as they are.
func newMetadataLocation(meta table.Metadata, version int) (string, error) {
	provider, err := table.LoadLocationProvider(meta.Location(), meta.Properties())
	if err != nil {
		return "", fmt.Errorf("location provider for %s: %w", meta.Location(), err)
	}
	return provider.NewMetadataLocation(fmt.Sprintf("%05d-%s.metadata.json", version, uuid.New())), nil
}

// metadataVersion parses the version from a metadata file name written by
// newMetadataLocation (or by another catalog using the same convention, or
// the legacy v<N>.metadata.json form). It returns -1 when there is none.
func metadataVersion(loc string) int {
	name := loc[strings.LastIndexByte(loc, '/')+1:]
	digits := name
	if i := strings.IndexByte(name, '-'); i > 0 {
		digits = name[:i]
	} else if strings.HasPrefix(name, "v") {
		digits = strings.TrimPrefix(strings.SplitN(name, ".", 2)[0], "v")
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v < 0 {
		return -1
	}
	return v
}

// writeMetadata writes raw to loc. In Immediate mode a local file is not
// fsynced here: writeMetadata returns it as a fileSync, with the directories
// its durability needs (see dirTracker), and the commit step that commits
// its pointer makes it durable first, together with the rest of its batch
// (see Catalog.syncFiles). The caller passes the fileSync with its op and
// releases it once the commit returned; it is nil when there is nothing to
// sync. In Eventual mode the paths are handed to the syncer. Non-local IOs
// (S3) are durable when Close returns.
func (c *Catalog) writeMetadata(ctx context.Context, loc string, raw []byte, tableProps iceberg.Properties) (file *fileSync, err error) {
	fsys, _, err := c.fsFor(ctx, loc, tableProps)
	if err != nil {
		return nil, err
	}
	wfs, ok := fsys.(icebergio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("write metadata %s: IO %T cannot write", loc, fsys)
	}

	local, isLocal := localPath(loc)
	var noted []string // Eventual: directories whose entries will change
	switch {
	case isLocal && c.durability == Immediate:
		file = &fileSync{path: local, plan: c.dirs.plan(filepath.Dir(local))}
		defer func() {
			if err != nil {
				file.release()
				file = nil
			}
		}()
	case isLocal && c.durability == Eventual:
		noted = dirsToSync(filepath.Dir(local))
	}

	w, err := wfs.Create(loc)
	if err != nil {
		return nil, fmt.Errorf("write metadata %s: %w", loc, err)
	}
	if _, err := w.Write(raw); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("write metadata %s: %w", loc, err)
	}
	if s, ok := w.(syncCloser); ok && file != nil {
		// Kept open for a lone-file sync step, which fsyncs it without
		// opening it again; release closes it.
		file.f = s
		return file, nil
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("write metadata %s: close: %w", loc, err)
	}
	if isLocal && c.durability == Eventual {
		c.syncer.note(append(noted, local)...)
	}
	return file, nil
}

// removeMetadata deletes a metadata file that will never be committed. It is
// best effort: a leftover file is harmless because no pointer names it.
func (c *Catalog) removeMetadata(ctx context.Context, loc string, tableProps iceberg.Properties) {
	fsys, _, err := c.fsFor(context.WithoutCancel(ctx), loc, tableProps)
	if err == nil {
		_ = fsys.Remove(loc)
	}
}

// readMetadata reads and parses the metadata file at loc.
func (c *Catalog) readMetadata(ctx context.Context, loc string) (table.Metadata, []byte, table.FSysF, error) {
	fsys, fsF, err := c.fsFor(ctx, loc, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	rf, ok := fsys.(icebergio.ReadFileIO)
	var raw []byte
	if ok {
		raw, err = rf.ReadFile(loc)
	} else {
		raw, err = readAll(fsys, loc)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read metadata %s: %w", loc, err)
	}
	meta, err := table.ParseMetadataBytes(raw)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parse metadata %s: %w", loc, err)
	}
	return meta, raw, fsF, nil
}

func readAll(fsys icebergio.IO, loc string) ([]byte, error) {
	f, err := fsys.Open(loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, st.Size())
	n, err := f.Read(buf)
	for n < len(buf) && err == nil {
		var m int
		m, err = f.Read(buf[n:])
		n += m
	}
	if n == len(buf) {
		err = nil
	}
	return buf[:n], err
}

// localPath returns the local file path of a file:// URI or a plain absolute
// path, and whether loc is local at all.
func localPath(loc string) (string, bool) {
	if strings.HasPrefix(loc, "/") {
		return loc, true
	}
	u, err := url.Parse(loc)
	if err != nil || !strings.EqualFold(u.Scheme, "file") {
		return "", false
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}
