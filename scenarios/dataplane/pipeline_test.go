package dataplane

import (
	"testing"

	"github.com/apache/iceberg-go/table"
)

func TestTablePropsTieRowGroupsToTarget(t *testing.T) {
	for _, c := range []struct {
		target int64
		want   string // write.parquet.row-group-size-bytes; "" = unset (iceberg-go's 128 MiB)
	}{
		{0, ""},
		{64 << 20, "8388608"},
		{4 << 20, "1048576"},   // floor: 1 MiB
		{4 << 30, "134217728"}, // ceiling: iceberg-go's default
	} {
		p, err := TableProps("zstd", c.target)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := p[table.ParquetRowGroupSizeBytesKey]
		if c.want == "" && ok || got != c.want {
			t.Errorf("target %d: row group bytes %q (set %v), want %q", c.target, got, ok, c.want)
		}
	}
}
