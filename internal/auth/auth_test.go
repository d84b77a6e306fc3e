package auth_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nordisk/katbench/internal/auth"
)

func TestParseCredential(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want auth.Credential
		ok   bool
	}{
		{"id:secret", auth.Credential{ID: "id", Secret: "secret"}, true},
		{"id:se:cret", auth.Credential{ID: "id", Secret: "se:cret"}, true},
		{"", auth.Credential{}, false},
		{"baresecret", auth.Credential{}, false},
		{":secret", auth.Credential{}, false},
		{"id:", auth.Credential{}, false},
		{"id:se\ncret", auth.Credential{}, false},
		{"i\x7fd:secret", auth.Credential{}, false},
	} {
		got, err := auth.ParseCredential(tc.in)
		if !tc.ok {
			if !errors.Is(err, auth.ErrBadCredential) {
				t.Errorf("ParseCredential(%q) err = %v, want ErrBadCredential", tc.in, err)
			}
			if err != nil && strings.Contains(tc.in, ":") && strings.Contains(err.Error(), "secret\"") {
				t.Errorf("ParseCredential(%q) err %q shows the secret", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseCredential(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseCredentialHidesSecret(t *testing.T) {
	_, err := auth.ParseCredential("bench:TOPSECRET\n")
	if err == nil || strings.Contains(err.Error(), "TOPSECRET") || !strings.Contains(err.Error(), "bench") {
		t.Fatalf("err = %v; want an error naming the id, not the secret", err)
	}
}

func TestBearerToken(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Bearer abc", "abc"},
		{"bearer abc ", "abc"},
		{"", ""},
		{"Basic abc", ""},
		{"Bearer ", ""},
		{"Bearer", ""},
	} {
		got, err := auth.BearerToken(tc.in)
		if tc.want == "" {
			if !errors.Is(err, auth.ErrNoToken) {
				t.Errorf("BearerToken(%q) = %q, %v; want ErrNoToken", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("BearerToken(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestStore(t *testing.T) {
	if _, err := auth.NewStore([]auth.Credential{{ID: "x"}}, 0); !errors.Is(err, auth.ErrBadCredential) {
		t.Fatalf("NewStore with an empty secret: %v, want ErrBadCredential", err)
	}
	st, err := auth.NewStore([]auth.Credential{{ID: "bench", Secret: "s3cret"}, {ID: "other", Secret: "x:y"}}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Enabled() || st.TTL() != time.Minute {
		t.Fatalf("Enabled %v TTL %v", st.Enabled(), st.TTL())
	}
	for _, c := range []auth.Credential{{ID: "bench", Secret: "s3cret"}, {ID: "other", Secret: "x:y"}} {
		if err := st.Verify(c.ID, c.Secret); err != nil {
			t.Errorf("Verify(%q): %v", c.ID, err)
		}
	}
	for _, c := range []auth.Credential{{ID: "bench", Secret: "wrong"}, {ID: "who", Secret: "s3cret"}, {}} {
		if err := st.Verify(c.ID, c.Secret); !errors.Is(err, auth.ErrWrongCredential) {
			t.Errorf("Verify(%+v) = %v, want ErrWrongCredential", c, err)
		}
	}
	t0 := time.Unix(1000, 0)
	tok, err := st.Mint(t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(tok, t0.Add(time.Minute-time.Nanosecond)); err != nil {
		t.Errorf("Check before expiry: %v", err)
	}
	if err := st.Check(tok, t0.Add(time.Minute)); !errors.Is(err, auth.ErrExpiredToken) {
		t.Errorf("Check at expiry: %v, want ErrExpiredToken", err)
	}
	if err := st.Check(tok+"x", t0); !errors.Is(err, auth.ErrUnknownToken) {
		t.Errorf("Check of a token not minted here: %v, want ErrUnknownToken", err)
	}
	other, _ := auth.NewStore([]auth.Credential{{ID: "bench", Secret: "s3cret"}}, time.Minute)
	if err := other.Check(tok, t0); !errors.Is(err, auth.ErrUnknownToken) {
		t.Errorf("another store accepted this store's token: %v", err)
	}
	// A mint after the first token expired sweeps it: it is unknown, not expired.
	if _, err := st.Mint(t0.Add(2 * time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := st.Check(tok, t0.Add(2*time.Minute)); !errors.Is(err, auth.ErrUnknownToken) {
		t.Errorf("swept token: %v, want ErrUnknownToken", err)
	}
}

func TestStoreWithoutCredentials(t *testing.T) {
	st, err := auth.NewStore(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.Enabled() || st.TTL() != auth.DefaultTTL {
		t.Fatalf("Enabled %v TTL %v; want off, DefaultTTL", st.Enabled(), st.TTL())
	}
	if err := st.Verify("anyone", "anything"); err != nil {
		t.Fatalf("Verify with auth off: %v", err)
	}
}

func FuzzParseCredential(f *testing.F) {
	for _, s := range []string{"id:secret", "id:se:cret", ":", "nocolon", "a:\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := auth.ParseCredential(s)
		if err != nil {
			if !errors.Is(err, auth.ErrBadCredential) {
				t.Fatalf("ParseCredential(%q): %v is not ErrBadCredential", s, err)
			}
			id, secret, ok := strings.Cut(s, ":")
			if ok && len(secret) > 3 && !strings.Contains(fmt.Sprintf("%q", id+":***"), secret) && strings.Contains(err.Error(), secret) {
				t.Fatalf("error %q shows the secret", err)
			}
			return
		}
		if c.ID == "" || c.Secret == "" || c.ID+":"+c.Secret != s {
			t.Fatalf("ParseCredential(%q) = %+v", s, c)
		}
	})
}

func FuzzBearerToken(f *testing.F) {
	f.Add("Bearer abc")
	f.Add("bearer  x ")
	f.Fuzz(func(t *testing.T, h string) {
		tok, err := auth.BearerToken(h)
		if err == nil && (tok == "" || strings.TrimSpace(tok) != tok) {
			t.Fatalf("BearerToken(%q) = %q", h, tok)
		}
	})
}
