package websearch

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// prescanBytes is how far the HTML standard's prescan looks for a <meta>
// charset wherever it sits. Past it, a declaration still counts while the
// head lasts (as in Chromium): many pages put theirs after kilobytes of
// scripts, styles and link tags, and reading such a page as windows-1252
// turns every non-ASCII letter into two or three wrong ones.
const prescanBytes = 1024

// A charsetSource says what decided a body's encoding.
type charsetSource string

const (
	fromBOM     charsetSource = "BOM"
	fromHeader  charsetSource = "Content-Type header"
	fromMeta    charsetSource = "meta tag"
	fromXMLDecl charsetSource = "XML declaration"
	// fromUTF8 means nothing declared an encoding and the body is valid UTF-8.
	fromUTF8 charsetSource = "valid UTF-8"
	// fromUTF8OverDeclared means the page declared a legacy encoding inside
	// itself but its text is UTF-8 (see utf8Evident).
	fromUTF8OverDeclared charsetSource = "valid UTF-8 over a declaration"
	// fromGuess means nothing declared an encoding and the body is not UTF-8:
	// the encoding is guessed from the bytes (see guessLegacy), windows-1252
	// when no guess is sure enough.
	fromGuess charsetSource = "guess"
)

// A charsetDecision is the encoding a body is read in and why.
type charsetDecision struct {
	enc    encoding.Encoding
	name   string // WHATWG name, e.g. "utf-8", "windows-1252", "shift_jis"
	source charsetSource
}

// sniffCharset decides the encoding of a body whose Content-Type header is
// contentType. In order: a byte-order mark; the header's charset; for HTML, a
// <meta> charset anywhere in the head, then an XML declaration; for XML, its
// declaration. With none of these, a valid UTF-8 body is UTF-8, since text in
// a legacy 8-bit encoding is almost never valid UTF-8 while UTF-8 is what most
// of the web sends; the encoding of anything else is guessed from its bytes.
func sniffCharset(body []byte, contentType string) charsetDecision {
	if enc, name := bomEncoding(body); enc != nil {
		return charsetDecision{enc, name, fromBOM}
	}
	media, params, _ := mime.ParseMediaType(contentType)
	if label, ok := params["charset"]; ok {
		if enc, name := charset.Lookup(label); enc != nil {
			return charsetDecision{enc, name, fromHeader}
		}
	}
	isHTML := media == "" || media == "text/html" || media == "application/xhtml+xml"
	isXML := media == "application/xml" || media == "text/xml" || strings.HasSuffix(media, "+xml")
	if isHTML {
		if enc, name := metaCharset(body); enc != nil {
			return declared(body, enc, name, fromMeta)
		}
	}
	if isHTML || isXML {
		if enc, name := xmlDeclCharset(body); enc != nil {
			return declared(body, enc, name, fromXMLDecl)
		}
	}
	if isUTF8(body) {
		return charsetDecision{encoding.Nop, "utf-8", fromUTF8}
	}
	if mostlyUTF8(body) {
		// One stray byte in a UTF-8 page costs one character, not the page.
		return charsetDecision{encoding.Nop, "utf-8", fromGuess}
	}
	if enc, name := guessLegacy(body); enc != nil {
		return charsetDecision{enc, name, fromGuess}
	}
	return charsetDecision{charmap.Windows1252, "windows-1252", fromGuess}
}

// guessSampleBytes is how much text guessLegacy hands the detector, which reads
// no more than 8 KB of it anyway.
const guessSampleBytes = 8 << 10

// minGuessConfidence is the detector's confidence (1 to 100) below which its
// guess is not taken and windows-1252 applies. The detector is sure of the
// multi-byte encodings of Chinese, Japanese and Korean text at 100 or nearly,
// and of a single-byte one at 20 to 60 on a paragraph of text.
const minGuessConfidence = 10

// minSingleByteEvidence is how many bytes outside ASCII the sample must hold for
// a guess of a single-byte encoding other than windows-1252 to be taken. A few
// symbols (a "±", a "×") tell the single-byte encodings nothing, though the
// detector may name one with confidence; windows-1252, the web's old default,
// is the better bet then. The double-byte encodings of Chinese, Japanese and
// Korean are told by the structure of their byte pairs, so a short title is
// enough for them.
const minSingleByteEvidence = 32

// guessLegacy guesses the legacy encoding of a body that declares none and is not
// UTF-8 (windows-1251, Shift_JIS, EUC-KR, GB18030, ISO-8859-x, ...) with the ICU
// detector of github.com/gogs/chardet. The detector reads only the first 8 KB of
// what it is given, and a page can have more than that of ASCII scripts and
// styles before its first letter that is not ASCII, so it is given the lines that
// hold bytes outside ASCII: the text that tells the encodings apart. Lines are
// cut at '\n', which no trail byte of these encodings is. It returns nil when the
// detector is not sure, or names an encoding the web does not use for pages (the
// ISO-2022 ones).
func guessLegacy(body []byte) (encoding.Encoding, string) {
	var sample []byte
	high := 0
	for rest := body; len(rest) > 0 && len(sample) < guessSampleBytes; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		if n := highBytes(line); n > 0 {
			high += n
			sample = append(sample, line[:min(len(line), guessSampleBytes-len(sample))]...)
		}
	}
	results, _ := chardet.NewHtmlDetector().DetectAll(sample)
	if looksThai(sample) && (len(results) == 0 || results[0].Confidence < 90 || !doubleByte[strings.ToLower(detectorLabel(results[0].Charset))]) {
		// The detector knows no Thai encoding and calls Thai text anything.
		return charset.Lookup("windows-874")
	}
	for _, r := range results {
		if r.Confidence < minGuessConfidence {
			break
		}
		enc, name := charset.Lookup(detectorLabel(r.Charset))
		switch {
		case enc == nil, name == "replacement", strings.HasPrefix(name, "utf-"), strings.HasPrefix(name, "iso-2022"):
			continue
		case !doubleByte[name] && high < minSingleByteEvidence:
			return nil, ""
		}
		return enc, name
	}
	return nil, ""
}

// detectorLabel maps the detector's charset names to labels the encoding
// standard knows where they differ.
func detectorLabel(name string) string {
	switch name {
	case "GB-18030":
		return "gb18030"
	case "ISO-8859-8-I":
		return "iso-8859-8-i"
	}
	return name
}

// looksThai reports whether the bytes outside ASCII of sample read as Thai in
// TIS-620 (windows-874). Three things tell it: the bytes come in runs (Thai puts
// no spaces between the words of a phrase), while Latin text has one or two
// accented letters between ASCII ones; many of them are the consonants
// 0xA1-0xBF, a range the letters of the Cyrillic, Greek, Arabic and Hebrew
// encodings leave nearly unused; and many runs have an odd length, which the
// byte pairs of the Chinese, Japanese and Korean encodings never give.
func looksThai(sample []byte) bool {
	inRuns, consonants, total, runs, odd := 0, 0, 0, 0, 0
	for i := 0; i < len(sample); {
		if sample[i] < utf8.RuneSelf {
			i++
			continue
		}
		j := i
		for j < len(sample) && sample[j] >= utf8.RuneSelf {
			if c := sample[j]; c >= 0xA1 && c <= 0xBF {
				consonants++
			}
			j++
		}
		total += j - i
		if j-i >= 4 {
			inRuns += j - i
			runs++
			odd += (j - i) % 2
		}
		i = j
	}
	return total >= minSingleByteEvidence && inRuns*10 >= total*7 && consonants*5 >= total && odd*4 >= runs
}

// doubleByte names the encodings guessLegacy may guess from a short sample.
var doubleByte = map[string]bool{"shift_jis": true, "euc-jp": true, "euc-kr": true, "gb18030": true, "gbk": true, "big5": true}

// highBytes counts the bytes of b outside ASCII.
func highBytes(b []byte) int {
	n := 0
	for _, c := range b {
		if c >= utf8.RuneSelf {
			n++
		}
	}
	return n
}

// mostlyUTF8 reports whether body is UTF-8 with a few stray bytes: at least
// utf8EvidentChars valid characters outside ASCII, and more than eight of them
// for every byte that is not valid UTF-8. Text in a legacy encoding has few valid
// sequences and many invalid bytes.
func mostlyUTF8(body []byte) bool {
	valid, invalid := 0, 0
	for i := 0; i < len(body); {
		if body[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		} else {
			valid++
		}
		i += size
	}
	return valid >= utf8EvidentChars && valid > 8*invalid
}

// utf8EvidentChars is how many characters outside ASCII a valid UTF-8 body must
// hold for its bytes to outweigh a legacy encoding it declares inside itself.
// Text in a legacy encoding is valid UTF-8 only by accident: in a single-byte
// encoding every letter outside ASCII would have to be followed by one of the
// rarely used bytes 0x80-0xBF, in a double-byte one nearly every pair of bytes
// would have to fall in UTF-8's narrower ranges; four such characters in a row
// are not an accident.
const utf8EvidentChars = 4

// declared is the decision for an encoding the page declares inside itself (a
// <meta> or an XML declaration), unless the body is evidently UTF-8: pages saved
// or converted to UTF-8 often keep the declaration they had, and a server that
// sends no charset leaves that stale declaration in charge. Reading such a page
// in the declared encoding garbles every character outside ASCII (a Chinese page
// saved as UTF-8 but still declaring gb2312 comes out as nonsense), while reading
// a legacy page as UTF-8 by mistake needs many unlikely byte pairs.
func declared(body []byte, enc encoding.Encoding, name string, source charsetSource) charsetDecision {
	if name != "utf-8" && utf8Evident(body) {
		return charsetDecision{encoding.Nop, "utf-8", fromUTF8OverDeclared}
	}
	return charsetDecision{enc, name, source}
}

// utf8Evident reports whether body is valid UTF-8 (see isUTF8) with at least
// utf8EvidentChars characters outside ASCII.
func utf8Evident(body []byte) bool {
	n := 0
	for i := 0; i < len(body) && n < utf8EvidentChars; i++ {
		if body[i] >= 0xC2 && body[i] <= 0xF4 {
			n++ // a lead byte; whether its sequence is valid, isUTF8 says
		}
	}
	return n >= utf8EvidentChars && isUTF8(body)
}

// toUTF8 decodes body as sniffCharset decides. The result is always valid
// UTF-8: bytes that are not valid in the chosen encoding become U+FFFD.
func toUTF8(body []byte, contentType string) string {
	d := sniffCharset(body, contentType)
	if d.name == "utf-8" {
		// No decoder needed; a BOM names the encoding and is not text.
		return strings.TrimPrefix(strings.ToValidUTF8(string(body), "\uFFFD"), "\uFEFF")
	}
	out, err := d.enc.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return strings.TrimPrefix(strings.ToValidUTF8(string(out), "\uFFFD"), "\uFEFF")
}

// bomEncoding recognizes the three byte-order marks the encoding standard knows.
func bomEncoding(body []byte) (encoding.Encoding, string) {
	switch {
	case bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}):
		return charset.Lookup("utf-8")
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}):
		return charset.Lookup("utf-16be")
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}):
		return charset.Lookup("utf-16le")
	}
	return nil, ""
}

// isUTF8 reports whether body is UTF-8. A body cut at web.max_page_bytes may
// end inside a character; such a tail is forgiven when the rest has non-ASCII
// UTF-8 of its own, since an ASCII text ending in one high byte is more
// likely a legacy one ("Caf\xe9").
func isUTF8(body []byte) bool {
	if utf8.Valid(body) {
		return true
	}
	for i := len(body) - 1; i >= 0 && i >= len(body)-utf8.UTFMax; i-- {
		if utf8.RuneStart(body[i]) {
			if utf8.FullRune(body[i:]) {
				return false
			}
			rest := body[:i]
			return utf8.Valid(rest) && utf8.RuneCount(rest) < len(rest)
		}
	}
	return false
}

// headTags are the elements that may come before a page's content without
// ending its head; any other start tag (or <body>, or </head>) means the
// content has begun.
var headTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "link": true, "base": true,
	"script": true, "style": true, "noscript": true, "template": true, "object": true, "param": true,
}

// metaCharset finds the first <meta charset> or <meta http-equiv=Content-Type
// content="...charset=..."> with a known label, the way the HTML standard's
// prescan does, but through the whole head rather than its first 1024 bytes
// only. Script, style, title and noscript contents are skipped as text.
func metaCharset(body []byte) (encoding.Encoding, string) {
	z := html.NewTokenizer(bytes.NewReader(body))
	offset := 0
	inContent := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return nil, ""
		}
		offset += len(z.Raw())
		switch tt {
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				inContent = true
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "meta" && hasAttr {
				if enc, label := metaTagCharset(z); enc != nil {
					return enc, label
				}
			} else if !headTags[string(name)] {
				inContent = true
			}
		}
		// Within the first kilobyte a meta counts wherever it is, as in the
		// standard's prescan; past it, only in the head.
		if inContent && offset >= prescanBytes {
			return nil, ""
		}
	}
}

// metaTagCharset reads the encoding a <meta> tag declares, if any: a charset
// attribute, or a content attribute with charset= together with
// http-equiv="content-type".
func metaTagCharset(z *html.Tokenizer) (encoding.Encoding, string) {
	var label string
	var pragma, needPragma, seenCharset, seenContent, seenEquiv bool
	for more := true; more; {
		var key, val []byte
		key, val, more = z.TagAttr()
		switch string(key) {
		case "http-equiv":
			if !seenEquiv {
				seenEquiv = true
				pragma = strings.EqualFold(strings.TrimSpace(string(val)), "content-type")
			}
		case "content":
			if !seenContent && !seenCharset {
				seenContent = true
				if l := contentCharset(string(val)); l != "" {
					label, needPragma = l, true
				}
			}
		case "charset":
			if !seenCharset {
				seenCharset = true
				label, needPragma = string(val), false
			}
		}
	}
	if label == "" || (needPragma && !pragma) {
		return nil, ""
	}
	return lookupDeclared(label)
}

// lookupDeclared maps a label found inside the document to an encoding. A
// document that can be read as ASCII to find its declaration cannot be UTF-16,
// so that label means UTF-8, as the standard says; x-user-defined likewise
// means windows-1252.
func lookupDeclared(label string) (encoding.Encoding, string) {
	enc, name := charset.Lookup(label)
	switch {
	case enc == nil:
		return nil, ""
	case strings.HasPrefix(name, "utf-16"):
		return charset.Lookup("utf-8")
	case name == "x-user-defined":
		return charset.Lookup("windows-1252")
	}
	return enc, name
}

// contentCharset extracts the label from a content attribute such as
// "text/html; charset=Shift_JIS" (the standard's "extracting a character
// encoding from a meta element").
func contentCharset(s string) string {
	for {
		i := indexFold(s, "charset")
		if i < 0 {
			return ""
		}
		s = s[i+len("charset"):]
		rest := strings.TrimLeft(s, " \t\n\f\r")
		if !strings.HasPrefix(rest, "=") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\n\f\r")
		if rest == "" {
			return ""
		}
		if q := rest[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				return ""
			}
			return rest[1 : 1+end]
		}
		if end := strings.IndexAny(rest, "; \t\n\f\r"); end >= 0 {
			return rest[:end]
		}
		return rest
	}
}

// indexFold is strings.Index ignoring ASCII case; lower must be lower case.
func indexFold(s, lower string) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
			j++
		}
		if j == len(lower) {
			return i
		}
	}
	return -1
}

// xmlDeclCharset reads encoding="..." from an XML declaration that opens the
// body, as XHTML pages and feeds carry.
func xmlDeclCharset(body []byte) (encoding.Encoding, string) {
	if !bytes.HasPrefix(body, []byte("<?xml")) {
		return nil, ""
	}
	end := bytes.Index(body[:min(len(body), prescanBytes)], []byte("?>"))
	if end < 0 {
		return nil, ""
	}
	decl := string(body[len("<?xml"):end])
	i := strings.Index(decl, "encoding")
	if i < 0 {
		return nil, ""
	}
	rest := strings.TrimLeft(decl[i+len("encoding"):], " \t\n\r")
	if !strings.HasPrefix(rest, "=") {
		return nil, ""
	}
	rest = strings.TrimLeft(rest[1:], " \t\n\r")
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return nil, ""
	}
	q := rest[0]
	n := strings.IndexByte(rest[1:], q)
	if n < 0 {
		return nil, ""
	}
	return lookupDeclared(rest[1 : 1+n])
}
