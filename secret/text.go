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
//   - the value after a command-line flag with such a name, --token VALUE,
//     --api-key VALUE, --password VALUE (not a path, not another flag);
//   - well-known key formats standing as a word of their own (after a
//     space, punctuation or a JSON escape such as \n): OpenAI sk-…,
//     Stripe sk_live_, sk_test_, rk_live_ and rk_test_, Google AIza… (39
//     characters), GitHub ghp_, gho_, ghu_, ghs_, ghr_ and github_pat_,
//     GitLab glpat-, npm npm_, Hugging Face hf_, AWS access key ids (AKIA
//     or ASIA and 16 upper-case letters or digits), Slack xoxb-, xoxp-,
//     xoxa-, xoxr- and xoxs-;
//   - a password told in a sentence: the word after "password is",
//     "passphrase was", "the API key is" (see prose), unless it is an
//     ordinary word such as wrong or required;
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
	out, _ := maskSecrets(maskPrivateKeys(s, nil))
	return out
}

// Detect reports whether s holds something Mask would mask, and what it
// looks like in a few words ("an API key", "a password", "a private key"),
// for a note beside a value that is shown exactly.
func Detect(s string) (kind string, ok bool) {
	if s == "" {
		return "", false
	}
	maskPrivateKeys(s, &kind)
	if kind == "" {
		_, kind = maskSecrets(s)
	}
	return kind, kind != ""
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
	kind    string // what the first replacement masked, for Detect
}

func (m *masker) replace(from, to int, with, kind string) {
	if m.s[from:to] == with {
		return // already masked: no copy for text that went through Mask
	}
	if m.kind == "" {
		m.kind = kind
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
func maskSecrets(s string) (masked, kind string) {
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
		if end, kind := keyEnd(s, i); end > 0 {
			m.replace(i, end, Masked, kind)
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
		if s[i] == '-' {
			if end, ok := m.flag(i, j); ok {
				i = end
				continue
			}
		}
		if end, ok := m.prose(i, j); ok {
			i = end
			continue
		}
		i = j
	}
	return m.result(), m.kind
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

// Kinds of secret, as Detect names them.
const (
	kindAPIKey      = "an API key"
	kindAccessToken = "an access token"
	kindAccessKeyID = "an access key id"
	kindPassword    = "a password"
	kindBearer      = "a bearer token"
	kindPrivateKey  = "a private key"
	kindCredential  = "a credential"
)

// keyEnd returns the end of the known key format that starts at s[i] and
// what it is, or 0.
func keyEnd(s string, i int) (int, string) {
	switch s[i] {
	case 's', 'r', 'g', 'x', 'A', 'n', 'h':
	default:
		return 0, "" // most words: spare them the prefix tests below
	}
	r := s[i:]
	// at least returns the end of the characters of set after a prefix of
	// length p when there are at least n of them.
	at := func(p, n int, set uint16) int {
		if e := span(s, i+p, set); e-(i+p) >= n {
			return e
		}
		return 0
	}
	switch {
	case strings.HasPrefix(r, "sk-"):
		// OpenAI keys, sk-proj-… and Anthropic's sk-ant-… included; a digit
		// tells them from words such as sk-learn-compatible-estimators.
		e := span(s, i+3, cAlnum|cDash|cUnderscore)
		if e-(i+3) >= 20 && strings.ContainsAny(s[i+3:e], "0123456789") {
			return e, kindAPIKey
		}
	case strings.HasPrefix(r, "sk_live_"), strings.HasPrefix(r, "sk_test_"), strings.HasPrefix(r, "rk_live_"), strings.HasPrefix(r, "rk_test_"):
		// Stripe secret and restricted keys (pk_ keys are public by design).
		if e := at(8, 16, cAlnum); e > 0 {
			return e, kindAPIKey
		}
	case len(r) > 4 && r[0] == 'g' && r[1] == 'h' && strings.IndexByte("pousr", r[2]) >= 0 && r[3] == '_':
		if e := at(4, 20, cAlnum); e > 0 {
			return e, kindAccessToken
		}
	case strings.HasPrefix(r, "github_pat_"):
		if e := at(11, 20, cAlnum|cUnderscore); e > 0 {
			return e, kindAccessToken
		}
	case strings.HasPrefix(r, "glpat-"):
		// GitLab personal access tokens: 20 characters.
		if e := at(6, 20, cAlnum|cDash|cUnderscore); e > 0 {
			return e, kindAccessToken
		}
	case strings.HasPrefix(r, "npm_"):
		// npm tokens: 36 letters and digits.
		if e := at(4, 30, cAlnum); e > 0 {
			return e, kindAccessToken
		}
	case strings.HasPrefix(r, "hf_"):
		// Hugging Face tokens: 34 letters; hf_hub_download is a word.
		if e := at(3, 30, cAlnum); e > 0 {
			return e, kindAccessToken
		}
	case len(r) > 5 && strings.HasPrefix(r, "xox") && strings.IndexByte("baprs", r[3]) >= 0 && r[4] == '-':
		if e := at(5, 10, cAlnum|cDash); e > 0 {
			return e, kindAccessToken
		}
	case strings.HasPrefix(r, "AIza"):
		// Google API keys are exactly 39 characters.
		e := span(s, i+4, cAlnum|cDash|cUnderscore)
		if e-(i+4) == 35 {
			return e, kindAPIKey
		}
	case strings.HasPrefix(r, "AKIA") || strings.HasPrefix(r, "ASIA"):
		// Access key ids are exactly 20 characters; a longer word is not one.
		e := span(s, i+4, cUpper|cDigit)
		if e-(i+4) == 16 && (e == len(s) || class[s[e]]&cAlnum == 0) {
			return e, kindAccessKeyID
		}
	}
	return 0, ""
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
		if u == "" {
			return false
		}
		end, _ := keyEnd(u, 0)
		return end == len(u) || opaque(u, 16)
	}
	if c := strings.IndexByte(s[a:at], ':'); c >= 0 {
		c += a
		if secretUser(s[a:c]) {
			m.replace(a, c, Masked, kindAccessToken)
		}
		if c+1 < at {
			m.replace(c+1, at, Masked, kindPassword)
		}
	} else if secretUser(s[a:at]) {
		m.replace(a, at, Masked, kindAccessToken)
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
	m.replace(k, e, Masked, kindBearer)
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
	return m.value(span(s, k, cSpace), atLine, escaped, nameKind(s[i:j])), true
}

// flag masks the value after a command-line flag whose name says secret
// (--token VALUE, --api-key VALUE, --password VALUE); the run s[i:j] starts
// with a dash. --name=VALUE is an assignment. A value that is a path (/,
// ./, ~/) or another flag is kept: --key-file ./id names a file, not a key.
func (m *masker) flag(i, j int) (end int, ok bool) {
	s := m.s
	if j-i < 3 || s[i+1] != '-' || class[s[i+2]]&cLetter == 0 || !secretFlagName(s[i+2:j]) {
		return 0, false
	}
	if c, ok := m.back(i); ok && class[c]&(cSpace|cValueEnd) == 0 && c != '[' && c != '(' {
		return 0, false // a dash inside a word or a path, not a flag
	}
	v := span(s, j, cSpace)
	if v == j || v >= len(s) || lineBreak(s, v) || strings.IndexByte("-/.~#|&;<>", s[v]) >= 0 {
		return 0, false
	}
	return m.value(v, false, false, nameKind(s[i+2:j])), true
}

// lineStart reports whether only blanks, "export", "set" or a YAML list's
// "- " stand between the start of a line and k, and whether that line starts
// after an escaped \n, inside a JSON string.
func (m *masker) lineStart(k int) (atLine, escaped bool) {
	k = m.blanksBack(k)
	w := m.letterRunBack(k)
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

// letterRunBack returns where the run of letters that ends at k starts, as
// the text is written out (see back).
func (m *masker) letterRunBack(k int) int {
	for {
		c, ok := m.back(k)
		if !ok || class[c]&cLetter == 0 {
			return k
		}
		k--
	}
}

// blanksBack returns where the blanks that end at k start.
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
func (m *masker) value(v int, atLine, escaped bool, kind string) int {
	s := m.s
	if v >= len(s) || lineBreak(s, v) {
		return v // an empty value, or a YAML mapping whose entries follow
	}
	switch c := s[v]; {
	case c == '{' || c == '[':
		return v // the entries are scanned on their own
	case c == '"' || c == '\'' || c == '`':
		return m.quoted(v+1, s[v:v+1], kind)
	case c == '\\' && v+1 < len(s) && s[v+1] == '"':
		return m.quoted(v+2, `\"`, kind)
	}
	a := m.schemeWord(v)
	var e int
	if atLine {
		e = lineEnd(s, a, escaped)
	} else {
		e = wordEnd(s, a)
		if e > a+1 && s[e-1] == ':' && (e == len(s) || class[s[e]]&cSpace != 0) {
			e-- // the colon of a sentence that goes on: "GET …?key=X: refused"
		}
	}
	if e > a && !literal(s[a:e]) {
		m.replace(a, e, Masked, kind)
	}
	return e
}

// quoted masks the inside of a value quoted by q that starts at a; a quote
// left open masks the rest of the line.
func (m *masker) quoted(a int, q, kind string) int {
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
		m.replace(in, e, Masked, kind)
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
// the BEGIN and END lines so a reader still sees what was there. kind, when
// not nil, is set to kindPrivateKey if a block was found.
func maskPrivateKeys(s string, kind *string) string {
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
			m.replace(body, len(s), nl+Masked, kindPrivateKey)
			break
		}
		end += body
		m.replace(body, end, nl+Masked+nl, kindPrivateKey)
		from = end + len(pemEnd)
	}
	if kind != nil {
		*kind = m.kind
	}
	return m.result()
}

// flagPointers end the name of a flag whose value says where a secret is
// rather than being one: --password-file ./pw, --api-key-env NAME.
var flagPointers = []string{"file", "path", "stdin", "env", "var", "dir", "type", "mode", "length", "header", "name", "id"}

// secretFlagName reports whether a command-line flag's name (without its
// dashes) says its value is a secret.
func secretFlagName(name string) bool {
	if !secretName(name, false) {
		return false
	}
	last := name[strings.LastIndexAny(name, "-_.")+1:]
	for _, p := range flagPointers {
		if strings.EqualFold(last, p) {
			return false
		}
	}
	return true
}

// nameKind says what the value of a secret-looking name is, for Detect.
func nameKind(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "pass") || strings.Contains(n, "pwd") || n == "pw":
		return kindPassword
	case strings.Contains(n, "api") && strings.Contains(n, "key"):
		return kindAPIKey
	case strings.Contains(n, "token"):
		return kindAccessToken
	case strings.Contains(n, "key"):
		return "a key"
	case strings.Contains(n, "secret"):
		return "a secret"
	case strings.Contains(n, "cookie"), strings.Contains(n, "session"), strings.Contains(n, "sessid"):
		return "a session cookie"
	case strings.Contains(n, "sig"):
		return "a signature"
	}
	return kindCredential
}

// proseNouns name a secret on their own in a sentence ("my password is …");
// proseKeys do after one of proseQualifiers ("the API key is …"), since a key
// or a token alone is as often a figure of speech.
var (
	proseNouns      = []string{"password", "passphrase", "passcode", "passwd"}
	proseKeys       = []string{"key", "token", "secret"}
	proseQualifiers = []string{"api", "access", "secret", "private", "auth", "bearer", "refresh", "client", "app", "github", "openai", "stripe", "aws"}
)

// proseWords follow "is" or "was" after a secret's name without being one:
// "the password is wrong", "my token was revoked". A lower-case word that
// ends in -ed, -ing or -ly is taken for one of these too.
var proseWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the this that these those it its my your our their his her
		not no none never also still just only now then too very so quite really always usually often
		in on at for of to from with by as into about under over here there below above like
		set unset wrong right correct incorrect invalid valid required optional needed necessary mandatory
		missing empty blank weak strong secure insecure safe unsafe long short expired old new same
		different unknown hidden secret private public ok okay fine good bad case sensitive
		what which how where why when who whatever one same all any some every each both either neither
		be being been can will shall should would could must may might do does did have has had
		stored saved changed reset hashed encrypted leaked exposed compromised rotated revoked
		easy hard simple complex important mine yours ours theirs please`) {
		proseWords[w] = true
	}
}

// prose masks the word after a secret named in a sentence: "the passphrase
// is X", "my password was X", "the API key is X" (and "API key: X", which
// assignment already reads). The word must not be one of proseWords.
func (m *masker) prose(i, j int) (end int, ok bool) {
	s := m.s
	n := j - i
	if n < 3 || n > len("passphrase") || j >= len(s) || class[s[j]]&cSpace == 0 {
		return 0, false
	}
	switch s[i] | 0x20 { // the first letter of proseNouns and proseKeys, either case
	case 'p', 'k', 't', 's':
	default:
		return 0, false
	}
	word := s[i:j]
	noun := false
	for _, w := range proseNouns {
		if strings.EqualFold(word, w) {
			noun = true
		}
	}
	if !noun {
		for _, w := range proseKeys {
			if strings.EqualFold(word, w) {
				noun = m.qualified(i)
			}
		}
	}
	if !noun {
		return 0, false
	}
	k := span(s, j, cSpace)
	if k == j {
		return 0, false
	}
	verb := span(s, k, cLetter)
	if v := s[k:verb]; !strings.EqualFold(v, "is") && !strings.EqualFold(v, "was") {
		return 0, false
	}
	v := span(s, verb, cSpace)
	if v == verb || v >= len(s) {
		return 0, false
	}
	if c := s[v]; c == '"' || c == '\'' || c == '`' {
		return m.quoted(v+1, s[v:v+1], nameKind(word)), true
	}
	e := wordEnd(s, v)
	for e > v && strings.IndexByte(".,!?:)", s[e-1]) >= 0 {
		e-- // the sentence's punctuation
	}
	if e == v || ordinaryWord(s[v:e]) {
		return 0, false
	}
	m.replace(v, e, Masked, nameKind(word))
	return e, true
}

// qualified reports whether the word before the one at i is one of
// proseQualifiers.
func (m *masker) qualified(i int) bool {
	k := m.blanksBack(i)
	if k == i {
		return false
	}
	w := m.letterRunBack(k)
	q := strings.ToLower(m.s[w:k])
	for _, p := range proseQualifiers {
		if q == p {
			return true
		}
	}
	return false
}

// ordinaryWord reports a word that follows "is" in a sentence about a
// secret without being the secret.
func ordinaryWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if class[w[i]]&cLower == 0 {
			return false // capitals, digits or symbols: a made-up string
		}
	}
	return proseWords[w] || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ly")
}
