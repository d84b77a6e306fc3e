package results

import "runtime/metrics"

// GCSnapshot is the Go garbage collector's cumulative work in this process
// at one instant (runtime/metrics): completed cycles, the runtime's
// estimate of the CPU time spent collecting, and the live heap the last
// cycle marked. The zero value has nothing read.
type GCSnapshot struct {
	cycles   uint64
	cpu      float64
	liveHeap uint64
	ok       bool
}

var gcSampleNames = []string{"/gc/cycles/total:gc-cycles", "/cpu/classes/gc/total:cpu-seconds", "/gc/heap/live:bytes"}

// ReadGC reads the collector's counters now.
func ReadGC() GCSnapshot {
	s := make([]metrics.Sample, len(gcSampleNames))
	for i, n := range gcSampleNames {
		s[i].Name = n
	}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindFloat64 || s[2].Value.Kind() != metrics.KindUint64 {
		return GCSnapshot{}
	}
	return GCSnapshot{cycles: s[0].Value.Uint64(), cpu: s[1].Value.Float64(), liveHeap: s[2].Value.Uint64(), ok: true}
}

// GCMeasures are what the collector did between a and b, as a line's
// measures: gc_cycles (cycles completed), gc_cpu_s (the runtime's estimate
// of the CPU time spent collecting: an overestimate, summed over every
// thread, so it can pass the wall time on a machine with several cores)
// and gc_live_heap_bytes (the live heap the cycle before b marked: what
// every cycle scans). Nothing when either snapshot could not be read.
func GCMeasures(a, b GCSnapshot) map[string]Measure {
	if !a.ok || !b.ok {
		return nil
	}
	return map[string]Measure{
		"gc_cycles":          {Value: float64(b.cycles - a.cycles), Unit: UnitCount, Better: Lower},
		"gc_cpu_s":           {Value: b.cpu - a.cpu, Unit: UnitSeconds, Better: Lower},
		"gc_live_heap_bytes": {Value: float64(b.liveHeap), Unit: UnitBytes},
	}
}
