package competitors

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog/rest"
	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
)

// The client properties that turn SigV4 signing on, under the names of
// Apache Iceberg's Java client, so a user's existing catalog configuration
// carries over (AWS Glue's Iceberg REST endpoint: signing name glue; S3
// Tables: s3tables).
const (
	propSigV4       = "rest.sigv4-enabled"
	propSignRegion  = "rest.signing-region"
	propSignName    = "rest.signing-name"
	defaultSignName = "execute-api" // the Java client's and iceberg-go's default
)

// credentialsTimeout bounds finding the AWS credentials at connect (the
// chain may end at an instance metadata endpoint that is not there).
const credentialsTimeout = 10 * time.Second

// awsSigner signs the requests katbench sends itself (Control, the direct
// conditional load) exactly as iceberg-go's REST client signs its own:
// SigV4 with the payload hash header, credentials from the AWS chain.
// Safe for concurrent use.
type awsSigner struct {
	cfg     aws.Config
	service string
	signer  *v4.Signer
}

// sigV4Options reads the SigV4 properties of p: nil options when
// rest.sigv4-enabled is absent or false. Credentials come from the
// standard AWS chain (environment, shared config and credentials files
// with AWS_PROFILE, web identity, container and instance roles) and are
// looked up once here, so a machine without any fails at connect with
// where it looked; they are never printed. keys, when not nil, are the
// credentials instead, and the region is then rest.signing-region alone
// (no AWS configuration is read).
func sigV4Options(ctx context.Context, p map[string]string, keys aws.CredentialsProvider) ([]rest.Option, *awsSigner, error) {
	on := strings.ToLower(strings.TrimSpace(p[propSigV4]))
	switch on {
	case "", "false":
		for _, k := range []string{propSignRegion, propSignName} {
			if p[k] != "" {
				return nil, nil, fmt.Errorf("%s is set but %s=true is not: give both to sign requests with SigV4", k, propSigV4)
			}
		}
		return nil, nil, nil
	case "true":
	default:
		return nil, nil, fmt.Errorf("%s=%q: want true or false", propSigV4, p[propSigV4])
	}
	if p["credential"] != "" || p["token"] != "" {
		return nil, nil, fmt.Errorf("%s=true and credential/token are exclusive: a request carries one Authorization header", propSigV4)
	}
	service := p[propSignName]
	if service == "" {
		service = defaultSignName
	}
	cctx, cancel := context.WithTimeout(ctx, credentialsTimeout)
	defer cancel()
	cfg := aws.Config{Region: p[propSignRegion], Credentials: keys}
	if keys == nil {
		var load []func(*config.LoadOptions) error
		if r := p[propSignRegion]; r != "" {
			load = append(load, config.WithRegion(r))
		}
		var err error
		if cfg, err = config.LoadDefaultConfig(cctx, load...); err != nil {
			return nil, nil, fmt.Errorf("SigV4: load the AWS configuration: %w", err)
		}
	}
	if cfg.Region == "" {
		return nil, nil, fmt.Errorf("SigV4: no signing region: give --prop %s=REGION (or set AWS_REGION)", propSignRegion)
	}
	if _, err := cfg.Credentials.Retrieve(cctx); err != nil {
		return nil, nil, fmt.Errorf("SigV4: no AWS credentials found (looked in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "+
			"the shared config and credentials files with AWS_PROFILE, web identity and instance roles): %w", err)
	}
	opts := []rest.Option{rest.WithAwsConfig(cfg), rest.WithSigV4RegionSvc(cfg.Region, service)}
	return opts, &awsSigner{cfg: cfg, service: service, signer: v4.NewSigner()}, nil
}

// Region is the region requests are signed for.
func (s *awsSigner) Region() string { return s.cfg.Region }

// sign signs req, which has no body, in place.
func (s *awsSigner) sign(req *http.Request) error {
	const emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	creds, err := s.cfg.Credentials.Retrieve(req.Context())
	if err != nil {
		return fmt.Errorf("SigV4 credentials: %w", err)
	}
	req.Header.Set("X-Amz-Content-Sha256", emptyHash)
	return s.signer.SignHTTP(req.Context(), creds, req, emptyHash, s.service, s.cfg.Region, time.Now())
}
