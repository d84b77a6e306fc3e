// Package transport picks the byte transport every katbench S3 request goes
// through. Transports are registered plug-ins, like competitors: a name, a
// constructor, an availability check and the settings (with the
// environment variables a command may read them from) it takes. Go's
// net/http ("http", the baseline every other falls back to) and
// katbench's own io_uring HTTP/1.1 transport ("uring", package
// transport/uring) are registered in this package, one file each. Every
// transport is tuned alike — same pool size, keep-alive, HTTP/1.1 only,
// no compression — so a comparison measures the byte path and nothing
// else.
//
// Nothing here reads the environment: a command reads what Plugin.Env
// names (see EnvSettings) and passes it down in Options.Settings, so a run
// is reproducible from its flags and environment as the command saw them.
package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/nordisk/katbench/internal/registry"
)

// Kind names a registered byte transport.
type Kind string

// EnvKind is the environment variable a command reads the default
// transport of an s3:// warehouse from.
const EnvKind = "KATBENCH_TRANSPORT"

// DefaultPoolSize is the keep-alive pool per host when Options.PoolSize is 0.
const DefaultPoolSize = 8

// ErrUnknownKind reports a transport name nothing registered.
var ErrUnknownKind = errors.New("unknown transport")

// ErrBadEndpoint reports an endpoint New cannot parse.
var ErrBadEndpoint = errors.New("bad endpoint")

// ErrBadSetting reports a transport setting its transport does not take.
var ErrBadSetting = errors.New("bad transport setting")

// Plugin is one registered byte transport. A Plugin is immutable once
// registered and safe for concurrent use.
type Plugin struct {
	// Name is the transport's name on flags and result lines.
	Name Kind
	// Doc is one line for help texts.
	Doc string
	// Order places it in Names (and so in default comparisons): lower
	// first. The baseline transport has the lowest.
	Order int
	// New returns the RoundTripper for the validated endpoint u. An error
	// wrapping ErrUnavailable means it cannot serve u here: New falls
	// back to the baseline and reports the reason. Any other error fails.
	New func(u *url.URL, opts Options) (http.RoundTripper, error)
	// Env maps a setting the transport takes to the environment variable
	// a command reads it from (see EnvSettings); may be nil.
	Env map[string]string
	// Check validates the transport's settings (without its prefix);
	// nil means it takes none beyond Env's.
	Check func(settings map[string]string) error
}

// ErrUnavailable wraps why a transport cannot serve an endpoint here; New
// then falls back to the baseline transport.
var ErrUnavailable = errors.New("unavailable")

// Describer is an optional capability of a RoundTripper: the facts of its
// connections to hostport a result line should carry, keyed by param name
// (how io_uring requests wait, for one); nil or empty before the first
// request or when there is nothing to say.
type Describer interface {
	Describe(hostport string) map[string]any
}

// registered holds the transports by name.
var registered registry.Registry[Plugin]

// Register adds a transport. It panics on a duplicate or incomplete
// entry: a programming error found at init, never a user input.
func Register(p Plugin) {
	if p.Name == "" || p.New == nil {
		panic("transport: Register needs a Name and a New")
	}
	if err := registered.Register(string(p.Name), p); err != nil {
		panic("transport: " + err.Error())
	}
}

// plugins returns every registered transport in Order, then name order.
func plugins() []Plugin {
	out := registered.Values()
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Names lists the registered transports, the baseline first.
func Names() []Kind {
	var out []Kind
	for _, p := range plugins() {
		out = append(out, p.Name)
	}
	return out
}

// NamesList is Names comma-separated: the default of a --transports flag.
func NamesList() string {
	var s []string
	for _, k := range Names() {
		s = append(s, string(k))
	}
	return strings.Join(s, ",")
}

// Baseline is the transport every other falls back to and ratios are
// taken over by default: the first of Names.
func Baseline() Kind { return Names()[0] }

// Lookup returns the transport named k.
func Lookup(k Kind) (Plugin, error) {
	p, ok := registered.Lookup(string(k))
	if !ok {
		return Plugin{}, fmt.Errorf("transport %q: %w (want one of %s)", k, ErrUnknownKind, joinKinds(Names()))
	}
	return p, nil
}

func joinKinds(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// ParseKind parses a registered transport's name (case-insensitive,
// spaces trimmed); "" means the baseline.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	if k == "" {
		return Baseline(), nil
	}
	if _, err := Lookup(k); err != nil {
		return "", fmt.Errorf("transport %q: %w (want one of %s)", s, ErrUnknownKind, joinKinds(Names()))
	}
	return k, nil
}

// Options tunes every transport identically.
type Options struct {
	// PoolSize is the number of keep-alive connections per host (and the
	// cap on open ones); 0 means DefaultPoolSize.
	PoolSize int
	// Timeout bounds the wait for a response's headers once the request is
	// written; 0 means none (contexts still apply).
	Timeout time.Duration
	// DialTimeout bounds connection setup; 0 means none.
	DialTimeout time.Duration
	// Settings are transport-specific settings keyed "<transport>.<name>"
	// (e.g. the io_uring wait mode); each transport reads its own.
	Settings Settings
}

func (o Options) poolSize() int {
	if o.PoolSize <= 0 {
		return DefaultPoolSize
	}
	return o.PoolSize
}

// Settings are transport-specific settings keyed "<transport>.<name>". A
// Settings value is not modified after it is built; share it freely.
type Settings map[string]string

// For returns k's settings, without the "<k>." prefix.
func (s Settings) For(k Kind) map[string]string {
	out := map[string]string{}
	for key, v := range s {
		if name, ok := strings.CutPrefix(key, string(k)+"."); ok {
			out[name] = v
		}
	}
	return out
}

// String is the settings in a canonical form (sorted key=value pairs),
// for keys of client caches and for result lines.
func (s Settings) String() string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + s[k]
	}
	return strings.Join(keys, ",")
}

// Check validates every setting against its transport: an unknown
// transport or a value it refuses is an error wrapping ErrBadSetting.
func (s Settings) Check() error {
	for key := range s {
		k, _, _ := strings.Cut(key, ".")
		if _, err := Lookup(Kind(k)); err != nil {
			return fmt.Errorf("%w %q: %w", ErrBadSetting, key, err)
		}
	}
	for _, p := range plugins() {
		if p.Check == nil {
			continue
		}
		if err := p.Check(s.For(p.Name)); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadSetting, p.Name, err)
		}
	}
	return nil
}

// EnvSettings reads every registered transport's environment variables
// through lookup (os.LookupEnv in a command) into Settings, and checks
// them; an error names the variable.
func EnvSettings(lookup func(string) (string, bool)) (Settings, error) {
	s := Settings{}
	for _, p := range plugins() {
		names := make([]string, 0, len(p.Env))
		for name := range p.Env {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			env := p.Env[name]
			if v, ok := lookup(env); ok && v != "" {
				s[string(p.Name)+"."+name] = v
				if p.Check != nil {
					if err := p.Check(map[string]string{name: v}); err != nil {
						return nil, fmt.Errorf("%s=%q: %w", env, v, err)
					}
				}
			}
		}
	}
	return s, nil
}

// New returns the RoundTripper for kind talking to endpoint
// (http://host[:port] or https://host[:port]).
//
// When kind cannot serve endpoint here (io_uring unavailable, an https
// endpoint on a plaintext-only transport), New does not fail: it returns
// the baseline transport, used == Baseline() and a fallback reason
// starting with "<kind>: ", which callers must report. err is non-nil only
// for an unknown kind, an unparsable endpoint or a setting kind refuses.
func New(kind Kind, endpoint string, opts Options) (rt http.RoundTripper, used Kind, fallback string, err error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if err == nil {
			err = fmt.Errorf("want http://host[:port] or https://host[:port]")
		}
		return nil, "", "", fmt.Errorf("transport: endpoint %q: %w: %v", endpoint, ErrBadEndpoint, err)
	}
	p, err := Lookup(kind)
	if err != nil {
		return nil, "", "", err
	}
	if p.Check != nil {
		if err := p.Check(opts.Settings.For(kind)); err != nil {
			return nil, "", "", fmt.Errorf("transport: %s: %w: %w", kind, ErrBadSetting, err)
		}
	}
	rt, err = p.New(u, opts)
	switch {
	case err == nil:
		return rt, kind, "", nil
	case !errors.Is(err, ErrUnavailable) || kind == Baseline():
		return nil, "", "", fmt.Errorf("transport %s: %w", kind, err)
	}
	base, _ := Lookup(Baseline())
	brt, berr := base.New(u, opts)
	if berr != nil {
		return nil, "", "", fmt.Errorf("transport %s: %w; baseline %s: %w", kind, err, base.Name, berr)
	}
	return brt, base.Name, string(kind) + ": " + strings.TrimPrefix(err.Error(), string(kind)+": "), nil
}

// DefaultKind is flag when set, else the value getenv (os.Getenv in a
// command) gives EnvKind: how a command picks the transport of an s3://
// warehouse. Parse the result with ParseKind.
func DefaultKind(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	return getenv(EnvKind)
}
