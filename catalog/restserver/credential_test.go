package restserver

import (
	"errors"
	"testing"

	"github.com/nordisk/katbench/internal/auth"
)

// TestCredentialRule: the REST front takes a credential under the same rule
// as the gRPC front (internal/auth): "id:secret", both parts non-empty.
func TestCredentialRule(t *testing.T) {
	cat := newEmbedded(t)
	for _, c := range []string{"baresecret", ":secret", "id:"} {
		if _, err := New(cat, Options{Credential: c}); !errors.Is(err, ErrBadOptions) {
			t.Errorf("New(Credential %q): %v, want ErrBadOptions", c, err)
		}
		if err := ValidateCredential(c); !errors.Is(err, auth.ErrBadCredential) {
			t.Errorf("ValidateCredential(%q): %v, want auth.ErrBadCredential", c, err)
		}
	}
	if _, err := New(cat, Options{Credential: "id:se:cret"}); err != nil {
		t.Errorf("New(Credential id:se:cret): %v", err)
	}
}
