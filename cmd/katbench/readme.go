package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/nordisk/katbench/internal/analysis"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/listing"
)

func init() {
	var (
		files   []string
		history string
		labels  string
		check   bool
	)
	cmd := &cobra.Command{
		Use:   "readme",
		Short: "Regenerate the result tables of README.md and docs/results.md from labelled runs in the history",
		Long: `readme rewrites every block between
  <!-- katbench:table NAME ... -->  and  <!-- /katbench:table -->
from the newest run recorded with --label NAME in the history file (or the
run id docs/labels.tsv gives NAME, for runs recorded before lines carried
labels), and every <!-- katbench:generated competitors|scenarios --> section
from the registries. Each table states its run, label, command, host, date,
commit and whether the tree was clean. With --check nothing is written:
exit 1 names the stale blocks (make check runs this). Bad markers, unknown
labels, runs or layouts exit 2.

A block's kind of table is its layout= (docs/extending.md: a new one is one
file in internal/analysis):
` + analysis.LayoutsHelp(),
		Example: `  katbench readme                                   # README.md, docs/results.md, docs/scenarios.md, docs/writes.md, docs/history.md, docs/transport.md, docs/workloads.md, docs/sizing.md, docs/discovery.md, docs/verify.md, docs/security.md, docs/catalogs.md, containers/k8s/README.md
  katbench readme --file docs/results.md
  katbench readme --check                           # what make check runs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := analysis.UpdateReadmes(analysis.ReadmeOptions{Files: files, History: history, Labels: labels,
				Sections: listing.ReadmeSections(), Check: check, Log: cmd.ErrOrStderr()})
			if errors.Is(err, analysis.ErrReadmeInput) {
				return asUsage(err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&files, "file", []string{"README.md", "docs/results.md", "docs/scenarios.md", "docs/writes.md", "docs/history.md", "docs/transport.md", "docs/workloads.md", "docs/sizing.md", "docs/discovery.md", "docs/verify.md", "docs/security.md", "docs/catalogs.md", "containers/k8s/README.md"}, "a file whose blocks to regenerate (repeatable)")
	results.RegisterHistoryFlag(fl, &history, results.DefaultHistory, "where the labelled runs are read from")
	fl.StringVar(&labels, "labels", "docs/labels.tsv", "LABEL<TAB>RUN_ID lines naming runs recorded before lines carried labels")
	fl.BoolVar(&check, "check", false, "change nothing; exit 1 when a block differs from the history or the registries")
	rootCmd.AddCommand(cmd)
}
