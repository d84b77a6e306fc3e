package s3_test

import (
	"errors"
	"os"
	"testing"

	"github.com/nordisk/katbench/transport/s3"
)

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		in     string
		host   string
		secure bool
		ok     bool
	}{
		{"http://127.0.0.1:7070", "127.0.0.1:7070", false, true},
		{"http://127.0.0.1:7070/", "127.0.0.1:7070", false, true},
		{"https://s3.example.com", "s3.example.com", true, true},
		{"HTTP://[::1]:9000", "[::1]:9000", false, true},
		{"", "", false, false},
		{"127.0.0.1:7070", "", false, false},
		{"s3://bucket", "", false, false},
		{"http://", "", false, false},
		{"http://:9000", "", false, false},
		{"http://host:", "", false, false},
		{"http://host:0", "", false, false},
		{"http://host:x", "", false, false},
		{"http://host:9000/path", "", false, false},
		{"http://host:9000?x=1", "", false, false},
		{"http://user:pw@host:9000", "", false, false},
		{"http://host\x00:9000", "", false, false},
	}
	for _, tc := range tests {
		ep, err := s3.ParseEndpoint(tc.in)
		if !tc.ok {
			if err == nil {
				t.Errorf("ParseEndpoint(%q) = %+v, want an error", tc.in, ep)
			} else if !errors.Is(err, s3.ErrBadEndpoint) {
				t.Errorf("ParseEndpoint(%q): error %v does not wrap ErrBadEndpoint", tc.in, err)
			}
			continue
		}
		if err != nil || ep.Host != tc.host || ep.Secure != tc.secure {
			t.Errorf("ParseEndpoint(%q) = %+v, %v; want host %q secure %v", tc.in, ep, err, tc.host, tc.secure)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(s3.EnvEndpoint, "http://127.0.0.1:1234")
	t.Setenv(s3.EnvAccessKey, "ak")
	t.Setenv(s3.EnvSecretKey, "sk")
	t.Setenv(s3.EnvRegion, "")
	c := s3.FromEnv(os.Getenv)
	if c.Endpoint != "http://127.0.0.1:1234" || c.AccessKey != "ak" || c.SecretKey != "sk" || c.Region != s3.DefaultRegion {
		t.Fatalf("FromEnv = %+v", c)
	}
	t.Setenv(s3.EnvRegion, "eu-north-1")
	if got := s3.FromEnv(os.Getenv).Region; got != "eu-north-1" {
		t.Fatalf("region %q, want eu-north-1", got)
	}
}
