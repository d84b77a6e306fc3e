package servercost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// StoreMeter measures the store of a catalog that runs in the benchmark's
// own process (iceberg-go's SQL catalog on PostgreSQL): the processes at
// the other end of this process's connections to the store's port Port on
// this host (a PostgreSQL backend per pooled connection). The catalog's own
// work is the client's and cannot be told apart, so a window's CPU is the
// store's alone and the server's memory is absent, saying why. Not safe for
// concurrent use.
type StoreMeter struct {
	Port int

	store []int
	cpu0  map[int]time.Duration
}

var _ Meter = (*StoreMeter)(nil)

// noStoreConn is why a window has no CPU: no connection to the store's
// port was open.
const noStoreConn = "no connection of this process to the store's port"

// find returns the processes at the other end of this process's
// connections to the store's port.
func (m *StoreMeter) find() ([]int, error) {
	return storePIDsTo([]int{os.Getpid()}, []int{os.Getpid()}, m.Port)
}

// Begin finds the store's processes and reads their CPU time.
func (m *StoreMeter) Begin(context.Context) error {
	store, err := m.find()
	if err != nil {
		return err
	}
	m.store = store
	m.cpu0, err = cpuTimes(store)
	return err
}

// End reads the store's CPU time again, counting a process that appeared
// in the window (a pool opening a connection) from its start, and finds
// its files.
func (m *StoreMeter) End(context.Context) (Window, error) {
	if m.cpu0 == nil {
		return Window{}, errors.New("servercost: End without Begin")
	}
	cpu, store, gone := storeCPUSince(m.store, m.cpu0, m.find)
	m.cpu0 = nil
	w := Window{Source: SourceProc, StorePIDs: store}
	if len(store) == 0 {
		w.miss("cpu", noStoreConn)
		w.miss("store_cpu", noStoreConn)
	} else {
		storeCPU := cpu
		w.CPU, w.StoreCPU = &cpu, &storeCPU
	}
	if gone > 0 {
		w.miss("store_cpu", fmt.Sprintf("%d store processes ended in the window; their CPU in it is not counted", gone))
	}
	w.miss("rss", "the catalog runs in the benchmark's own process: only its store's processes are measured")
	if parts := storeParts(store); len(parts) == 0 {
		w.miss("store_bytes", "no store file is open in the store's processes")
	} else if n, err := storeBytes(parts); err != nil {
		w.miss("store_bytes", err.Error())
	} else {
		w.StoreBytes = &n
	}
	return w, nil
}
