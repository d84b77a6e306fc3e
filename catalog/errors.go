package catalog

import "errors"

// These errors are returned (wrapped, with context) by Open and the catalog
// methods. Compare with errors.Is. Errors about missing or existing tables and
// namespaces wrap iceberg-go's catalog sentinels instead (ErrNoSuchTable,
// ErrNamespaceAlreadyExists, …); a failed commit requirement or a lost commit
// race wraps table.ErrCommitFailed.
var (
	// ErrLocked means the bbolt file is locked by another process (or by
	// another open Catalog in this process) and the lock was not released
	// within Options.LockTimeout.
	ErrLocked = errors.New("catalog file is locked by another process")

	// ErrClosed is returned by every method called after Close.
	ErrClosed = errors.New("catalog is closed")

	// ErrInvalidDurability is returned by ParseDurability for an unknown mode.
	ErrInvalidDurability = errors.New("invalid durability mode")

	// ErrCommitStateUnknown means a write's outcome is unknown: the commit
	// log failed while making its group durable, so the group may or may
	// not be in the log. The write's metadata file is kept. Reopen the
	// catalog (which replays what the log holds) and read to find out.
	ErrCommitStateUnknown = errors.New("commit state unknown")

	// ErrCorrupt means the bbolt file holds a value the catalog cannot decode.
	ErrCorrupt = errors.New("catalog file is corrupt")
)
