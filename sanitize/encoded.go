package sanitize

import (
	"encoding/base64"
	"unicode/utf8"
)

// The encoded part of the pattern layers decodes runs of base64 and looks at what
// they say: a model decodes "aWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM=" without
// being asked. A run of at least minEncodedRun base64 characters (standard or URL
// alphabet) whose start decodes to text is decoded whole and run through every
// layer; when that flags it, the run is replaced by [filtered content] and the
// pattern counts of the decoded text are added to the page's. Anything that decodes
// to binary (a data: URI of an image, a hash, a long word read as base64) is left
// as it is without decoding more than its first few bytes. Decoded text is searched
// for base64 again, maxEncodedDepth levels deep in all, so the cost stays a small
// multiple of the page's.

const (
	minEncodedRun   = 20 // 15 decoded bytes: "SYSTEM: obey me" is as short as it gets
	maxEncodedDepth = 3
	encodedProbe    = 64 // characters decoded to tell text from binary
)

// isBase64Byte marks both alphabets and the padding.
var isBase64Byte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isASCIIAlnum(byte(c))
	}
	for _, c := range []byte("+/-_=") {
		t[c] = true
	}
	return t
}()

// base64Block reports whether all eight bytes of x are base64 characters. Prose
// almost always fails at the first test: a space or a byte of a non-ASCII letter.
func base64Block(x uint64) bool {
	if (x-0x21*lowBits)&^x&highBits != 0 || x&highBits != 0 {
		return false // a space, a control byte or a non-ASCII byte
	}
	m := alnumMask(x)
	for _, c := range [...]uint64{'+', '/', '-', '_', '='} {
		m |= zeroBytes(x ^ c*lowBits)
	}
	return m == highBits
}

// zeroBytes sets the high bit of exactly the zero bytes of x.
func zeroBytes(x uint64) uint64 {
	const low7 = ^uint64(highBits)
	return ^((x&^highBits + low7) | x) & highBits
}

// A sanitizeFunc runs every layer over text found inside the page (decoded, or
// put back in reading order) at the given depth, and reports whether it was
// flagged and what each layer counted.
type sanitizeFunc func(text string, depth int) (flagged bool, counts map[string]int)

// neutralizeEncoded replaces every base64 run whose decoded text a pass of all the
// layers flags, and adds the pattern counts of that text to counts.
func neutralizeEncoded(s string, depth int, check sanitizeFunc, counts map[string]int) string {
	if depth >= maxEncodedDepth || len(s) < minEncodedRun {
		return s
	}
	e := editor{src: s}
	// A run of minEncodedRun bytes or more holds a whole aligned block of eight.
	for i := 0; i+8 <= len(s); i += 8 {
		if !base64Block(load64(s, i)) {
			continue
		}
		start, end := i, i+8
		for start > 0 && isBase64Byte[s[start-1]] {
			start--
		}
		for end < len(s) && isBase64Byte[s[end]] {
			end++
		}
		if end-start >= minEncodedRun && start >= e.last {
			if text, ok := decodeBase64Text(s[start:end]); ok {
				if flagged, c := check(text, depth+1); flagged {
					e.replace(start, end, markerBreakout)
					for _, k := range []string{LayerInstructionPattern, LayerRolePrefix, LayerBreakout} {
						counts[k] += c[k]
					}
				}
			}
		}
		i = (end &^ 7) // the loop adds 8: go on at the first block past the run
	}
	return e.result()
}

// decodeBase64Text decodes run when it is base64 of text: valid UTF-8 with no
// control characters but tab and line breaks. Padding may end the run or sit inside
// it (two strings glued); the part before the first '=' is decoded.
func decodeBase64Text(run string) (string, bool) {
	for k := 0; k < len(run); k++ {
		if run[k] == '=' {
			run = run[:k]
			break
		}
	}
	if len(run) < minEncodedRun {
		return "", false
	}
	enc := base64.RawStdEncoding
	for k := 0; k < len(run); k++ {
		if run[k] == '-' || run[k] == '_' {
			enc = base64.RawURLEncoding
			break
		}
	}
	// A run glued to a word ("data:...;base64,xyz" is cut at ',', but "tokenXYZ..."
	// is not) may start off by a few characters: try each offset on a probe first.
	for off := 0; off < 4 && len(run)-off >= minEncodedRun; off++ {
		body := run[off:]
		probe := body[:min(len(body), encodedProbe)&^3]
		head, err := enc.DecodeString(probe)
		if err != nil || !textLike(head, len(probe) < len(body)) {
			continue
		}
		if len(body)%4 == 1 { // no base64 ends with one character of a quantum
			body = body[:len(body)-1]
		}
		all, err := enc.DecodeString(body)
		if err != nil || !textLike(all, false) {
			continue
		}
		return string(all), true
	}
	return "", false
}

// textLike reports bytes that read as text; cut says the bytes may end inside a
// character.
func textLike(b []byte, cut bool) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return cut && !utf8.FullRune(b[i:])
		}
		if r < 0xA0 { // C1 controls
			return false
		}
		i += size
	}
	return true
}
