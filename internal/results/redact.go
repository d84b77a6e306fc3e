package results

import (
	"bytes"
	"slices"
	"strings"
	"sync"
)

// Redacted stands in for every secret value a line, a report or a message
// would otherwise show, so the command that produced a result stays
// readable (--prop credential=REDACTED) and can be re-run with the secret
// supplied again. The functions of this file never modify their arguments
// and are safe for concurrent use.
const Redacted = "REDACTED"

// valueFlags take a secret as their value: the word after them is redacted
// whatever it looks like (Go's flag parsing takes it even when it starts
// with a dash).
var valueFlags = map[string]bool{"secret-key": true, "access-key": true, "credential": true, "token": true}

// secretParts are the fragments that make a name a secret's name when they
// appear anywhere in it, after lowercasing and dropping '-', '_' and '.'
// (so s3.secret-access-key, AWS_SECRET_ACCESS_KEY and secretAccessKey all
// match "secret").
var secretParts = []string{
	"secret", "password", "passwd", "passphrase", "token", "credential",
	"apikey", "accesskey", "privatekey", "authorization", "cookie",
	"signature", "sigv4", "oauth2",
}

// isSecretWord reports whether a name component (split at any character
// that is not a letter or a digit) makes a name a secret's name on its
// own: "key" names a secret in signing-key, but keys (a count) does not.
func isSecretWord(w string) bool {
	switch len(w) {
	case 3:
		return strings.EqualFold(w, "key") || strings.EqualFold(w, "pwd")
	case 4:
		return strings.EqualFold(w, "pass")
	case 7:
		return strings.EqualFold(w, "headers")
	}
	return false
}

// secretPartBytes are secretParts as byte slices, for SecretName's
// allocation-free search.
var secretPartBytes = func() [][]byte {
	out := make([][]byte, len(secretParts))
	for i, p := range secretParts {
		out[i] = []byte(p)
	}
	return out
}()

// SecretName reports whether a flag, property or param name names a
// secret: credential, token, any header.* property, and any name holding
// a secret, password, key or token (s3.secret-access-key,
// s3.session-token, s3.access-key-id, rest.sigv4-enabled,
// oauth2-server-uri, --secret-key). Leading dashes and a "prop." prefix
// (how client properties appear in params) are ignored; letters are
// compared without regard to ASCII case. It is safe for concurrent use.
func SecretName(name string) bool {
	secretNames.mu.RLock()
	r, ok := secretNames.m[name]
	secretNames.mu.RUnlock()
	if ok {
		return r
	}
	r = secretName(name)
	secretNames.mu.Lock()
	if len(secretNames.m) < maxSecretNames {
		secretNames.m[name] = r
	}
	secretNames.mu.Unlock()
	return r
}

// secretNames caches SecretName's answers: the names of a run's params and
// flags are few and come back on every line. It holds at most
// maxSecretNames, so odd input cannot grow it without bound.
var secretNames = struct {
	mu sync.RWMutex
	m  map[string]bool
}{m: map[string]bool{}}

const maxSecretNames = 4096

func secretName(name string) bool {
	n := strings.TrimLeft(name, "-")
	if len(n) >= 5 && strings.EqualFold(n[:5], "prop.") {
		n = n[5:]
	}
	if strings.EqualFold(n, "credential") || strings.EqualFold(n, "token") || len(n) >= 7 && strings.EqualFold(n[:7], "header.") {
		return true
	}
	var buf [128]byte
	compact := buf[:0] // n in lowercase, without '-', '_' and '.'
	for i := 0; i < len(n); i++ {
		if c := n[i]; c != '-' && c != '_' && c != '.' {
			compact = append(compact, asciiLowerByte(c))
		}
	}
	for _, p := range secretPartBytes {
		if bytes.Contains(compact, p) {
			return true
		}
	}
	for i := 0; i < len(n); {
		j := i
		for j < len(n) && isAlnum(rune(n[j])) {
			j++
		}
		if isSecretWord(n[i:j]) {
			return true
		}
		i = j + 1
	}
	return false
}

// RedactValue returns the value to show for name=value: Redacted when name
// names a secret (except the switch values true and false, which hold
// none), else value with RedactText applied.
func RedactValue(name, value string) string {
	if SecretName(name) {
		if value == "" || value == "true" || value == "false" {
			return value
		}
		return Redacted
	}
	return RedactText(value)
}

// RedactProp returns a client property entry "k=v" as it may be shown:
// "k=REDACTED" when k names a secret, else k=v with RedactText applied. An
// entry that is not k=v is shown so a message can say which one was
// malformed, but only its leading name: the rest is Redacted
// ("credential a:b" shows as "credential REDACTED", "broken:x" as
// "broken:REDACTED"), and a bare word is shown only when it looks like a
// property name (lowercase letters, '.', '-' and '_'), not like a pasted
// token; "=v" shows as "=REDACTED".
func RedactProp(kv string) string {
	k, v, ok := strings.Cut(kv, "=")
	switch {
	case ok && k != "":
		return k + "=" + RedactValue(k, v)
	case ok:
		return "=" + Redacted
	}
	i := 0
	for i < len(kv) && isNameByte(kv[i]) {
		i++
	}
	switch {
	case i == len(kv) && isPropName(kv):
		return kv
	case i == len(kv) || i == 0:
		return Redacted
	case kv[i+1:] == Redacted:
		return kv
	}
	return kv[:i+1] + Redacted
}

// isPropName reports whether s looks like a property name rather than a
// secret: lowercase letters and '.', '-', '_', at most 40 bytes.
func isPropName(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// RedactArgs returns a copy of a command line (program name, then its
// arguments) with every secret value replaced by Redacted: the value of
// --secret-key, --access-key, --credential, --token and of any other flag
// whose name names a secret (SecretName), in the --flag value and
// --flag=value forms and with one dash or two; --prop entries whose key
// names a secret; and passwords in URLs (http://user:REDACTED@host). The
// words may be raw arguments or POSIX shell words as ShellQuote writes
// them; a word that changes is written back in the form it came in. A
// flag that does not take a secret (a switch such as
// --vend-storage-credentials) is told apart only by the word after it: a
// word starting with "-" is not taken as its value. RedactArgs is
// idempotent and never fails.
func RedactArgs(args []string) []string {
	if args == nil {
		return nil
	}
	raw := make([]string, len(args))
	quoted := make([]bool, len(args))
	for i, a := range args {
		raw[i], quoted[i] = unquoteWord(a)
	}
	// Each word is read both ways, as a shell word and as a raw argument
	// ('' is an empty shell word but a two-character raw one): a value
	// that is a secret under either reading is redacted.
	red, asIs := redactWords(raw), []string(nil)
	if slices.Contains(quoted, true) {
		asIs = redactWords(args)
	} else {
		asIs = red // no word is quoted: both readings are the same
	}
	out := make([]string, len(args))
	for i := range args {
		switch {
		case red[i] != raw[i] && quoted[i]:
			out[i] = ShellQuote(red[i])
		case red[i] != raw[i]:
			out[i] = red[i]
		default:
			out[i] = asIs[i]
		}
	}
	return out
}

// RedactCommand is RedactArgs for a command line kept as one string of
// shell words separated by spaces (as older result lines wrote it). A
// string that does not split into shell words gets RedactText.
func RedactCommand(s string) string {
	words, ok := splitWords(s)
	if !ok {
		return RedactText(s)
	}
	red := RedactArgs(words)
	for i := range words {
		if red[i] != words[i] {
			return strings.Join(red, " ")
		}
	}
	return s
}

// redactWords redacts raw (unquoted) arguments.
func redactWords(args []string) []string {
	out := make([]string, len(args))
	secretNext, propNext := false, false
	for i, a := range args {
		switch {
		case secretNext:
			out[i] = RedactValue("secret", a)
			secretNext = false
		case propNext:
			out[i] = RedactProp(a)
			propNext = false
		case len(a) > 1 && a[0] == '-':
			dashes := a[:len(a)-len(strings.TrimLeft(a, "-"))]
			name, val, hasVal := strings.Cut(a[len(dashes):], "=")
			lname := strings.ToLower(name)
			switch {
			case lname == "prop" && hasVal:
				out[i] = dashes + name + "=" + RedactProp(val)
			case lname == "prop":
				out[i], propNext = a, true
			case hasVal:
				out[i] = dashes + name + "=" + RedactValue(name, val)
			case SecretName(name):
				out[i] = a
				secretNext = valueFlags[lname] || i+1 < len(args) && !strings.HasPrefix(args[i+1], "-")
			default:
				out[i] = a
			}
		default:
			out[i] = redactWord(a)
		}
	}
	return out
}

// redactWord redacts an argument that is not a flag: a k=v whose key names
// a secret, or any text RedactText recognises.
func redactWord(a string) string {
	if k, v, ok := strings.Cut(a, "="); ok && k != "" && isName(k) {
		return k + "=" + RedactValue(k, v)
	}
	return RedactText(a)
}

// RedactParams returns a copy of params fit to be shown: the value of
// every key that names a secret (SecretName, so "prop.header.Authorization"
// and "prop.s3.secret-access-key" included) is Redacted, and every other
// string, in nested maps and lists too, gets RedactText. Booleans are kept:
// they hold no secret. nil stays nil; params itself is not modified.
func RedactParams(params map[string]any) map[string]any {
	if params == nil {
		return nil
	}
	out := make(map[string]any, len(params))
	for k, v := range params {
		out[k] = redactParam(k, v)
	}
	return out
}

func redactParam(k string, v any) any {
	if _, isBool := v.(bool); !isBool && v != nil && SecretName(k) {
		if s, ok := v.(string); ok && s == "" {
			return s
		}
		return Redacted
	}
	switch v := v.(type) {
	case string:
		return RedactText(v)
	case map[string]any:
		return RedactParams(v)
	case map[string]string:
		m := make(map[string]string, len(v))
		for kk, vv := range v {
			m[kk] = RedactValue(kk, vv)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = redactParam("", e)
		}
		return l
	case []string:
		l := make([]string, len(v))
		for i, e := range v {
			l[i] = RedactText(e)
		}
		return l
	}
	return v
}

// redact returns r with its command, params and free-text fields
// redacted. It is how every line is made and written.
func redact(r Record) Record {
	r.Command = RedactArgs(r.Command)
	r.Params = RedactParams(r.Params)
	r.FirstError = RedactText(r.FirstError)
	r.Skipped = RedactText(r.Skipped)
	r.TransportFallback = RedactText(r.TransportFallback)
	return r
}

// RedactText returns s, a message or any free text that may quote user
// input, with the secrets it can recognise replaced by Redacted: URL
// passwords (scheme://user:REDACTED@host), the token after Bearer or Basic,
// name=value and name:value where the name names a secret (SecretName;
// with ':' only when the value follows at once, so "credential: want
// id:secret" is prose), and the word after --secret-key, --access-key,
// --credential and --token. Text cannot say where an unquoted value with
// spaces ends: a value is taken to end at white space, a quote or one of
// ,;&)]}>, unless it starts with a quote. It is idempotent.
func RedactText(s string) string {
	if s == "" {
		return s
	}
	// Each rule runs only where its trigger is, as most text has none.
	if strings.Contains(s, "://") && strings.IndexByte(s, '@') >= 0 {
		s = redactURLs(s)
	}
	spaced := strings.ContainsAny(s, " \t\n\r\v\f") // a scheme or a flag and its value
	if spaced && strings.ContainsAny(s, "bB") {
		s = redactSchemes(s)
	}
	if strings.ContainsAny(s, "=:") {
		s = redactPairs(s)
	}
	if spaced && strings.IndexByte(s, '-') >= 0 {
		s = redactTextFlags(s)
	}
	return s
}

// redactURLs replaces the password of every scheme://user:password@host.
func redactURLs(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexFunc(s, func(r rune) bool { return isSpace(r) || strings.ContainsRune("\"'`<>", r) })
		if end < 0 {
			end = len(s)
		}
		at := strings.LastIndexByte(s[:end], '@')
		if at < 0 {
			continue
		}
		user, pass, ok := strings.Cut(s[:at], ":")
		if !ok || pass == Redacted || isPortPath(pass) {
			continue
		}
		b.WriteString(user + ":" + Redacted)
		s = s[at:]
	}
}

// isPortPath reports whether what follows a ':' before an '@' is a port
// and a path (host:9000/x@y), not a password.
func isPortPath(s string) bool {
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	return digits > 0 && digits < len(s) && s[digits] == '/'
}

// authSchemes are the HTTP auth scheme words whose next word is a
// credential; Basic only in its usual spelling, so "basic" in prose stays.
var authSchemes = []struct {
	word string
	fold bool
}{{"bearer", true}, {"Basic", false}}

// redactSchemes replaces the credential after an HTTP auth scheme word.
func redactSchemes(s string) string {
	for _, sc := range authSchemes {
		s = replaceValues(s, func(i int) (int, int, bool) {
			j := i + len(sc.word)
			if j >= len(s) || asciiLowerByte(s[i]) != asciiLowerByte(sc.word[0]) || !isSpace(rune(s[j])) || i > 0 && isAlnum(rune(s[i-1])) {
				return 0, 0, false
			}
			if w := s[i:j]; sc.fold && !strings.EqualFold(w, sc.word) || !sc.fold && w != sc.word {
				return 0, 0, false
			}
			for j < len(s) && isSpace(rune(s[j])) {
				j++
			}
			return j, valueEnd(s, j), true
		})
	}
	return s
}

// redactPairs replaces the value of name=value and name:value when the
// name names a secret.
func redactPairs(s string) string {
	return replaceValues(s, func(i int) (int, int, bool) {
		c := s[i]
		if c != '=' && c != ':' || c == ':' && strings.HasPrefix(s[i:], "://") {
			return 0, 0, false
		}
		start := i
		for start > 0 && isNameByte(s[start-1]) {
			start--
		}
		if start == i || !SecretName(s[start:i]) {
			return 0, 0, false
		}
		return i + 1, valueEnd(s, i+1), true
	})
}

// redactTextFlags replaces the word after a flag that takes a secret.
func redactTextFlags(s string) string {
	return replaceValues(s, func(i int) (int, int, bool) {
		if s[i] != '-' || i > 0 && !isSpace(rune(s[i-1])) && !strings.ContainsRune("\"'`(", rune(s[i-1])) {
			return 0, 0, false
		}
		j := i
		for j < len(s) && s[j] == '-' {
			j++
		}
		k := j
		for k < len(s) && isNameByte(s[k]) {
			k++
		}
		if !valueFlags[strings.ToLower(s[j:k])] || k >= len(s) || !isSpace(rune(s[k])) {
			return 0, 0, false
		}
		for k < len(s) && isSpace(rune(s[k])) {
			k++
		}
		return k, valueEnd(s, k), true
	})
}

// replaceValues returns s with the values found replaced by Redacted:
// find(i) reports whether a value to hide starts after position i and
// where it lies, [v, end). Empty values, values already Redacted and the
// switch values true and false are left as they are; scanning resumes
// after each value.
func replaceValues(s string, find func(i int) (v, end int, ok bool)) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		v, end, ok := find(i)
		if !ok {
			continue
		}
		switch s[v:end] {
		case "", Redacted, "true", "false":
		default:
			b.WriteString(s[last:v])
			b.WriteString(Redacted)
			last = end
		}
		i = max(i, end-1)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// valueEnd returns where a value starting at i ends in free text: at the
// first white space, quote or one of ,;&)]}> after it, where a value
// that starts with a quote runs at least to the matching one (to the end
// of s when there is none).
func valueEnd(s string, i int) int {
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		j := strings.IndexByte(s[i+1:], s[i])
		if j < 0 {
			return len(s)
		}
		i += 1 + j + 1
	}
	for i < len(s) && !isSpace(rune(s[i])) && !strings.ContainsRune("\"'`,;&)]}>", rune(s[i])) {
		i++
	}
	return i
}

func asciiLowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func isNameByte(c byte) bool { return isAlnum(rune(c)) || c == '_' || c == '.' || c == '-' }

func isName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}
