package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nordisk/katbench/internal/registry"
)

// A Layout is one kind of generated table: `<!-- katbench:table NAME
// layout=NAME ... -->`. Each layout registers itself in its own file
// (RegisterLayout in an init), so a new table kind is one file.
type Layout struct {
	// Name is the value of layout= ("" is the default, the targets table).
	Name string
	// Doc says in one line what the table shows.
	Doc string
	// Attrs are the marker attributes the layout reads beyond the ones
	// every block takes (label, run, layout, where, cmd).
	Attrs []string
	// Runs says which lines of the history the layout is given.
	Runs RunSelection
	// Render builds the table (without the provenance line, which
	// renderBlock writes) from the selected lines. For NewestRun, info
	// describes that run; for the other selections it is the zero value.
	Render func(b Block, lines []Line, info RunInfo, src Sources) (string, error)
}

// RunSelection is which runs of the history a layout renders.
type RunSelection int

const (
	// NewestRun: the newest run with the block's label (or run=REF).
	NewestRun RunSelection = iota
	// EveryRun: every run with the label, oldest first.
	EveryRun
	// NewestOfEachLabel: the newest run of each label in label=A,B,….
	NewestOfEachLabel
)

// layouts holds the registered layouts by name.
var layouts registry.Registry[Layout]

// commonAttrs are the marker attributes every block takes.
var commonAttrs = []string{"label", "run", "layout", "where", "cmd"}

// RegisterLayout adds a layout; it panics on a second layout of the same
// name or one without a renderer (a programming error, found at start).
func RegisterLayout(l Layout) {
	if l.Render == nil {
		panic("analysis: layout " + l.Name + " has no Render")
	}
	if err := layouts.Register(l.Name, l); err != nil {
		panic("analysis: layout " + err.Error())
	}
}

// Layouts lists the registered layouts by name ("" first).
func Layouts() []Layout { return layouts.Values() }

// lookupLayout finds the layout of a block, with an error naming the
// known ones.
func lookupLayout(b Block) (Layout, error) {
	name := b.Attrs["layout"]
	if l, ok := layouts.Lookup(name); ok {
		return l, nil
	}
	var names []string
	for _, l := range Layouts() {
		if l.Name != "" {
			names = append(names, l.Name)
		}
	}
	return Layout{}, fmt.Errorf("%w: line %d: table %q: layout=%s is not a layout (known: %s; none for the targets table)",
		ErrBadMarker, b.Line, b.Name, name, strings.Join(names, ", "))
}

// knownAttrs lists every attribute a block may carry: the common ones,
// then each layout's, once.
func knownAttrs() []string {
	names := slices.Clone(commonAttrs)
	for _, l := range Layouts() {
		for _, a := range l.Attrs {
			if !slices.Contains(names, a) {
				names = append(names, a)
			}
		}
	}
	return names
}

// LayoutsHelp describes every layout, one indented line each, for
// `katbench readme --help`.
func LayoutsHelp() string {
	var sb strings.Builder
	for _, l := range Layouts() {
		name := "(none)"
		if l.Name != "" {
			name = "layout=" + l.Name
		}
		fmt.Fprintf(&sb, "  %-22s %s\n", name, l.Doc)
	}
	return sb.String()
}
