// Command ociimage writes katbench's container image as an OCI image-layout
// tar without Docker, a registry or a base image: one layer holding the
// static katbench binary, an empty /tmp, the host's CA certificates and a
// non-root user, and a config that runs katbench as that user.
// `ctr -n k8s.io images import FILE` loads it into containerd; the same tree
// is what containers/Dockerfile builds FROM scratch (-rootfs writes it).
//
//	go run ./containers/k8s/ociimage -binary katbench -o katbench-image.tar [-name katbench:dev] [-rootfs DIR]
//	go run ./containers/k8s/ociimage -pause -binary pause -o pause.tar -name katbench/pause:1
//
// The output is reproducible: every file's time is SOURCE_DATE_EPOCH (0 when
// unset), so one binary gives one image digest.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	var o options
	flag.StringVar(&o.binary, "binary", "", "the static katbench binary to put at /katbench (CGO_ENABLED=0 go build ./cmd/katbench)")
	flag.StringVar(&o.out, "o", "katbench-image.tar", "the OCI image-layout tar to write")
	flag.StringVar(&o.name, "name", "katbench:dev", "the image's reference name (what a pod's image: names)")
	flag.StringVar(&o.caFile, "ca", "/etc/ssl/certs/ca-certificates.crt", "the CA bundle to put at /etc/ssl/certs/ca-certificates.crt")
	flag.StringVar(&o.rootfs, "rootfs", "", "also write the image's file tree to this directory (for containers/Dockerfile)")
	flag.BoolVar(&o.pause, "pause", false, "write the pod sandbox image instead: -binary (containers/k8s/pause) alone at /pause")
	flag.Parse()
	if flag.NArg() != 0 {
		fail(2, fmt.Errorf("unexpected arguments %q (see -h)", flag.Args()))
	}
	if o.binary == "" {
		fail(2, errors.New("-binary is required: the static katbench binary (CGO_ENABLED=0 go build -o katbench ./cmd/katbench)"))
	}
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			fail(2, fmt.Errorf("SOURCE_DATE_EPOCH=%q: not a number of seconds", s))
		}
		o.mtime = time.Unix(sec, 0).UTC()
	} else {
		o.mtime = time.Unix(0, 0).UTC()
	}
	digest, err := build(o)
	if err != nil {
		fail(1, err)
	}
	fmt.Fprintf(os.Stderr, "ociimage: wrote %s (%s, manifest %s)\n", o.out, o.name, digest)
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "ociimage:", err)
	os.Exit(code)
}
