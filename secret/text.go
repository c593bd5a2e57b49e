package secret

import "strings"

// Mask returns s with the secrets it recognises replaced by Masked:
//
//   - the password of a URL (scheme://user:password@host keeps scheme, user
//     and host); a user name alone is kept unless it looks like a token
//     (a known key format, or 16 or more characters mixing letters and
//     digits), as in https://<token>@github.com, which git accepts;
//   - values of secret-looking names, wherever a name is followed by =, :,
//     := or =>: query parameters (?api_key=…&q=go keeps q), env files and
//     shell exports (export NAME="value"), YAML (name: value), JSON
//     ("password": "…"), also inside JSON-escaped text (\"token\":\"…\");
//     a name is secret-looking when one of its words (split at _ - . and
//     camelCase) ends in key or token, or is or contains secret, password,
//     passwd, pwd, pass, passphrase, credential, creds, auth (not author),
//     or cookie; in a URL query or fragment also sig, signature and session.
//     At the start of a line an unquoted value runs to the end of the line
//     (env and YAML values may hold spaces); elsewhere it ends at a space or
//     at one of & , ; < > and quotes. Values that open an object or a list
//     ({ or [) and the literals true, false and null are kept;
//   - well-known key formats standing as a word of their own (after a
//     space, punctuation or a JSON escape such as \n): OpenAI sk-…,
//     GitHub ghp_, gho_, ghu_, ghs_, ghr_ and github_pat_, AWS access key
//     ids (AKIA or ASIA and 16 upper-case letters or digits), Slack xoxb-,
//     xoxp-, xoxa-, xoxr- and xoxs-;
//   - the token after Bearer (and after the scheme word of an Authorization
//     value: Bearer, Basic, Digest, Token, Negotiate) when it looks like one:
//     8 or more characters with letters and digits, or 20 or more with both
//     cases, so that prose such as "the bearer of bad news" stays;
//   - the body of a PEM private key block, up to its END line or, when the
//     text was cut before it, to the end of the text.
//
// Ordinary text is left alone: "skip", "task-sk-…" (sk- inside a word), a
// token bucket in prose, max_tokens=5, commit hashes, URLs without
// credentials. Masking is idempotent: Mask(Mask(s)) == Mask(s).
// Text without secrets is returned without copying. A secret with neither
// a telling name nor a known format (mysql -phunter2) cannot be recognised.
func Mask(s string) string {
	if s == "" {
		return s
	}
	return maskSecrets(maskPrivateKeys(s))
}

// The scanner is hand-written rather than a regexp: RE2 has no look-behind,
// and the rules depend on what precedes a match (a word boundary before sk-,
// a line start before NAME=value, ? or & before a query parameter); it also
// runs on every tool result: on BenchmarkMask's page text a single
// regexp for roughly the same rules ran at under 4 MB/s, one pass over a
// byte table at well over 100 MB/s.

// Character classes of the scanner, one bit each.
const (
	cRun          uint16 = 1 << iota // [A-Za-z0-9_.-]: names, words and keys
	cAlnum                           // [A-Za-z0-9]
	cLetter                          // [A-Za-z]
	cUpper                           // [A-Z]
	cLower                           // [a-z]
	cDigit                           // [0-9]
	cDash                            // -
	cUnderscore                      // _
	cSpace                           // space and tab: the blanks inside a line
	cValueEnd                        // ends an unquoted value in running text
	cAuthorityEnd                    // ends the authority of a URL
	cBearer                          // the characters of a bearer token (RFC 6750 b64token)
	cHex                             // [0-9A-Fa-f]
)

var class = func() (t [256]uint16) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		switch {
		case 'a' <= b && b <= 'z':
			t[c] |= cRun | cAlnum | cLetter | cLower | cBearer
		case 'A' <= b && b <= 'Z':
			t[c] |= cRun | cAlnum | cLetter | cUpper | cBearer
		case '0' <= b && b <= '9':
			t[c] |= cRun | cAlnum | cDigit | cBearer
		}
	}
	for _, b := range []byte("0123456789ABCDEFabcdef") {
		t[b] |= cHex
	}
	t['_'] |= cRun | cUnderscore | cBearer
	t['-'] |= cRun | cDash | cBearer
	t['.'] |= cRun | cBearer
	for _, b := range []byte("~+/=") {
		t[b] |= cBearer
	}
	t[' '] |= cSpace
	t['\t'] |= cSpace
	for _, b := range []byte(" \t\n\r\v\f\"'`<>") {
		t[b] |= cValueEnd | cAuthorityEnd
	}
	for _, b := range []byte("&,;") {
		t[b] |= cValueEnd
	}
	for _, b := range []byte(`/?#\`) {
		t[b] |= cAuthorityEnd
	}
	return t
}()

// span returns the end of the characters of class set that start at i.
func span(s string, i int, set uint16) int {
	for i < len(s) && class[s[i]]&set != 0 {
		i++
	}
	return i
}

// masker builds the masked copy of s; it copies nothing until the first
// replacement.
type masker struct {
	s       string
	out     strings.Builder // s[:last] as masked, once copying started
	copying bool
	last    int
}

func (m *masker) replace(from, to int, with string) {
	if m.s[from:to] == with {
		return // already masked: no copy for text that went through Mask
	}
	if !m.copying {
		m.copying = true
		m.out.Grow(len(m.s) + len(with))
	}
	m.out.WriteString(m.s[m.last:from])
	m.out.WriteString(with)
	m.last = to
}

func (m *masker) result() string {
	if !m.copying {
		return m.s
	}
	m.out.WriteString(m.s[m.last:])
	return m.out.String()
}

// back returns the byte before s[k] as it is written out, so that rules
// that look behind decide the same on Mask's output as on its input:
// right after a replacement that is the '*' of Masked. ok is false at the
// start of the text.
func (m *masker) back(k int) (c byte, ok bool) {
	if m.copying && k <= m.last {
		return '*', true
	}
	if k <= 0 {
		return 0, false
	}
	return m.s[k-1], true
}

// maskSecrets applies every rule but private key blocks in one pass from
// left to right. A rule is tried where a run of [A-Za-z0-9_.-] starts, and
// right after a replacement, which is where a run starts in the output.
func maskSecrets(s string) string {
	m := masker{s: s}
	hostEnd := 0 // names inside a URL's authority are host names, not NAME: value
	for i := 0; i < len(s); {
		if class[s[i]]&cRun == 0 {
			i++
			continue
		}
		if n := m.escapeLen(i); n > 0 {
			i += n // the letters of \n or \u0026 in JSON text belong to the escape, not to the next word
			continue
		}
		j := span(s, i, cRun)
		if end := keyEnd(s, i); end > 0 {
			m.replace(i, end, Masked)
			i = end
			continue
		}
		if class[s[i]]&cLetter != 0 && strings.HasPrefix(s[j:], "://") {
			i, hostEnd = m.urlCredentials(j + len("://"))
			continue
		}
		if j-i == len("bearer") && strings.EqualFold(s[i:j], "bearer") {
			if end, ok := m.bearer(j); ok {
				i = end
				continue
			}
		}
		if i >= hostEnd {
			if end, ok := m.assignment(i, j); ok {
				i = end
				continue
			}
		}
		i = j
	}
	return m.result()
}

// escapeLen returns the length of the JSON escape whose letters start at
// s[i] (the n of \n, the u0026 of \u0026), or 0.
func (m *masker) escapeLen(i int) int {
	s := m.s
	if strings.IndexByte("nrtbfu", s[i]) < 0 {
		return 0
	}
	if c, _ := m.back(i); c != '\\' {
		return 0
	}
	switch s[i] {
	case 'n', 'r', 't', 'b', 'f':
		return 1
	case 'u':
		if i+5 <= len(s) && span(s[:i+5], i+1, cHex) == i+5 {
			return 5
		}
	}
	return 0
}

// keyEnd returns the end of the known key format that starts at s[i], or 0.
func keyEnd(s string, i int) int {
	switch s[i] {
	case 's', 'g', 'x', 'A':
	default:
		return 0 // most words: spare them the prefix tests below
	}
	r := s[i:]
	switch {
	case strings.HasPrefix(r, "sk-"):
		// OpenAI keys, sk-proj-… included; a digit tells them from words
		// such as sk-learn-compatible-estimators.
		e := span(s, i+3, cAlnum|cDash|cUnderscore)
		if e-(i+3) >= 20 && strings.ContainsAny(s[i+3:e], "0123456789") {
			return e
		}
	case len(r) > 4 && r[0] == 'g' && r[1] == 'h' && strings.IndexByte("pousr", r[2]) >= 0 && r[3] == '_':
		if e := span(s, i+4, cAlnum); e-(i+4) >= 20 {
			return e
		}
	case strings.HasPrefix(r, "github_pat_"):
		if e := span(s, i+11, cAlnum|cUnderscore); e-(i+11) >= 20 {
			return e
		}
	case len(r) > 5 && strings.HasPrefix(r, "xox") && strings.IndexByte("baprs", r[3]) >= 0 && r[4] == '-':
		if e := span(s, i+5, cAlnum|cDash); e-(i+5) >= 10 {
			return e
		}
	case strings.HasPrefix(r, "AKIA") || strings.HasPrefix(r, "ASIA"):
		// Access key ids are exactly 20 characters; a longer word is not one.
		e := span(s, i+4, cUpper|cDigit)
		if e-(i+4) == 16 && (e == len(s) || class[s[e]]&cAlnum == 0) {
			return e
		}
	}
	return 0
}

// opaque reports whether t looks like a generated token rather than a word:
// at least minLen characters mixing letters and digits, or 20 or more
// mixing upper and lower case.
func opaque(t string, minLen int) bool {
	if len(t) < minLen {
		return false
	}
	var seen uint16
	for i := 0; i < len(t); i++ {
		seen |= class[t[i]]
	}
	return seen&cLetter != 0 && seen&cDigit != 0 || len(t) >= 20 && seen&cUpper != 0 && seen&cLower != 0
}

// urlCredentials masks the password of the URL authority that starts at a
// (right after "://") and returns where scanning goes on and where the
// authority ends.
func (m *masker) urlCredentials(a int) (next, authorityEnd int) {
	s := m.s
	e := a
	for e < len(s) && class[s[e]]&cAuthorityEnd == 0 {
		e++
	}
	at := strings.LastIndexByte(s[a:e], '@')
	if at < 0 {
		return a, e
	}
	at += a
	secretUser := func(u string) bool {
		return len(u) > 0 && (keyEnd(u, 0) == len(u) || opaque(u, 16))
	}
	if c := strings.IndexByte(s[a:at], ':'); c >= 0 {
		c += a
		if secretUser(s[a:c]) {
			m.replace(a, c, Masked)
		}
		if c+1 < at {
			m.replace(c+1, at, Masked)
		}
	} else if secretUser(s[a:at]) {
		m.replace(a, at, Masked)
	}
	return at + 1, e
}

// bearer masks the token after a "Bearer" that ends at j.
func (m *masker) bearer(j int) (end int, ok bool) {
	s := m.s
	k := span(s, j, cSpace)
	if k == j {
		return 0, false
	}
	e := span(s, k, cBearer)
	for e > k && s[e-1] == '.' {
		e-- // a sentence's full stop, not part of the token
	}
	if !opaque(s[k:e], 8) {
		return 0, false
	}
	m.replace(k, e, Masked)
	return e, true
}

// assignment masks the value when the run s[i:j] is a secret-looking name
// followed by an assignment, and returns where scanning goes on.
func (m *masker) assignment(i, j int) (end int, ok bool) {
	s := m.s
	prev, _ := m.back(i)
	var quote string // the quote around the name: ", ' or \" in escaped JSON
	if prev == '"' || prev == '\'' {
		quote = string(prev)
		if p2, _ := m.back(i - 1); prev == '"' && p2 == '\\' {
			quote = `\"`
		}
	}
	k := j
	if quote != "" && strings.HasPrefix(s[k:], quote) {
		k += len(quote)
	}
	k = span(s, k, cSpace)
	if k >= len(s) {
		return 0, false
	}
	switch s[k] {
	case '=':
		if k+1 < len(s) && s[k+1] == '=' {
			return 0, false // a comparison
		}
		k++
		if k < len(s) && s[k] == '>' {
			k++
		}
	case ':':
		if k+1 < len(s) && s[k+1] == ':' {
			return 0, false // a scope, as in Token::Kind
		}
		k++
		if k < len(s) && s[k] == '=' {
			k++
		}
	default:
		return 0, false
	}
	query := prev == '?' || prev == '&' || prev == '#' || prev == ';'
	if !secretName(s[i:j], query) {
		return 0, false
	}
	atLine, escaped := m.lineStart(i - len(quote))
	return m.value(span(s, k, cSpace), atLine, escaped), true
}

// lineStart reports whether only blanks, "export", "set" or a YAML list's
// "- " stand between the start of a line and k, and whether that line starts
// after an escaped \n, inside a JSON string.
func (m *masker) lineStart(k int) (atLine, escaped bool) {
	k = m.blanksBack(k)
	w := k
	for {
		c, ok := m.back(w)
		if !ok || class[c]&cLetter == 0 {
			break
		}
		w--
	}
	if word := m.s[w:k]; w < k && (word == "export" || word == "set") {
		k = m.blanksBack(w)
	} else if c, _ := m.back(k); c == '-' {
		k = m.blanksBack(k - 1)
	}
	c, ok := m.back(k)
	switch {
	case !ok || c == '\n':
		return true, false
	case c == 'n':
		if c2, _ := m.back(k - 1); c2 == '\\' {
			return true, true
		}
	}
	return false, false
}

func (m *masker) blanksBack(k int) int {
	for {
		c, _ := m.back(k)
		if c != ' ' && c != '\t' {
			return k
		}
		k--
	}
}

// value masks the value that starts at v and returns its end.
func (m *masker) value(v int, atLine, escaped bool) int {
	s := m.s
	if v >= len(s) || lineBreak(s, v) {
		return v // an empty value, or a YAML mapping whose entries follow
	}
	switch c := s[v]; {
	case c == '{' || c == '[':
		return v // the entries are scanned on their own
	case c == '"' || c == '\'' || c == '`':
		return m.quoted(v+1, s[v:v+1])
	case c == '\\' && v+1 < len(s) && s[v+1] == '"':
		return m.quoted(v+2, `\"`)
	}
	a := m.schemeWord(v)
	var e int
	if atLine {
		e = lineEnd(s, a, escaped)
	} else {
		e = wordEnd(s, a)
	}
	if e > a && !literal(s[a:e]) {
		m.replace(a, e, Masked)
	}
	return e
}

// quoted masks the inside of a value quoted by q that starts at a; a quote
// left open masks the rest of the line.
func (m *masker) quoted(a int, q string) int {
	s := m.s
	e := a
	for e < len(s) && s[e] != '\n' {
		if s[e] == '\\' && e+1 < len(s) {
			if q == `\"` {
				if s[e+1] == '"' {
					break
				}
				if s[e+1] == 'n' || s[e+1] == 'r' {
					break // an escaped line break: the quote was left open
				}
			} else if q == `"` {
				e += 2
				continue
			}
		}
		if q != `\"` && s[e] == q[0] {
			break
		}
		e++
	}
	closed := strings.HasPrefix(s[e:], q)
	if !closed {
		e = trimBlanks(s, a, e)
	}
	if in := m.schemeWord(a); e > in {
		m.replace(in, e, Masked)
	}
	if closed {
		return e + len(q)
	}
	return e
}

// authSchemes are the words an Authorization value starts with; they are
// kept so that "Bearer ***" still says what kind of credential was there.
var authSchemes = []string{"bearer", "basic", "digest", "token", "negotiate"}

// schemeWord returns where the credential starts when the value at v opens
// with an authorization scheme and blanks, else v.
func (m *masker) schemeWord(v int) int {
	s := m.s
	w := span(s, v, cLetter)
	k := span(s, w, cSpace)
	if k == w || k >= len(s) || class[s[k]]&cValueEnd != 0 || lineBreak(s, k) {
		return v
	}
	for _, sch := range authSchemes {
		if strings.EqualFold(s[v:w], sch) {
			return k
		}
	}
	return v
}

// lineBreak reports a newline at s[k], real or escaped (\n, \r) as in the
// JSON text of a tool result.
func lineBreak(s string, k int) bool {
	return s[k] == '\n' || s[k] == '\r' || s[k] == '\\' && k+1 < len(s) && (s[k+1] == 'n' || s[k+1] == 'r')
}

// lineEnd returns the end of the line that holds s[a], trailing blanks
// left out. Inside a JSON string (escaped) the line also ends where the
// string does.
func lineEnd(s string, a int, escaped bool) int {
	e := a
	for e < len(s) && !lineBreak(s, e) {
		if escaped {
			if s[e] == '"' {
				break
			}
			if s[e] == '\\' {
				e += 2
				continue
			}
		}
		e++
	}
	return trimBlanks(s, a, min(e, len(s)))
}

// wordEnd returns the end of an unquoted value in running text.
func wordEnd(s string, a int) int {
	e := a
	for e < len(s) && class[s[e]]&cValueEnd == 0 {
		if s[e] == '\\' && e+1 < len(s) && strings.IndexByte(`nrt"`, s[e+1]) >= 0 {
			break // an escape in JSON text ends the value, as the character it stands for would
		}
		e++
	}
	return e
}

func trimBlanks(s string, a, e int) int {
	for e > a && (class[s[e-1]]&cSpace != 0 || s[e-1] == '\r') {
		e--
	}
	return e
}

// literal reports the values that configure rather than hold a secret.
func literal(v string) bool {
	v = strings.TrimSuffix(v, ",") // a JSON member on a line of its own
	return strings.EqualFold(v, "true") || strings.EqualFold(v, "false") || strings.EqualFold(v, "null")
}

// secretName reports whether name calls its value a secret. The name is cut
// into words at non-alphanumerics and at lower-to-upper case changes, so
// that DB_PASSWORD, githubToken and X-Api-Key are found while max_tokens,
// author and keyword are not; query adds the names that are secret in a URL
// (sig, signature, session) but ordinary in text ("session: s_1").
func secretName(name string, query bool) bool {
	if name == "PWD" || name == "OLDPWD" {
		return false // the shell's working directories, as env prints them
	}
	var buf [64]byte
	for i := 0; i < len(name); {
		if class[name[i]]&cAlnum == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(name) && class[name[j]]&cAlnum != 0 && !(class[name[j-1]]&cLower != 0 && class[name[j]]&cUpper != 0) {
			j++
		}
		var w string
		if j-i <= len(buf) {
			n := copy(buf[:], name[i:j])
			for k := range n {
				if class[buf[k]]&cUpper != 0 {
					buf[k] += 'a' - 'A'
				}
			}
			w = string(buf[:n]) // short and not kept, so converted without allocating
		} else {
			w = strings.ToLower(name[i:j])
		}
		if secretWord(w, query) {
			return true
		}
		i = j
	}
	return false
}

func secretWord(w string, query bool) bool {
	switch {
	case strings.HasSuffix(w, "key"), strings.HasSuffix(w, "token"):
		return true
	case strings.Contains(w, "secret") && !strings.Contains(w, "secretar"):
		return true
	case strings.Contains(w, "passw"), strings.Contains(w, "passphrase"), strings.Contains(w, "credential"):
		return true
	case strings.HasSuffix(w, "pwd"), w == "pass", w == "pw", w == "creds", w == "cookie":
		return true
	case strings.HasPrefix(w, "auth") && (!strings.HasPrefix(w, "author") || strings.HasPrefix(w, "authoriz")),
		strings.HasSuffix(w, "auth"):
		return true
	case query && (w == "sig" || strings.Contains(w, "signature") || strings.Contains(w, "session") || strings.Contains(w, "sessid")):
		return true
	}
	return false
}

// PEM armour of a private key block.
const (
	pemBegin  = "-----BEGIN "
	pemEnd    = "-----END "
	pemDashes = "-----"
)

// maskPrivateKeys replaces the body of every PEM private key block (RSA,
// EC, OPENSSH, ENCRYPTED, PGP …) by Masked on a line of its own, keeping
// the BEGIN and END lines so a reader still sees what was there.
func maskPrivateKeys(s string) string {
	m := masker{s: s}
	for from := 0; ; {
		k := strings.Index(s[from:], pemBegin)
		if k < 0 {
			break
		}
		label := from + k + len(pemBegin)
		e := span(s, label, cUpper|cDigit|cSpace)
		if !strings.HasPrefix(s[e:], pemDashes) || !strings.Contains(s[label:e], "PRIVATE KEY") {
			from = label
			continue
		}
		body := e + len(pemDashes)
		nl := "\n"
		if strings.HasPrefix(s[body:], `\n`) {
			nl = `\n` // the block sits in JSON text
		}
		end := strings.Index(s[body:], pemEnd)
		if end < 0 {
			// Cut before its END line (a truncated read): nothing after the
			// header can be told apart from the key.
			m.replace(body, len(s), nl+Masked)
			break
		}
		end += body
		m.replace(body, end, nl+Masked+nl)
		from = end + len(pemEnd)
	}
	return m.result()
}
