package verify

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ailab/ai-lab/api"
)

// A reply that shows what a tool of this turn returned claims nothing: a JSON
// file read with read_file and shown in a code block may well hold
// {"tool_name": ..., "result": ...} or old execution ids, and refusing it would
// refuse an honest answer. The comparison forgives what a model changes when
// it shows content, whitespace and (for JSON) key order and escaping, but not
// a single other character.

// maxCanonicalObjects bounds how many JSON values of the results are indexed,
// so that a huge JSON file cannot make validation slow.
const maxCanonicalObjects = 10000

// shownContent is what the successful runs of a turn returned. It is built on
// first use, since most replies have no claim to compare with it.
type shownContent struct {
	results  []string
	built    bool
	squeezed []string        // each result without whitespace
	canon    map[string]bool // canonical JSON of every object and array in the results
}

func newShownContent(turn []Run) *shownContent {
	s := &shownContent{}
	for _, r := range turn {
		if r.Status == api.StatusOK && strings.TrimSpace(r.Result) != "" {
			s.results = append(s.results, r.Result)
		}
	}
	return s
}

// any reports whether there is any returned content at all.
func (s *shownContent) any() bool { return len(s.results) > 0 }

func (s *shownContent) build() {
	if s.built {
		return
	}
	s.built = true
	s.canon = map[string]bool{}
	texts := s.results
	for _, r := range s.results {
		// The server may pass the tool's whole result object rather than
		// the file's text; the text is then its "content".
		var wrapped struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal([]byte(r), &wrapped) == nil && wrapped.Content != nil {
			texts = append(texts, *wrapped.Content)
		}
	}
	for _, t := range texts {
		// The reply is read normalised (see normalizeText); what the tool
		// returned is compared in the same form.
		t = normalizeText(t)
		s.squeezed = append(s.squeezed, squeeze(t))
		s.indexJSON(t)
	}
}

// indexJSON adds the canonical form of every object and array of text: of the
// whole text when it is JSON, else of each object found in it.
func (s *shownContent) indexJSON(text string) {
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		s.addValues(normalizeValue(v))
		return
	}
	sc := newObjectScanner(text)
	for i := 0; i < len(text) && len(s.canon) < maxCanonicalObjects; i++ {
		if text[i] != '{' {
			continue
		}
		end := sc.end(i)
		if end < 0 {
			continue
		}
		if json.Unmarshal([]byte(text[i:end]), &v) == nil {
			s.addValues(normalizeValue(v))
			i = end - 1
		}
	}
}

func (s *shownContent) addValues(v any) {
	if len(s.canon) >= maxCanonicalObjects {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			s.addValues(e)
		}
	case []any:
		for _, e := range x {
			s.addValues(e)
		}
	default:
		return
	}
	if b, err := json.Marshal(v); err == nil {
		s.canon[string(b)] = true
	}
}

// covers reports whether claim c of reply is part of content a run returned:
// a JSON claim that is one of its objects, or any claim inside a quoted block
// whose text around the claim is the run's text.
func (s *shownContent) covers(reply string, c Claim, quoted []cut) bool {
	s.build()
	if c.Kind == ClaimJSON && s.holds(c.Raw) {
		return true
	}
	end := c.Offset + len(c.Raw)
	for _, q := range quoted {
		if q.start <= c.Offset && end <= q.end {
			return s.holds(quotedChunk(reply, q, end))
		}
	}
	return false
}

// holds reports whether text, once whitespace is dropped, is part of a
// result, or is JSON equal to a value of one.
func (s *shownContent) holds(text string) bool {
	s.build()
	sq := squeeze(text)
	if sq == "" {
		return false
	}
	for _, r := range s.squeezed {
		if strings.Contains(r, sq) {
			return true
		}
	}
	if len(s.canon) == 0 || !strings.ContainsAny(sq[:1], "{[") {
		return false
	}
	var v any
	if json.Unmarshal([]byte(text), &v) != nil && json.Unmarshal(withoutTrailingCommas(text), &v) != nil {
		return false
	}
	b, err := json.Marshal(normalizeValue(v))
	return err == nil && s.canon[string(b)]
}

// normalizeValue returns decoded JSON with every string and key read as the
// validator reads text (normalizeText). The texts are normalised before they
// are decoded, so a character written as an escape ("\u01C7") is never
// normalised there, while the same character shown as itself is ("Ǉ" is "LJ"
// in NFKC): a file read and shown re-encoded would otherwise not be found.
func normalizeValue(v any) any {
	switch x := v.(type) {
	case string:
		return normalizeText(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[normalizeText(k)] = normalizeValue(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = normalizeValue(e)
		}
		return x
	}
	return v
}

// quotedChunk returns the lines of quoted span q around a claim ending at to
// that show content: no fence lines, no "> " markers of a quote, and no
// elision lines ("...", "…") that stand for what was left out, which end a
// chunk.
func quotedChunk(reply string, q cut, to int) string {
	var b strings.Builder
	inFence := false
	for pos := q.start; pos <= q.end; {
		end := q.end
		if nl := strings.IndexByte(reply[pos:q.end], '\n'); nl >= 0 {
			end = pos + nl
		}
		line := strings.TrimSpace(reply[pos:end])
		fence := strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")
		if fence {
			inFence = !inFence
		}
		for !inFence && !fence && strings.HasPrefix(line, ">") {
			line = strings.TrimSpace(line[1:]) // a quote marker; in a code block, text
		}
		separator := fence || strings.Trim(line, ".…") == "" && line != ""
		if separator {
			if pos >= to {
				break
			}
			b.Reset() // a chunk before the claim's
		} else {
			b.WriteString(line)
			b.WriteByte('\n')
		}
		pos = end + 1
	}
	return b.String()
}

// squeeze returns s without any whitespace.
func squeeze(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
