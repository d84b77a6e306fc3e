package results

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestRingMappings(t *testing.T) {
	maps := `55d0c0000000-55d0c0001000 r--p 00000000 fd:01 123 /usr/bin/x
7f0000000000-7f0000004000 rw-s 00000000 00:0f 7 anon_inode:[io_uring]
7f0000010000-7f0000011000 rw-s 10000000 00:0f 7 anon_inode:[io_uring]
7f0000020000-7f0000021000 rw-p 00000000 00:00 0
`
	got, rings, err := ringMappings([]byte(maps))
	if err != nil || got != float64(0x5000)/(1<<20) || rings != 1 {
		t.Fatalf("ringMappings = %v, %d, %v; want %v, 1", got, rings, err, float64(0x5000)/(1<<20))
	}
	if _, _, err := ringMappings([]byte("zz-7f00 rw-s 0 00:0f 7 anon_inode:[io_uring]\n")); err == nil {
		t.Fatal("a bad range parsed")
	}
}

// TestReadResources: this process's facts are read, positive, and the
// open descriptors count one more after a file is opened.
func TestReadResources(t *testing.T) {
	before, err := ReadResources()
	if _, statErr := os.Stat("/proc/self/status"); statErr != nil {
		t.Skipf("skipping: no /proc here: %v", statErr)
	}
	if err != nil {
		t.Fatalf("ReadResources: %v", err)
	}
	if before.Threads == nil || *before.Threads < 1 || before.VMSizeMiB == nil || *before.VMSizeMiB <= 0 || before.FDs == nil || before.Rings == nil || before.RingFDs == nil || before.RingMapMiB == nil {
		t.Fatalf("resources %+v", before)
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	after, err := ReadResources()
	if err != nil {
		t.Fatal(err)
	}
	if *after.FDs != *before.FDs+1 {
		t.Errorf("fds %d after opening one, %d before", *after.FDs, *before.FDs)
	}
}

// TestResourcesAbsentWhenUnmeasured: a line without resources has no
// resources key; a measured 0 is written as 0.
func TestResourcesAbsentWhenUnmeasured(t *testing.T) {
	b, err := json.Marshal(Record{Params: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "resources") {
		t.Errorf("unmeasured resources written: %s", b)
	}
	zero := 0
	b, err = json.Marshal(Record{Params: map[string]any{}, Resources: &Resources{Rings: &zero}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"resources":{"rings":0}`) {
		t.Errorf("measured 0 rings not written: %s", b)
	}
}
