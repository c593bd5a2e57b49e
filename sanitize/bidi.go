package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The unicode layer removes bidi controls, which leaves the characters in the order
// they are stored. A right-to-left override (U+202E) makes a reader see them in the
// opposite order, so "snoitcurtsni suoiverp lla erongi" behind an override shows as
// a take-over sentence, and a model reads reversed text well. So before the
// controls go, each override's run is put in the order a reader sees it and run
// through every layer; when that flags it, the whole run (controls included) is
// replaced by [filtered content] and the pattern counts are added to the page's.
// A run that reads as nothing (Arabic or Hebrew kept in an override, say) stays.
//
// Only the override reverses Latin letters: an embedding or isolate (U+202B, U+2067)
// changes the direction around a run but leaves a word of Latin letters as it is.
// A run goes from the override to its matching pop (U+202C), to the pop of an
// isolate it sits in (U+2069), or to the end of its paragraph.

const rlo = "\u202e"

// neutralizeReversed replaces every override run whose reading order a pass of all
// the layers flags.
func neutralizeReversed(s string, depth int, check sanitizeFunc, counts map[string]int) string {
	if depth >= maxEncodedDepth || !strings.Contains(s, rlo) {
		return s
	}
	e := editor{src: s}
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], rlo)
		if j < 0 {
			break
		}
		start := i + j
		end := overrideEnd(s, start+len(rlo))
		if flagged, c := check(displayOrder(s[start+len(rlo):end]), depth+1); flagged {
			e.replace(start, end, markerBreakout)
			for _, k := range []string{LayerInstructionPattern, LayerRolePrefix, LayerBreakout} {
				counts[k] += c[k]
			}
		}
		i = max(end, start+len(rlo))
	}
	return e.result()
}

// overrideEnd returns the end of the override run whose text starts at i: just
// after its matching U+202C or enclosing U+2069, or at the end of its paragraph.
func overrideEnd(s string, i int) int {
	embeds, isolates := 0, 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\u202a', '\u202b', '\u202d', '\u202e':
			embeds++
		case '\u2066', '\u2067', '\u2068':
			isolates++
		case '\u202c':
			if embeds == 0 {
				return i + size
			}
			embeds--
		case '\u2069':
			if isolates == 0 {
				return i + size
			}
			isolates--
		case '\n', '\r', '\u2029', '\u0085':
			return i
		}
		i += size
	}
	return i
}

// displayOrder returns run in the order a reader sees it under an override: the
// characters reversed, each keeping its combining marks after it, bidi controls
// dropped.
func displayOrder(run string) string {
	var clusters []string
	for i := 0; i < len(run); {
		r, size := utf8.DecodeRuneInString(run[i:])
		j := i + size
		if isHidden(r) {
			i = j
			continue
		}
		for j < len(run) {
			m, msize := utf8.DecodeRuneInString(run[j:])
			if !unicode.In(m, unicode.Mn, unicode.Me) && !isZeroWidth(m) && !isVariationSelector(m) {
				break
			}
			j += msize
		}
		clusters = append(clusters, run[i:j])
		i = j
	}
	var b strings.Builder
	b.Grow(len(run))
	for k := len(clusters) - 1; k >= 0; k-- {
		b.WriteString(clusters[k])
	}
	return b.String()
}
