package tracing

import (
	"strconv"
	"unicode/utf8"

	"github.com/ailab/ai-lab/secret"
)

// MaxResultChars is how many characters of a tool result a trace keeps.
const MaxResultChars = 1000

// TruncateResult returns s cut to MaxResultChars characters, never inside a
// character, followed by a marker saying how long it was; a shorter s is
// returned as is.
func TruncateResult(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= MaxResultChars {
		return s
	}
	cut := 0
	for i := 0; i < MaxResultChars; i++ {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return s[:cut] + "… [truncated: " + strconv.Itoa(n) + " characters in all]"
}

// SafeResult returns s as a trace keeps it: masked with secret.Mask, then cut
// with TruncateResult. Masking comes first because a secret cut in half is
// no longer recognisable, yet its first half still leaks.
func SafeResult(s string) string {
	return TruncateResult(secret.Mask(s))
}
