package s3bench

// cpuScope says whose work params.cpu_us_per_op counts: the whole
// process, which with the store in it (the control store) includes the
// store's own work (the same on both transports).
func cpuScope(storeInProcess bool, l lane) string {
	if l.info.Used == ClientFloor {
		return "process: the client, every request answered from memory (the store idle)"
	}
	if storeInProcess {
		return "process: client and the in-process control store"
	}
	return "process: the client (the store runs elsewhere)"
}
