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

// TimeParts is where a line's operations spent their time, per operation
// and in µs, as the client saw its requests (`time_parts`): the server's
// own work, the time to the answer's head, the transfer of its body, and
// what is left of the mean operation — the client's own work, such as
// iceberg-go building the table from the answer.
type TimeParts struct {
	// ServerUS is the server's time: from its Server-Timing header where
	// every answer carried one (ServerSource "server-timing"), else the
	// time to first byte (ServerSource "ttfb", which includes the network).
	ServerUS     float64 `json:"server_us"`
	ServerSource string  `json:"server_source"`
	// HeadUS is the time from sending a request to its answer's head.
	HeadUS float64 `json:"head_us"`
	// TransferUS is the time from the answer's head to the end of its body.
	TransferUS float64 `json:"transfer_us"`
	// ClientUS is the mean operation's time less HeadUS and TransferUS:
	// the client's own work; absent when no operation succeeded.
	ClientUS *float64 `json:"client_us,omitempty"`
	// RequestsPerOp is the HTTP requests an operation made.
	RequestsPerOp float64 `json:"requests_per_op"`
}
