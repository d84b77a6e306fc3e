package scenarios

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/nordisk/katbench/competitors"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/servercost"
)

// ServerCost says how a run measures what each competitor's server pays
// (the `server` and `wire_bytes_per_op` fields of its lines). The zero
// value measures nothing.
type ServerCost struct {
	// On measures the servers found on this host by their listening port.
	On bool
	// PIDs, when set, are the server's processes (--server-pid), for
	// every competitor with a server.
	PIDs []int
	// MetricsURL, when set, is the server's Prometheus endpoint
	// (--server-metrics), scraped instead of reading /proc.
	MetricsURL string
}

// meter returns the meter of c's server, or why there is none.
func (sc ServerCost) meter(c competitors.Competitor) (servercost.Meter, string) {
	if !sc.On {
		return nil, "not measured (--server-cost=false)"
	}
	if sc.MetricsURL != "" {
		return &servercost.PromMeter{URL: sc.MetricsURL}, ""
	}
	sv, ok := competitors.As[competitors.Served](c)
	if !ok || sv.ServerAddr() == "" {
		if st, ok := competitors.As[competitors.StoreServed](c); ok && st.StoreAddr() != "" {
			return storeMeter(st.StoreAddr())
		}
		return nil, "no server: the catalog runs in the benchmark's own process"
	}
	if len(sc.PIDs) > 0 {
		return servercost.ByPIDs(sc.PIDs), ""
	}
	host, p, err := net.SplitHostPort(sv.ServerAddr())
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil {
		return nil, fmt.Sprintf("server address %q has no port", sv.ServerAddr())
	}
	if !onThisHost(host) {
		return nil, fmt.Sprintf("server %s is not on this host: give --server-metrics URL", host)
	}
	return servercost.ByPort(port), ""
}

// storeMeter is the meter of the store at addr of a catalog in the
// benchmark's own process, or why there is none.
func storeMeter(addr string) (servercost.Meter, string) {
	host, p, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil {
		return nil, fmt.Sprintf("store address %q has no port", addr)
	}
	if !onThisHost(host) {
		return nil, fmt.Sprintf("the catalog's store %s is not on this host", host)
	}
	return &servercost.StoreMeter{Port: port}, ""
}

// onThisHost reports whether host names an address of this machine.
func onThisHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() || ip.IsUnspecified() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// serverWindows watches the measured windows of one scenario round on
// one competitor and adds up what its server paid in them. Used by the
// goroutine running the round.
type serverWindows struct {
	meter servercost.Meter
	wire  competitors.WireCounter
	split competitors.TimeSplitter
	acc   *serverTotals
	wire0 int64
	sp0   competitors.TimeSplit
	open  bool
}

var _ WindowObserver = (*serverWindows)(nil)

// serverTotals is what a cell's windows cost, over all its rounds.
type serverTotals struct {
	windows           int
	cpu, storeCPU     time.Duration
	cpuN, storeCPUN   int // windows that had each
	rssPeak, rssAfter int64
	rssN              int
	storeBytes        int64
	storeBytesN       int
	source            string
	pids, storePIDs   []int
	wire              int64
	wireN             int
	split             competitors.TimeSplit
	splitN            int
	err               error
	missing           map[string]string
}

// Begin starts the meter and notes the wire count.
func (s *serverWindows) Begin(ctx context.Context) {
	if s.wire != nil {
		s.wire0 = s.wire.WireBytes()
	}
	if s.split != nil {
		s.sp0 = s.split.TimeSplit()
	}
	if s.meter == nil || s.acc.err != nil {
		return
	}
	if err := s.meter.Begin(ctx); err != nil {
		s.acc.err = err
		return
	}
	s.open = true
}

// End closes the meter's window and adds it up.
func (s *serverWindows) End(ctx context.Context) {
	a := s.acc
	if s.wire != nil {
		a.wire += s.wire.WireBytes() - s.wire0
		a.wireN++
	}
	if s.split != nil {
		sp := s.split.TimeSplit()
		a.split.Requests += sp.Requests - s.sp0.Requests
		a.split.Head += sp.Head - s.sp0.Head
		a.split.Server += sp.Server - s.sp0.Server
		a.split.ServerTimed += sp.ServerTimed - s.sp0.ServerTimed
		a.split.Body += sp.Body - s.sp0.Body
		a.splitN++
	}
	a.windows++
	if !s.open {
		return
	}
	s.open = false
	w, err := s.meter.End(ctx)
	if err != nil {
		a.err = err
		return
	}
	a.source = w.Source
	if w.CPU != nil {
		a.cpu += *w.CPU
		a.cpuN++
	}
	if w.StoreCPU != nil {
		a.storeCPU += *w.StoreCPU
		a.storeCPUN++
	}
	if w.RSSPeak != nil && w.RSSAfter != nil {
		a.rssPeak = max(a.rssPeak, *w.RSSPeak)
		a.rssAfter = *w.RSSAfter
		a.rssN++
	}
	if w.StoreBytes != nil {
		a.storeBytes = *w.StoreBytes
		a.storeBytesN++
	}
	a.pids = union(a.pids, w.PIDs)
	a.storePIDs = union(a.storePIDs, w.StorePIDs)
	for k, v := range w.Missing {
		if a.missing == nil {
			a.missing = map[string]string{}
		}
		a.missing[k] = v
	}
}

func union(a, b []int) []int {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// stamp writes the totals on rec as per-operation values over ops
// operations; what is missing goes to params with why. absent is the
// reason there is no meter at all ("" when there is one).
func (a *serverTotals) stamp(rec *results.Record, ops int64, absent string) {
	set := func(k, why string) {
		if rec.Params == nil {
			rec.Params = map[string]any{}
		}
		rec.Params[k] = why
	}
	switch {
	case (a == nil || a.windows == 0) && absent != "":
		set("server_cost_absent", absent)
		return
	case a == nil || a.windows == 0:
		set("server_cost_absent", "no measured window was observed (this scenario measures outside the engine's loops)")
		return
	case ops <= 0:
		set("server_cost_absent", "no operation was measured")
		return
	}
	if a.wireN == a.windows {
		v := float64(a.wire) / float64(ops)
		rec.WireBytesPerOp = &v
	} else {
		set("wire_bytes_absent", "the client counts no bytes on its connections (an in-process catalog has none)")
	}
	a.stampParts(rec, ops)
	switch {
	case absent != "":
		set("server_cost_absent", absent)
		return
	case a.err != nil:
		set("server_cost_absent", "measuring the server failed: "+a.err.Error())
		return
	}
	sc := &results.ServerCost{Source: a.source, PIDs: a.pids, StorePIDs: a.storePIDs}
	perOp := func(d time.Duration) *float64 {
		v := float64(d) / 1e3 / float64(ops)
		return &v
	}
	if a.cpuN == a.windows {
		sc.CPUUSPerOp = perOp(a.cpu)
	}
	if a.storeCPUN == a.windows {
		sc.StoreCPUUSPerOp = perOp(a.storeCPU)
	}
	if a.rssN == a.windows {
		sc.RSSPeakBytes, sc.RSSAfterBytes = &a.rssPeak, &a.rssAfter
	}
	if a.storeBytesN > 0 {
		sc.StoreBytes = &a.storeBytes
	}
	rec.Server = sc
	if len(a.missing) > 0 {
		m := map[string]any{}
		for k, v := range a.missing {
			m[k] = v
		}
		rec.Params["server_cost_missing"] = m
	}
}

// stampParts writes where the operations' time went (results.TimeParts),
// when the client timed its requests in every window.
func (a *serverTotals) stampParts(rec *results.Record, ops int64) {
	sp := a.split
	if a.splitN != a.windows || sp.Requests == 0 {
		return
	}
	us := func(d time.Duration) float64 { return float64(d) / 1e3 / float64(ops) }
	tp := &results.TimeParts{HeadUS: us(sp.Head), TransferUS: us(sp.Body),
		RequestsPerOp: float64(sp.Requests) / float64(ops), ServerUS: us(sp.Head), ServerSource: "ttfb"}
	if sp.ServerTimed == sp.Requests {
		tp.ServerUS, tp.ServerSource = us(sp.Server), "server-timing"
	}
	// The rest of the mean operation is the client's own; it is left out
	// when the requests' sums exceed the mean (failed operations' requests
	// are in the sums but not in the mean).
	if c := rec.MeanUS - tp.HeadUS - tp.TransferUS; rec.MeanUS > 0 && c >= 0 {
		tp.ClientUS = &c
	}
	rec.TimeParts = tp
}
