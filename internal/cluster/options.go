// Package cluster runs one katbench command as N worker pods of a
// Kubernetes Indexed Job, through kubectl: it creates the Job ([Job]),
// holds the workers at a start barrier until every one has built its
// dataset, hands them one start instant, watches the pods (failing at
// once, with the pod's reason, when one cannot succeed), prints their
// merged live progress, then reads every worker's result lines from its
// log and merges their histograms exactly ([Run]; [Command] is the
// command around it, [Release] the start instant a worker is handed). kubectl finds the
// cluster as it always does (KUBECONFIG, ~/.kube/config, in-cluster).
//
// Concurrency: a Run is one goroutine's; Options is a value.
package cluster

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/output"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/usage"
)

// ErrSettings is wrapped by every error of Options.Check: a flag the user
// gave is wrong, and nothing has been created.
var ErrSettings = errors.New("bad cluster settings")

func settingsf(format string, args ...any) error { return usage.Errorf(ErrSettings, format, args...) }

// Options are the settings of one cluster run (the flags of `katbench
// cluster run`). A value: safe to copy.
type Options struct {
	Workers           int
	Image, Namespace  string
	Kubectl           string   // the kubectl executable
	NodeSelector      []string // k=v labels of the nodes to run on
	CPU, Memory       string   // each worker's requests
	Setup, StartDelay time.Duration
	MetricsPort       int // 0: no live progress
	Timeout           time.Duration
	Force             bool   // merge cells whose windows overlap little
	Format            string // stdout format of the merged lines
	Out, History      string // files the merged lines also go to
	WorkerLines       string // file every worker's own lines go to
}

// RegisterFlags adds cluster run's flags to fl; the image and kubectl
// default to getenv's KATBENCH_K8S_IMAGE and KATBENCH_KUBECTL.
func (o *Options) RegisterFlags(fl *pflag.FlagSet, getenv func(string) string) {
	envOr := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	fl.IntVar(&o.Workers, "workers", 0, "number of worker pods N (required)")
	fl.StringVar(&o.Image, "image", envOr("KATBENCH_K8S_IMAGE", "katbench:dev"), "the katbench image the pods run (make image; env KATBENCH_K8S_IMAGE)")
	fl.StringVar(&o.Namespace, "namespace", "default", "the Kubernetes namespace of the Job")
	fl.StringVar(&o.Kubectl, "kubectl", envOr("KATBENCH_KUBECTL", "kubectl"), "the kubectl to run (env KATBENCH_KUBECTL)")
	fl.StringSliceVar(&o.NodeSelector, "node-selector", nil, "schedule the pods on nodes with these labels (k=v, repeatable or comma-separated)")
	fl.StringVar(&o.CPU, "cpu", "250m", "CPU request of each worker (no limit)")
	fl.StringVar(&o.Memory, "memory", "256Mi", "memory request of each worker")
	fl.DurationVar(&o.Setup, "setup", 10*time.Minute, "longest time from creating the Job until every worker is ready (scheduling, image start, dataset setup); with --dry-run, the time from now to the Job's --start-at")
	fl.DurationVar(&o.StartDelay, "start-delay", 5*time.Second, "once every worker is ready, start this far ahead: handing out the start instant must fit in it")
	fl.IntVar(&o.MetricsPort, "metrics-port", 9464, "each worker serves Prometheus metrics on this port (--metrics-addr), and its pod carries the prometheus.io/scrape annotations; 0: none")
	fl.DurationVar(&o.Timeout, "timeout", 30*time.Minute, "give up (and delete the Job) after this long")
	fl.BoolVar(&o.Force, "force", false, "merge cells whose workers' windows overlap less than 90 % (as merge --force; the line still says its skew)")
	results.RegisterFormatFlag(fl, &o.Format, "auto", output.Formats)
	fl.StringVarP(&o.Out, "output", "o", "", "also write the merged lines to this file")
	results.RegisterHistoryFlag(fl, &o.History, "", "also append the merged lines to it (none by default)")
	fl.StringVar(&o.WorkerLines, "worker-lines", "", "also write every worker's own lines (host = its node) to this file")
}

// workerSets are the worker flags Run sets itself.
var workerSets = []string{"--shards", "--shard", "--start-at", "--start-file", "--metrics-addr", "--format"}

// Check validates o and the worker's command args before anything is
// created, and returns the node selector o names.
func (o Options) Check(args []string) (map[string]string, error) {
	if o.Workers < 1 {
		return nil, settingsf("--workers %d: want at least 1", o.Workers)
	}
	if o.MetricsPort < 0 || o.MetricsPort > 65535 {
		return nil, settingsf("--metrics-port %d: want 0 (none) or a port", o.MetricsPort)
	}
	if o.Setup <= 0 || o.Timeout <= o.Setup {
		return nil, settingsf("--setup %v, --timeout %v: want 0 < setup < timeout", o.Setup, o.Timeout)
	}
	if err := output.CheckFormat(o.Format); err != nil {
		return nil, err
	}
	sel, err := parseSelector(o.NodeSelector)
	if err != nil {
		return nil, usage.Wrap(ErrSettings, err)
	}
	for _, a := range args {
		for _, f := range workerSets {
			if a == f || strings.HasPrefix(a, f+"=") {
				return nil, settingsf("%s: cluster run sets --shards, --start-file, --metrics-addr (--metrics-port) and --format itself", a)
			}
		}
	}
	return sel, nil
}
