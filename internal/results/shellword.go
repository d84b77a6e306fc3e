package results

import "strings"

// ShellQuote returns s as one POSIX shell word: unchanged when it holds
// only characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !isAlnum(r) && !strings.ContainsRune("-_./:=@,+%", r)
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// unquoteWord decodes a POSIX shell word: single and double quotes and
// backslash escapes. It reports false, returning w, when w has no quoting
// or does not decode (an unbalanced quote: then w is a raw argument).
func unquoteWord(w string) (string, bool) {
	if !strings.ContainsAny(w, `'"\`) {
		return w, false
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				return w, false
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 1
		case '"':
			i++
			for ; i < len(w) && w[i] != '"'; i++ {
				if w[i] == '\\' && i+1 < len(w) && strings.IndexByte("\"\\$`\n", w[i+1]) >= 0 {
					i++
				}
				b.WriteByte(w[i])
			}
			if i >= len(w) {
				return w, false
			}
		case '\\':
			if i+1 >= len(w) {
				return w, false
			}
			i++
			b.WriteByte(w[i])
		default:
			if isSpace(rune(c)) {
				return w, false // a raw argument with a space
			}
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// splitWords splits a command line into its shell words, each kept as
// written. It reports false on an unbalanced quote.
func splitWords(s string) ([]string, bool) {
	var words []string
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			if start < 0 {
				start = i
			}
			i += j + 1
		case c == '"':
			if start < 0 {
				start = i
			}
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return nil, false
			}
		case c == '\\':
			if start < 0 {
				start = i
			}
			i++
			if i >= len(s) {
				return nil, false
			}
		case isSpace(rune(c)):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words, true
}
