package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/auth"
	"github.com/nordisk/katbench/internal/sigv4"
)

// envSigV4 holds `serve rest`'s SigV4 key ACCESS_KEY:SECRET when neither
// --sigv4 nor --sigv4-file is given.
const envSigV4 = "KATBENCH_SIGV4"

// sigv4Flags are `serve rest`'s SigV4 verification flags.
type sigv4Flags struct {
	key, file, region, service string
}

func (f *sigv4Flags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.key, "sigv4", "", "verify AWS SigV4 signatures made with ACCESS_KEY:SECRET (or --sigv4-file, or "+envSigV4+")")
	fl.StringVar(&f.file, "sigv4-file", "", "file whose first line is ACCESS_KEY:SECRET (keeps the secret off the command line)")
	fl.StringVar(&f.region, "sigv4-region", "us-east-1", "region a SigV4 signature must be made for (the client's rest.signing-region)")
	fl.StringVar(&f.service, "sigv4-service", "execute-api", "service a SigV4 signature must be made for (the client's rest.signing-name: glue, s3tables, execute-api)")
}

// verifier is the SigV4 verifier the flags (then the environment) ask for,
// nil when none. Errors name where the key came from, never the key.
func (f *sigv4Flags) verifier(getenv func(string) string) (*sigv4.Verifier, error) {
	key, from := f.key, "--sigv4"
	switch {
	case f.key != "" && f.file != "":
		return nil, usagef("give --sigv4 or --sigv4-file, not both")
	case f.file != "":
		b, err := os.ReadFile(f.file)
		if err != nil {
			return nil, usagef("--sigv4-file: %v", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		key, from = strings.TrimSpace(line), "--sigv4-file "+f.file
	case key == "":
		key, from = strings.TrimSpace(getenv(envSigV4)), envSigV4
	}
	if key == "" {
		return nil, nil
	}
	c, err := auth.ParseCredential(key)
	if err != nil {
		return nil, usagef("%s: want the access key id and its secret joined by a colon, both non-empty", from)
	}
	if f.region == "" || f.service == "" {
		return nil, usagef("--sigv4-region and --sigv4-service must be non-empty")
	}
	v, err := sigv4.New(c.ID, c.Secret, f.region, f.service, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return v, nil
}
