package serve

import (
	"errors"
	"net"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/catalog"
	"github.com/nordisk/katbench/internal/usage"
)

// ErrSettings is wrapped by every error of FrontSettings.Check and
// CheckByteLimit: a flag the user gave is wrong, and nothing has been
// created.
var ErrSettings = errors.New("bad serve settings")

// Settingsf is an ErrSettings error with a message as fmt.Errorf makes
// it, for the checks of one front's own flags: it says only what is
// wrong, and is ErrSettings as well as its cause.
func Settingsf(format string, args ...any) error { return usage.Errorf(ErrSettings, format, args...) }

// FrontSettings are the flags both `katbench serve` fronts take (the
// warehouse's are workspace.StorageSettings). A value: safe to copy.
type FrontSettings struct {
	Addr, Dir, Durability string
	AllowedLocations      []string
}

// RegisterFlags adds --addr (default addr), --dir, --durability (default
// from getenv's BENCH_DURABILITY) and --allowed-location to fl.
func (f *FrontSettings) RegisterFlags(fl *pflag.FlagSet, addr string, getenv func(string) string) {
	fl.StringVar(&f.Addr, "addr", addr, "listen address host:port (port 0 picks a free one)")
	fl.StringVar(&f.Dir, "dir", "", "catalog directory (default: a temp dir removed on exit)")
	RegisterDurabilityFlag(fl, &f.Durability, getenv)
	fl.StringArrayVar(&f.AllowedLocations, "allowed-location", nil, "absolute URI under which table and view locations may lie besides the warehouse (repeatable)")
}

// Check validates the settings before anything is created and returns
// the durability they name.
func (f FrontSettings) Check() (catalog.Durability, error) {
	dur, err := catalog.ParseDurability(f.Durability)
	if err != nil {
		return "", Settingsf("--durability: %v", err)
	}
	for _, l := range f.AllowedLocations {
		if err := catalog.ValidateLocation(l); err != nil {
			return "", Settingsf("--allowed-location: %v", err)
		}
	}
	if _, _, err := net.SplitHostPort(f.Addr); err != nil {
		return "", Settingsf("--addr %q: %v", f.Addr, err)
	}
	return dur, nil
}

// CheckByteLimit checks the byte-limit flag name: 0 or more (0 = the
// front's default).
func CheckByteLimit(name string, v int64) error {
	if v < 0 {
		return Settingsf("--%s %d: want a byte count ≥ 0 (0 = default)", name, v)
	}
	return nil
}

// RegisterDurabilityFlag adds --durability to fl, filling p: the embedded
// catalog's durability mode, by default getenv's BENCH_DURABILITY. Every
// command that starts an embedded catalog takes it from here.
func RegisterDurabilityFlag(fl *pflag.FlagSet, p *string, getenv func(string) string) {
	fl.StringVar(p, "durability", getenv("BENCH_DURABILITY"), "embedded catalog durability: immediate|eventual|none; env BENCH_DURABILITY")
}
