package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"
)

// fsFor returns the IO (and a table.FSysF returning it) for a metadata
// file location, after checking loc against the location rule: a location
// outside the warehouse and the allowed roots is refused with
// ErrInvalidLocation, whoever asked. The IO is one of those loaded at Open
// from the catalog's own IO properties (Options.IOProps), one per scheme
// and host of the roots; nothing a table or a client says (its properties,
// an s3.endpoint or a key in them) ever configures it, so the catalog's
// credentials go only to the store the catalog was configured for.
func (c *Catalog) fsFor(loc string) (icebergio.IO, table.FSysF, error) {
	_, r, err := c.locations.match("metadata location", loc)
	if err != nil {
		return nil, nil, err
	}
	fs, err := c.ioAt(loc, r)
	if err != nil {
		return nil, nil, err
	}
	return fs.io, fs.f, nil
}

// ioAt is the IO loaded for the root loc (parsed as r) is under.
func (c *Catalog) ioAt(loc string, r locationRoot) (rootIO, error) {
	fs, ok := c.ios[r.scheme+"://"+r.host]
	if !ok {
		return rootIO{}, fmt.Errorf("%w %q: no IO for %s://%s", ErrInvalidLocation, loc, r.scheme, r.host)
	}
	return fs, nil
}

// rootIO is an IO loaded at Open and its table.FSysF.
type rootIO struct {
	io icebergio.IO
	f  table.FSysF
}

// loadRootIOs loads one IO per scheme and host of the policy's roots, from
// the catalog's own IO properties; the warehouse's is c.whFS.
func (c *Catalog) loadRootIOs(ctx context.Context) error {
	c.ios = make(map[string]rootIO, len(c.locations.roots))
	for i, r := range c.locations.roots {
		key := r.scheme + "://" + r.host
		if _, ok := c.ios[key]; ok {
			continue
		}
		fsys := c.whFS
		if i > 0 {
			var err error
			if fsys, err = icebergio.LoadFS(ctx, c.ioProps, r.String()); err != nil {
				return fmt.Errorf("load IO for allowed location %s: %w", r, err)
			}
		}
		c.ios[key] = rootIO{io: fsys, f: func(context.Context) (icebergio.IO, error) { return fsys, nil }}
	}
	return nil
}

// metadataFile is a metadata file about to be written: its location, the
// location parsed, and the IO that writes it.
type metadataFile struct {
	loc string
	at  locationRoot
	io  rootIO
}

// newMetadataFile names version's metadata file for a table or view with
// location loc and properties props:
// <metadata dir>/<5-digit version>-<uuid>.metadata.json, where the metadata
// dir is write.metadata.path when set, else <location>/metadata; the
// location and every location property must pass the location rule (see
// metadataDir). Files are always plain JSON, whatever the compression
// property says, so that the stored bytes can be served as they are.
// known is loc already checked, when the caller has it (see metadataDir).
func (c *Catalog) newMetadataFile(loc string, props iceberg.Properties, version int, known *checkedLocation) (metadataFile, error) {
	dir, at, err := c.metadataDir(loc, props, known)
	if err != nil {
		return metadataFile{}, err
	}
	return c.fileIn(dir, at, metadataFileName(version, uuid.New()))
}

// metadataFileName is <version, at least 5 digits>-<id>.metadata.json, as
// fmt's "%05d-%s.metadata.json" writes it, for a version of 0 or more.
func metadataFileName(version int, id uuid.UUID) string {
	var d [20]byte
	digits := strconv.AppendInt(d[:0], int64(version), 10)
	var b strings.Builder
	b.Grow(5 + len(digits) + 1 + 36 + len(".metadata.json"))
	for range 5 - len(digits) {
		b.WriteByte('0')
	}
	b.Write(digits)
	b.WriteByte('-')
	b.WriteString(id.String())
	b.WriteString(".metadata.json")
	return b.String()
}

// fileIn is the file name in the directory dir, which passed the location
// rule and parses as at: a name of digits, letters, '-' and '.' needs no
// escaping and keeps the file under dir, so the file's location is not
// parsed again.
func (c *Catalog) fileIn(dir string, at locationRoot, name string) (metadataFile, error) {
	f := metadataFile{loc: dir + "/" + name, at: at}
	f.at.path += "/" + name
	var err error
	f.io, err = c.ioAt(f.loc, f.at)
	return f, err
}

// localPath is the file's path when it is a local file.
func (f metadataFile) localPath() (string, bool) {
	if f.at.scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(f.at.path), true
}

// metadataVersion parses the version from a metadata file name written by
// newMetadataFile (or by another catalog using the same convention, or
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
func (c *Catalog) writeMetadata(ctx context.Context, file metadataFile, raw []byte) (*fileSync, error) {
	loc, fsys := file.loc, file.io.io
	wfs, ok := fsys.(icebergio.WriteFileIO)
	if !ok {
		return nil, fmt.Errorf("write metadata %s: IO %T cannot write", loc, fsys)
	}

	local, isLocal := file.localPath()
	if isLocal && c.durability == Immediate {
		return c.writeLocalDurable(loc, local, raw)
	}
	var noted []string // Eventual: directories whose entries will change
	if isLocal && c.durability == Eventual {
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
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("write metadata %s: close: %w", loc, err)
	}
	if isLocal && c.durability == Eventual {
		c.syncer.note(append(noted, local)...)
	}
	return nil, nil
}

// writeLocalDurable writes raw to the new local file path (loc's) in
// Immediate mode, unsynced: the directories its path lacks are made with
// one mkdir each and the file with one open (O_CREAT|O_EXCL: the name is
// new) and one write, and the file stays open for the commit step, which
// flushes it without opening it again (see fileSync; release closes it).
// It is what iceberg-go's local IO writes, without its stat of every
// directory on the path (the directory plan knows which ones exist).
func (c *Catalog) writeLocalDurable(loc, path string, raw []byte) (*fileSync, error) {
	f, plan, err := c.dirs.createNew(path)
	if err != nil {
		return nil, fmt.Errorf("write metadata %s: %w", loc, err)
	}
	file := &fileSync{path: path, plan: plan, f: f}
	if _, err := f.Write(raw); err != nil {
		file.release()
		_ = os.Remove(path)
		return nil, fmt.Errorf("write metadata %s: %w", loc, err)
	}
	return file, nil
}

// encodeMetadata returns meta's JSON, as json.Marshal would. iceberg-go's
// metadata encodes itself (MarshalJSON, built on json.Marshal, so its
// output is compact and escaped already); calling it directly skips
// json.Marshal's second, validating pass over the bytes.
func encodeMetadata(meta table.Metadata) ([]byte, error) {
	if m, ok := meta.(json.Marshaler); ok {
		return m.MarshalJSON()
	}
	return json.Marshal(meta)
}

// removeMetadata deletes a metadata file that will never be committed. It is
// best effort: a leftover file is harmless because no pointer names it.
func (c *Catalog) removeMetadata(loc string) {
	fsys, _, err := c.fsFor(loc)
	if err == nil {
		_ = fsys.Remove(loc)
	}
}

// readMetadata reads and parses the metadata file at loc.
func (c *Catalog) readMetadata(ctx context.Context, loc string) (table.Metadata, []byte, table.FSysF, error) {
	fsys, fsF, err := c.fsFor(loc)
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
		return nil, nil, nil, fmt.Errorf("parse metadata %s: %w: %w", loc, errNotMetadata, err)
	}
	return meta, raw, fsF, nil
}

// errNotMetadata is a file that does not parse as table metadata.
var errNotMetadata = errors.New("not table metadata")

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
