package results

// ServerCost is what the catalog server paid for a line's measured
// operations (`server`): its CPU and the store's per operation, its
// resident memory during and after the measured phase, and its store's
// bytes on disk. Each field is absent when it was not measured, and the
// line's params say why (server_cost_absent); a present value may be 0.
type ServerCost struct {
	// CPUUSPerOp is user+system CPU of the server's processes and its
	// store's per operation, µs; StoreCPUUSPerOp the store's share.
	CPUUSPerOp      *float64 `json:"cpu_us_per_op,omitempty"`
	StoreCPUUSPerOp *float64 `json:"store_cpu_us_per_op,omitempty"`
	// RSSPeakBytes and RSSAfterBytes are the server's resident set at its
	// largest during the measured phase and at its end.
	RSSPeakBytes  *int64 `json:"rss_peak_bytes,omitempty"`
	RSSAfterBytes *int64 `json:"rss_after_bytes,omitempty"`
	// StoreBytes is the catalog store's bytes on disk after the line.
	StoreBytes *int64 `json:"store_bytes,omitempty"`
	// Source is how the values were read: "proc" or "prometheus".
	Source string `json:"source"`
	// PIDs are the server's processes, StorePIDs its store's.
	PIDs      []int `json:"pids,omitempty"`
	StorePIDs []int `json:"store_pids,omitempty"`
}
