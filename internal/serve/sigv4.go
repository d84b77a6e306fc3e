package serve

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nordisk/katbench/internal/auth"
	"github.com/nordisk/katbench/internal/sigv4"
)

// EnvSigV4 holds `serve rest`'s SigV4 key ACCESS_KEY:SECRET when neither
// --sigv4 nor --sigv4-file is given.
const EnvSigV4 = "KATBENCH_SIGV4"

// SigV4Settings are `serve rest`'s SigV4 verification flags. A value:
// safe to copy.
type SigV4Settings struct {
	key, file, region, service string
}

// RegisterFlags adds --sigv4, --sigv4-file, --sigv4-region and
// --sigv4-service to fl.
func (f *SigV4Settings) RegisterFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.key, "sigv4", "", "verify AWS SigV4 signatures made with ACCESS_KEY:SECRET (or --sigv4-file, or "+EnvSigV4+")")
	fl.StringVar(&f.file, "sigv4-file", "", "file whose first line is ACCESS_KEY:SECRET (keeps the secret off the command line)")
	fl.StringVar(&f.region, "sigv4-region", "us-east-1", "region a SigV4 signature must be made for (the client's rest.signing-region)")
	fl.StringVar(&f.service, "sigv4-service", "execute-api", "service a SigV4 signature must be made for (the client's rest.signing-name: glue, s3tables, execute-api)")
}

// Verifier is the SigV4 verifier the flags (then getenv's EnvSigV4) ask
// for, nil when none. Errors name where the key came from, never the key.
func (f SigV4Settings) Verifier(getenv func(string) string) (*sigv4.Verifier, error) {
	key, from := f.key, "--sigv4"
	switch {
	case f.key != "" && f.file != "":
		return nil, Settingsf("give --sigv4 or --sigv4-file, not both")
	case f.file != "":
		b, err := os.ReadFile(f.file)
		if err != nil {
			return nil, Settingsf("--sigv4-file: %v", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		key, from = strings.TrimSpace(line), "--sigv4-file "+f.file
	case key == "":
		key, from = strings.TrimSpace(getenv(EnvSigV4)), EnvSigV4
	}
	if key == "" {
		return nil, nil
	}
	c, err := auth.ParseCredential(key)
	if err != nil {
		return nil, Settingsf("%s: want the access key id and its secret joined by a colon, both non-empty", from)
	}
	if f.region == "" || f.service == "" {
		return nil, Settingsf("--sigv4-region and --sigv4-service must be non-empty")
	}
	v, err := sigv4.New(c.ID, c.Secret, f.region, f.service, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return v, nil
}
