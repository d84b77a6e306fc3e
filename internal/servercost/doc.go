// Package servercost measures what a catalog server pays for the
// operations a benchmark sends it: CPU time, resident memory and the
// bytes its store keeps on disk, over one measured window.
//
// Two sources, one result ([Window]):
//
//   - proc: the server runs on this host. Its processes are found from
//     its listening port (/proc/net/tcp{,6} socket inodes matched to
//     /proc/PID/fd links) or given by PID; the store serving it is every
//     process at the other end of the server's own outgoing loopback
//     connections (a PostgreSQL backend per pooled connection, say). CPU
//     is utime+stime of /proc/PID/stat (every thread of the process,
//     exited ones included), RSS is VmRSS of /proc/PID/status sampled on
//     a ticker through the window, with VmHWM when it rose inside it.
//   - prometheus: the server is elsewhere. Its metrics endpoint is scraped
//     before and after the window (and on the ticker for the peak):
//     process_cpu_seconds_total or Micrometer's process_cpu_time_ns_total,
//     and process_resident_memory_bytes.
//
// What is left out is said in docs/sizing.md: the store's processes'
// memory (PostgreSQL backends share their buffers, so a sum of their RSS
// counts the same pages many times), PostgreSQL's shared background
// workers (checkpointer, WAL writer, autovacuum), and CPU a process spent
// in threads or children that were not yet found when the window began.
//
// A Meter is used by one goroutine at a time: Begin, then End.
package servercost
