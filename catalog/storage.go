package catalog

// The embedded catalog reads and writes s3:// (and s3a://) warehouses
// through katbench's own S3 IO: minio-go over the chosen byte transport,
// registered with iceberg-go's io registry by this import. iceberg-go's
// gocloud S3 IO is deliberately not linked (see package icebergio).
import _ "github.com/nordisk/katbench/transport/s3/icebergio"
