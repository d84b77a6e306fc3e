package s3bench

import (
	"bytes"
	"context"
	"fmt"

	"github.com/minio/minio-go/v7"
)

// The LIST: what a catalog or an engine planning a scan without a catalog
// does, one page of a prefix's keys.
const (
	// List is a ListObjectsV2 of one page: the ListKeys keys under a
	// prefix written once before the cells.
	List Op = "list"
	// ListKeys is the keys under the listed prefix, all in one page.
	ListKeys = 100
)

func init() {
	registerOp(List, &opSpec{
		doc:  "one verified ListObjectsV2 page of 100 keys",
		size: ListKeys, bare: true,
		prepare: func(ctx context.Context, c *minio.Client, bucket, prefix string) (string, error) {
			dir := prefix + "list/"
			core := minio.Core{Client: c}
			for i := range ListKeys {
				key := fmt.Sprintf("%sk%04d", dir, i)
				if _, err := core.PutObject(ctx, bucket, key, bytes.NewReader(nil), 0, "", "", putOptions); err != nil {
					return "", fmt.Errorf("write %s: %w", key, err)
				}
			}
			return dir, nil
		},
		do: func(w *worker, ctx context.Context) error {
			n := 0
			for obj := range w.client.ListObjects(ctx, w.bucket, minio.ListObjectsOptions{Prefix: w.key, MaxKeys: 1000}) {
				if obj.Err != nil {
					return fmt.Errorf("LIST %s: %w", w.key, obj.Err)
				}
				if want := fmt.Sprintf("%sk%04d", w.key, n); obj.Key != want {
					return fmt.Errorf("LIST %s: key %d is %q, want %q", w.key, n, obj.Key, want)
				}
				n++
			}
			if n != ListKeys {
				return fmt.Errorf("LIST %s: %d keys, want %d", w.key, n, ListKeys)
			}
			return nil
		},
		params: func(_ Config, _ int64, p map[string]any) {
			p["list_keys"] = ListKeys
			p["list_page"] = "one ListObjectsV2 page; every key checked, in order"
		},
	})
}
