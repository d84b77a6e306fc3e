package catalog

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
)

// TestMetadataFileNameIsTheFormat checks the file name against the
// format it replaces, including versions wider than five digits.
func TestMetadataFileNameIsTheFormat(t *testing.T) {
	for _, v := range []int{0, 1, 9, 42, 999, 12345, 99999, 100000, 1234567} {
		id := uuid.New()
		want := fmt.Sprintf("%05d-%s.metadata.json", v, id)
		if got := metadataFileName(v, id); got != want {
			t.Errorf("metadataFileName(%d) = %q, want %q", v, got, want)
		}
		if got := metadataVersion("file:///w/t/metadata/" + metadataFileName(v, id)); got != v {
			t.Errorf("metadataVersion of version %d's name = %d", v, got)
		}
	}
}
