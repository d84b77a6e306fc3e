package s3bench

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/nordisk/katbench/bench"
	"github.com/nordisk/katbench/internal/results"
	"github.com/nordisk/katbench/internal/workspace"
	"github.com/nordisk/katbench/transport"
	"github.com/nordisk/katbench/transport/s3"
)

// lane is one transport under test: its client and what it really is.
type lane struct {
	requested transport.Kind
	client    *minio.Client
	info      s3.Info
}

// cell is one (op, size, concurrency) measured on every lane.
type cell struct {
	op   Op
	size int64
	conc int
}

// laneCell is the measured state of one lane in one cell, kept across the
// interleaved rounds.
type laneCell struct {
	workers  []*worker
	recs     []*results.Recorder
	firstErr []error
	elapsed  time.Duration
	// warmErrs counts the warm-up's failures per worker: the warm-up is not
	// recorded, but its errors are reported (warmup_errors).
	warmErrs []int64
	// roundP50 and roundOps are each measured round's own p50 (µs) and
	// ops/s, NaN for a round that measured nothing.
	roundP50, roundOps results.Samples
	// cpu is the process's CPU time (user + system) over the measured
	// rounds and roundCPU each round's per operation (µs); cpuOK is false
	// when getrusage could not say, and then neither is reported.
	cpu      time.Duration
	ops      int64
	roundCPU []float64
	cpuOK    bool
	// res is what the process held after this lane's warm-up (nil when
	// /proc could not say).
	res *results.Resources
}

// Run measures every (transport, op, size, concurrency) of cfg against one
// endpoint and writes one result line per transport and cell to sink.
//
// Transports are interleaved round by round (A B, then B A, …) inside each
// cell, after a warm-up that is not recorded. A transport that falls back
// (io_uring unavailable, or an https endpoint) is reported once on cfg.Log
// and measured as what really ran: its lines carry the used transport as
// target and the reason in transport_fallback; a fallback identical to
// another requested transport is measured once. Every line of the run
// carries the fallback reason when any requested transport fell back.
//
// The bucket is created when missing; the run's objects live under a fresh
// prefix and are removed afterwards, also on error or cancellation. Calls
// may run concurrently: each uses its own prefix and its own connections,
// which are closed when it returns.
func Run(ctx context.Context, cfg Config, sink results.Sink) (err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return err
	}
	lanes, fallback, err := openLanes(cfg)
	if err != nil {
		return err
	}
	defer func() {
		for _, l := range lanes {
			l.info.CloseIdle()
		}
	}()
	setup := lanes[0].client
	if err := ensureBucket(ctx, setup, cfg.S3.Bucket, cfg.S3.Region); err != nil {
		return err
	}
	prefix := "katbench-transport/" + cfg.Run.ID + "-" + randomHex(4) + "/"
	defer func() {
		if cerr := cleanup(ctx, setup, cfg.S3.Bucket, prefix); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()

	payloads := map[int64][]byte{}
	payload := func(size int64) []byte {
		if p, ok := payloads[size]; ok {
			return p
		}
		p := make([]byte, size)
		_, _ = crand.Read(p) // never fails (crypto/rand contract)
		payloads[size] = p
		return p
	}
	// GET and HEAD read objects written once here; PUT writes its own keys.
	readKeys := map[int64]string{}
	prepared := map[Op]string{}
	for _, op := range cfg.Ops {
		s := spec(op)
		if s.prepare != nil {
			if _, done := prepared[op]; !done {
				key, err := s.prepare(ctx, setup, cfg.S3.Bucket, prefix)
				if err != nil {
					return fmt.Errorf("s3bench: prepare %s: %w", op, err)
				}
				prepared[op] = key
			}
			continue
		}
		if s.object == nil {
			continue
		}
		for _, cs := range s.cellSizes(cfg) {
			size := s.object(cs)
			if _, ok := readKeys[size]; ok {
				continue
			}
			key := prefix + "obj-" + FormatSize(size)
			p := payload(size)
			for _, c := range objectWriters(lanes) {
				if _, err := (minio.Core{Client: c}).PutObject(ctx, cfg.S3.Bucket, key, bytes.NewReader(p), size, "", "", putOptions); err != nil {
					return fmt.Errorf("s3bench: write test object %s: %w", key, err)
				}
			}
			readKeys[size] = key
		}
	}

	var plan []bench.Cell
	for _, c := range cells(cfg) {
		cc := &closedCell{c: c, lanes: lanes, fallback: fallback}
		plan = append(plan, cc.cell(cfg, prefix, readKeys, prepared, payload, sink))
		for _, r := range cfg.Rates {
			plan = append(plan, openCell(cfg, cc, r, sink))
		}
	}
	return bench.RunCells(ctx, plan, len(lanes), cfg.Rounds, cfg.Progress, cfg.EndpointName+": "+bench.OverallTask)
}

// closedCell is one (op, size, concurrency) measured in a closed loop on
// every lane: its workers and state per lane, and, once finished, the
// baseline transport's ops/s the open-loop rates of the cell may be taken
// of.
type closedCell struct {
	c        cell
	lanes    []lane
	fallback string
	states   []*laneCell
	base     float64
}

// cell is the closed loop of cc for RunCells: Start makes every lane's
// workers and warms them up, Round measures one round of
// cfg.Iterations/cfg.Rounds operations, Finish writes the lines.
func (cc *closedCell) cell(cfg Config, prefix string, readKeys map[int64]string, prepared map[Op]string, payload func(int64) []byte, sink results.Sink) bench.Cell {
	c, lanes := cc.c, cc.lanes
	size, objSize := c.size, c.size
	sp := spec(c.op)
	if sp.object != nil {
		objSize = sp.object(size)
	}
	return bench.CellFuncs{
		StartFunc: func(ctx context.Context) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			cc.states = make([]*laneCell, len(lanes))
			for i, l := range lanes {
				st := &laneCell{cpuOK: true}
				for w := 0; w < c.conc; w++ {
					key := readKeys[objSize]
					switch {
					case sp.prepare != nil:
						key = prepared[c.op]
					case sp.object == nil:
						key = fmt.Sprintf("%s%s-%s-%s-w%d", prefix, c.op, l.info.Used, FormatSize(size), w)
					}
					st.workers = append(st.workers, newWorker(l.client, cfg.S3.Bucket, key, c.op, size, payload(objSize), cfg.Seed, w))
					st.recs = append(st.recs, results.NewRecorder())
					st.firstErr = append(st.firstErr, nil)
					st.warmErrs = append(st.warmErrs, 0)
				}
				cc.states[i] = st
				// Warm-up: every GET verified, nothing recorded; its failures
				// are kept apart as warm-up errors. Every lane's idle
				// connections are closed first (this lane's too, left from
				// an earlier cell), so what the process holds after it is
				// what this lane opened for this cell.
				for _, o := range lanes {
					o.info.CloseIdle()
				}
				warmUp(ctx, cfg, c, st)
				st.res = readResources(cfg)
			}
			// The lanes whose connections a later lane's warm-up closed dial
			// them again before anything is measured.
			for i := 0; i < len(lanes)-1; i++ {
				warmUp(ctx, cfg, c, cc.states[i])
			}
			return nil
		},
		RoundFunc: func(ctx context.Context, round, i int) error {
			n := cfg.Iterations / cfg.Rounds
			if round < cfg.Iterations%cfg.Rounds {
				n++
			}
			st := cc.states[i]
			recs := make([]*results.Recorder, len(st.workers))
			for w := range recs {
				recs[w] = results.NewRecorder()
			}
			c0, ok0 := results.ProcessCPU()
			d := runPhase(ctx, st, recs, n, VerifyEvery, false)
			c1, ok1 := results.ProcessCPU()
			st.elapsed += d
			if st.cpuOK = st.cpuOK && ok0 && ok1; st.cpuOK && n > 0 {
				st.cpu += c1 - c0
				st.ops += int64(n)
				st.roundCPU = append(st.roundCPU, float64((c1-c0).Nanoseconds())/1e3/float64(n))
			}
			merged := results.Merged(recs...)
			p50, ops := math.NaN(), math.NaN()
			if merged.Count() > 0 {
				p50 = float64(merged.Percentile(50)) / 1e3
				if d > 0 {
					ops = float64(merged.Count()) / d.Seconds()
				}
			}
			st.roundP50 = append(st.roundP50, p50)
			st.roundOps = append(st.roundOps, ops)
			for w, r := range recs {
				st.recs[w].Merge(r)
			}
			return nil
		},
		FinishFunc: func(context.Context) error {
			for i, l := range lanes {
				r := record(cfg, c, size, l, cc.states[i], cc.fallback)
				if l.info.Used == transport.Baseline() {
					cc.base = r.OpsSec
				}
				if err := sink.Write(r); err != nil {
					return fmt.Errorf("s3bench: write result: %w", err)
				}
			}
			return nil
		},
	}
}

// warmUp runs the cell's unrecorded warm-up on st's workers, every GET
// verified, and adds its failures to st's warm-up errors.
func warmUp(ctx context.Context, cfg Config, c cell, st *laneCell) {
	warm := make([]*results.Recorder, len(st.workers))
	for w := range warm {
		warm[w] = results.NewRecorder()
	}
	runPhase(ctx, st, warm, cfg.warmup(c.conc), 1, true)
	for w, r := range warm {
		st.warmErrs[w] += r.Errors()
	}
}

// readResources reads what the process holds now; a value /proc would not
// give stays absent and the reason goes to cfg.Log.
func readResources(cfg Config) *results.Resources {
	r, err := results.ReadResources()
	if err != nil && cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "katbench: warning: %v\n", err)
	}
	r.Scope = "process, after this transport's warm-up for this cell, every transport's idle connections closed before it; threads: the process's high-water mark"
	return &r
}

// openLanes creates one client per requested transport, dropping a lane
// whose used transport duplicates an earlier one, and returns the joined
// fallback reasons.
func openLanes(cfg Config) ([]lane, string, error) {
	var lanes []lane
	var fallback string
	used := map[transport.Kind]bool{}
	for _, k := range cfg.Transports {
		sc := cfg.S3
		sc.Transport = k
		c, info, err := s3.NewClient(sc)
		if err != nil {
			return nil, "", fmt.Errorf("s3bench: %w", err)
		}
		if info.Fallback != "" {
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "katbench: warning: transport %s unavailable for %s, using %s: %s\n", k, cfg.EndpointName, info.Used, info.Fallback)
			}
			if fallback != "" {
				fallback += "; "
			}
			fallback += info.Fallback
		}
		if used[info.Used] {
			info.CloseIdle() // unused: never dialled, but say so
			continue
		}
		used[info.Used] = true
		lanes = append(lanes, lane{requested: k, client: c, info: info})
	}
	if cfg.ClientFloor {
		c, info, err := s3.NewClientOver(cfg.S3, newFloorRT(), ClientFloor)
		if err != nil {
			return nil, "", fmt.Errorf("s3bench: floor: %w", err)
		}
		lanes = append(lanes, lane{requested: ClientFloor, client: c, info: info})
	}
	return lanes, fallback, nil
}

// objectWriters are the clients the read objects are written through:
// the first lane's (the store every transport reads) and the floor's
// (its own memory).
func objectWriters(lanes []lane) []*minio.Client {
	out := []*minio.Client{lanes[0].client}
	for _, l := range lanes[1:] {
		if l.info.Used == ClientFloor {
			out = append(out, l.client)
		}
	}
	return out
}

// cells lists the (op, size, concurrency) combinations in run order.
func cells(cfg Config) []cell {
	var out []cell
	for _, op := range cfg.Ops {
		for _, size := range spec(op).cellSizes(cfg) {
			for _, conc := range cfg.Concurrency {
				if cfg.Select == nil || cfg.Select(Scenario(op, size, conc)) {
					out = append(out, cell{op: op, size: size, conc: conc})
				}
			}
		}
	}
	return out
}

// Names lists the scenario of every cell cfg's dimensions make, in run
// order, before any selection.
func Names(cfg Config) []string {
	cfg.Select = nil
	var out []string
	for _, c := range cells(cfg) {
		out = append(out, Scenario(c.op, c.size, c.conc))
	}
	return out
}

// VerifyEvery is how often a measured GET's bytes are compared with the
// object: every VerifyEvery-th operation of each worker in each round (its
// first included), after its clock has stopped, so the comparison costs wall time
// but never a recorded latency. The warm-up verifies every GET. A mismatch
// is a failed operation, counted in the line's errors.
const VerifyEvery = 8

// runPhase performs n operations on st's workers (closed loop, each worker
// taking the next ticket until n are taken) into recs (one per worker) and
// returns the wall time. Every verifyEvery-th GET of a worker is compared
// byte for byte with the object after it was timed. Successful operations
// are recorded unless warm is set; failures are counted either way.
func runPhase(ctx context.Context, st *laneCell, recs []*results.Recorder, n, verifyEvery int, warm bool) time.Duration {
	if n <= 0 {
		return 0
	}
	var tickets atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i, w := range st.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := recs[i]
			for k := 0; tickets.Add(1) <= int64(n); k++ {
				if ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				err := w.do(ctx)
				d := time.Since(t0)
				if err == nil && verifyEvery > 0 && k%verifyEvery == 0 {
					err = w.verify()
				}
				if err != nil {
					rec.Error()
					if st.firstErr[i] == nil {
						if warm {
							err = fmt.Errorf("warm-up: %w", err)
						}
						st.firstErr[i] = err
					}
					continue
				}
				if !warm {
					rec.Record(d)
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// record builds the result line of one lane in one cell.
func record(cfg Config, c cell, size int64, l lane, st *laneCell, fallback string) results.Record {
	rec := results.Merged(st.recs...)
	params := lineParams(cfg, c, size, l, st)
	r := cfg.Run.Result(string(l.info.Used), Scenario(c.op, size, c.conc), results.Closed, c.conc, rec, st.elapsed, params)
	if spec(c.op).moves && st.elapsed > 0 {
		r.SetMeasure("mib_s", float64(rec.Count())*float64(size)/st.elapsed.Seconds()/(1<<20), results.UnitMiBPerSec, results.Higher)
	}
	if st.cpuOK && st.ops > 0 {
		r.SetMeasureRounds("cpu_us_per_op", float64(st.cpu.Nanoseconds())/1e3/float64(st.ops), results.UnitUSPerOp, results.Lower, st.roundCPU)
	}
	r.Transport = string(l.info.Used)
	r.TransportFallback = fallback
	r.Control = cfg.Control
	bench.Stamp(&r, spec(c.op).scenario, c.level())
	r.Rounds = len(st.roundP50)
	r.RoundP50US, r.RoundOpsSec = st.roundP50, st.roundOps
	r.Resources = st.res
	var warm int64
	for _, n := range st.warmErrs {
		warm += n
	}
	r.WarmupErrors = &warm
	for _, err := range st.firstErr {
		if err != nil {
			r.FirstError = err.Error()
			break
		}
	}
	return r
}

// lineParams are the params every line of a lane in a cell carries.
func lineParams(cfg Config, c cell, size int64, l lane, st *laneCell) map[string]any {
	params := map[string]any{
		"endpoint":    cfg.EndpointName,
		"op":          string(c.op),
		"concurrency": c.conc,
		"iterations":  cfg.Iterations,
		"rounds":      cfg.Rounds,
		"warmup":      cfg.warmup(c.conc),
		"verify":      "every GET of the warm-up; every " + strconv.Itoa(VerifyEvery) + "th measured GET per worker, after its clock stopped",
		"transport":   string(l.info.Used),
		"requested":   string(l.requested),
		"pool_size":   cfg.S3.PoolSize,
		"quick":       cfg.Quick,
	}
	if ep, err := s3.ParseEndpoint(cfg.S3.Endpoint); err == nil {
		maps.Copy(params, l.info.Facts(ep.Host))
	}
	if st.cpuOK && st.ops > 0 {
		params["cpu_scope"] = cpuScope(cfg.StoreInProcess, l)
	}
	if l.info.Used == ClientFloor {
		params["floor"] = floorNote
	}
	spec(c.op).params(cfg, size, params)
	return params
}

// ensureBucket creates bucket when it does not exist.
func ensureBucket(ctx context.Context, c *minio.Client, bucket, region string) error {
	ok, err := c.BucketExists(ctx, bucket)
	if err != nil {
		return fmt.Errorf("s3bench: bucket %s: %w", bucket, err)
	}
	if ok {
		return nil
	}
	if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: region}); err != nil {
		code := minio.ToErrorResponse(err).Code
		if code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
			return nil // created concurrently
		}
		return fmt.Errorf("s3bench: create bucket %s: %w", bucket, err)
	}
	return nil
}

// cleanup removes every object under prefix, also after ctx was
// cancelled, so an interrupted run leaves nothing behind.
func cleanup(ctx context.Context, c *minio.Client, bucket, prefix string) error {
	if err := workspace.RemovePrefix(ctx, c, bucket, prefix); err != nil {
		return fmt.Errorf("s3bench: cleanup: %w", err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}
