package competitors

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/nordisk/katbench/internal/sigv4"
)

// The scope rest-sigv4 signs for: any region and service would do for our
// own front; these are the Java client's defaults for an API Gateway
// endpoint.
const (
	ownSigV4Region  = "eu-north-1"
	ownSigV4Service = defaultSignName
)

// envChildSigV4 is the variable `katbench serve rest` reads its SigV4 key
// from (cmd/katbench's envSigV4): the child gets the key there, off its
// command line.
const envChildSigV4 = "KATBENCH_SIGV4"

func init() {
	Register(Factory{
		Name:  "rest-sigv4",
		Usage: "",
		Description: "`rest` with AWS SigV4 on every request: the client signs, our front verifies (internal/sigv4), " +
			"with a key made for the run; beside `rest` it is the cost of signing and verifying",
		Durability: true,
		Store:      StoreBbolt,
		Storage:    true,
		Props:      true,
		Example: `  katbench run rest rest-sigv4 --scenario load_table.latency,load_table.throughput.t8 --rounds 5
  katbench rest-sigv4 --quick`,
		New: func(ctx context.Context, cfg Config) (Competitor, error) {
			key, err := newSigV4Key()
			if err != nil {
				return nil, fmt.Errorf("rest-sigv4: %w", err)
			}
			return newOurREST(ctx, cfg, "rest-sigv4", key)
		},
	})
}

// sigV4Key is an access key made for one rest-sigv4 competitor: the
// client signs with it (as the AWS chain's credentials would be) and our
// front verifies with it. It exists only in this process and the child's
// environment and is never printed. A nil *sigV4Key is no SigV4: every
// method then returns the zero value. Safe for concurrent use.
type sigV4Key struct {
	id, secret string
}

var _ aws.CredentialsProvider = (*sigV4Key)(nil)

// newSigV4Key makes a random key: a 20-character id in AWS's shape and a
// 40-character secret.
func newSigV4Key() (*sigV4Key, error) {
	var b [28]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("make a SigV4 key: %w", err)
	}
	return &sigV4Key{id: "AKKB" + fmt.Sprintf("%X", b[:8]), secret: hex.EncodeToString(b[8:])}, nil
}

// Retrieve gives the key as static AWS credentials.
func (k *sigV4Key) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: k.id, SecretAccessKey: k.secret, Source: "katbench rest-sigv4"}, nil
}

// credentials is k as the client's credentials; nil for no key (an
// untyped nil, so the client falls back to the AWS chain).
func (k *sigV4Key) credentials() aws.CredentialsProvider {
	if k == nil {
		return nil
	}
	return k
}

// clientProps turn signing on in the client for k's scope.
func (k *sigV4Key) clientProps() map[string]string {
	if k == nil {
		return nil
	}
	return map[string]string{propSigV4: "true", propSignRegion: ownSigV4Region, propSignName: ownSigV4Service}
}

// verifier checks requests signed with k, for an in-process front.
func (k *sigV4Key) verifier() (*sigv4.Verifier, error) {
	return sigv4.New(k.id, k.secret, ownSigV4Region, ownSigV4Service, nil)
}

// childAuth is how a child `katbench serve rest` verifies k: its scope on
// the command line, the key itself in the environment.
func (k *sigV4Key) childAuth() childAuth {
	if k == nil {
		return childAuth{}
	}
	return childAuth{
		args: []string{"--sigv4-region", ownSigV4Region, "--sigv4-service", ownSigV4Service},
		env:  []string{envChildSigV4 + "=" + k.id + ":" + k.secret},
	}
}
