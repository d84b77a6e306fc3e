package servercost

import (
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// A command name with a space and a ')' in it; utime 150, stime 50.
	line := []byte("1234 (java (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 150 50 0 0 20 0 40 0 123 456 789\n")
	got, err := parseStatCPU(line)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * time.Second; got != want {
		t.Fatalf("cpu = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "1234 (x) S 1 2", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 a b 0"} {
		if _, err := parseStatCPU([]byte(bad)); err == nil {
			t.Errorf("parseStatCPU(%q): no error", bad)
		}
	}
}

func TestParseStatusMemory(t *testing.T) {
	st := []byte("Name:\tkatbench\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t9\n")
	m, err := parseStatusMemory(st)
	if err != nil {
		t.Fatal(err)
	}
	if m.rss != 100<<20 || m.hwm != 200<<20 {
		t.Fatalf("memory = %+v, want rss 100 MiB, hwm 200 MiB", m)
	}
	if _, err := parseStatusMemory([]byte("Name:\tkthreadd\nThreads:\t1\n")); err == nil {
		t.Fatal("a kernel thread's status (no VmRSS): no error")
	}
}

func TestParseSockets(t *testing.T) {
	tbl := []byte(`  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000   999        0 37267 1 0000000000000000 100 0 0 10 0
   1: 0100007F:D431 0100007F:3D74 01 00000000:00000000 02:000ADFD0 00000000   999        0 37502 2 0000000000000000 21 4 5 18 -1
`)
	s, err := parseSockets(tbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 {
		t.Fatalf("%d sockets, want 2", len(s))
	}
	if s[0].state != tcpListen || s[0].local.port != 8080 || s[0].inode != 37267 {
		t.Errorf("listener = %+v, want port 8080 listening, inode 37267", s[0])
	}
	if s[1].state != tcpEstablished || s[1].local.port != 0xD431 || s[1].remote.port != 0x3D74 {
		t.Errorf("connection = %+v", s[1])
	}
	if _, err := parseSockets([]byte("header\n 0: nothex:zz 0:0 0A a b c d e 1\n")); err == nil {
		t.Error("a bad row: no error")
	}
}

func TestBackendClientPort(t *testing.T) {
	for title, want := range map[string]int{
		"postgres: fixture fixture 127.0.0.1(60798) idle": 60798,
		"postgres: nessie nessie [::1](5123) SELECT":      5123,
		"postgres: checkpointer ":                         0,
		"postgres: u d 127.0.0.1(99999) idle":             0,
		"postgres: u d 127.0.0.1(12 idle":                 0,
	} {
		got, ok := backendClientPort(title)
		if (want == 0) == ok || (ok && got != want) {
			t.Errorf("backendClientPort(%q) = %d, %v; want %d", title, got, ok, want)
		}
	}
}

func TestStorePart(t *testing.T) {
	for path, want := range map[string]string{
		"/var/lib/pg/data/base/16384/2619":     "/var/lib/pg/data/base/16384",
		"/state/nessie-rocks/000012.sst":       "/state/nessie-rocks",
		"/tmp/x/server-rest/catalog.db":        "/tmp/x/server-rest/catalog.db",
		"/state/fixture/catalog.sqlite":        "/state/fixture/catalog.sqlite",
		"/usr/lib/jvm/lib/modules":             "",
		"/root/.cache/katbench/fixture/a.jar":  "",
		"/var/lib/pg/data/pg_wal/000000010000": "",
	} {
		if got := storePart(path); got != want {
			t.Errorf("storePart(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestParseProm(t *testing.T) {
	page := []byte(`# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
process_resident_memory_bytes{pid="1",note="a } b \" c"} 1.048576e+06 1712345678000
process_resident_memory_bytes{pid="2"} 1048576
http_server_requests_seconds_count{uri="/v1/config"} 7
`)
	s, err := parseProm(page)
	if err != nil {
		t.Fatal(err)
	}
	if s.cpu == nil || *s.cpu != 12500*time.Millisecond {
		t.Errorf("cpu = %v, want 12.5s", s.cpu)
	}
	if s.rss == nil || *s.rss != 2<<20 {
		t.Errorf("rss = %v, want 2 MiB (two label sets summed)", s.rss)
	}
	micrometer := []byte("process_cpu_time_ns_total 3.0E9\njvm_memory_used_bytes{area=\"heap\"} 5\n")
	s, err = parseProm(micrometer)
	if err != nil {
		t.Fatal(err)
	}
	if s.cpu == nil || *s.cpu != 3*time.Second || s.rss != nil {
		t.Errorf("micrometer: cpu %v rss %v, want 3s and no RSS", s.cpu, s.rss)
	}
}

func FuzzParseProm(f *testing.F) {
	f.Add([]byte("process_cpu_seconds_total{a=\"}\"} 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseProm(b)
	})
}

func FuzzParseSockets(f *testing.F) {
	f.Add([]byte("h\n 0: 0100007F:1F90 00000000:0000 0A 0:0 0:0 0 0 0 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseSockets(b)
	})
}
