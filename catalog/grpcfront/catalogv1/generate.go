// Package catalogv1 is the generated protobuf and gRPC code for the
// katbench.catalog.v1.CatalogService defined in catalog.proto. Do not edit the
// *.pb.go files: change catalog.proto and run `go generate ./...` (the tools
// are pinned by scripts/install-protoc.sh); scripts/check-generated.sh fails
// when they are stale.
package catalogv1

//go:generate bash ../../../scripts/install-protoc.sh --run protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative catalog.proto
