// Package sanitize is the one gate every piece of outside text (web pages, search
// titles and snippets) passes before the model sees it. It runs eight layers that
// strip prompt-injection tricks and count what they changed, and it wraps the result
// in tags the content can never close or reopen.
//
// A ninth signal, the learned classifier of sanitize/classifier, scores the text
// beside the layers: it adds a score and a count to the report and can flag the
// text, but never changes it.
//
// It must never fetch, log or decide policy: the caller chooses whether to sanitize
// and which mode, and wrapping is always applied. It imports nothing of this module
// but its own classifier.
//
// The layers run in this order, so that evasion fails:
//
//  1. zero_width and unicode first: invisible characters go, look-alike letters and
//     spaces are folded (NFKC, mixed-script words), so the pattern layers see plain
//     text.
//  2. newlines, repetition and delimiter next: they only shorten runs, and running
//     them before the pattern layers means their edits cannot assemble a new pattern.
//  3. instruction_pattern, role_prefix and breakout last: they replace what they find
//     with a visible bracketed marker (never with nothing, so that removing a piece
//     cannot glue its neighbours into a new match).
//
// When a pattern layer fired, the run layers look once more, since a marker can
// complete a run (a ']' before nine more); sanitizing the output again changes nothing.
//
// Neutralized text is replaced by these markers, and counted in these layers:
//   - role_prefix: a fake transcript prefix such as "SYSTEM:", by [role prefix
//     removed];
//   - instruction_pattern: a template or special token such as <|im_start|>, a
//     text tool-call tag (<tool:NAME>) or a tool call or result written as JSON,
//     by [instruction token removed]; and a take-over sentence ("ignore previous
//     instructions ...", "you are now DAN", "reveal your system prompt", from its
//     first word to the end of the sentence), base64 or bidi-reversed text that
//     reads as one, by [filtered content];
//   - breakout: what tries to leave the wrapper or the page: a wrapper tag
//     (<webpage_content, </search_results, </tool_output in any spelling), by
//     [wrapper tag removed], and a markdown link or image that carries data out,
//     by [filtered content].
//
// The wrapping functions neutralize wrapper tags too, so content that was never
// sanitized cannot close its wrapper either.
//
// The aggressive mode (the zero value of Options) adds what costs some precision:
// orders addressed to an AI, orders about the answer of the model that reads the
// text ("at the start of your answer, ...", "before responding, inform the user
// that ..."), markdown-image exfiltration links, the common phrasings
// in Spanish, Italian, Portuguese, Dutch, Polish, Turkish, Vietnamese, French, German,
// Chinese and Russian, role-like XML tags such as <user>, and the collapse of words
// and lines repeated many times.
//
// Look-alike letters from other scripts that NFKC keeps (a Cyrillic 'о' in "ignоre",
// an Armenian 'ո') are folded to Latin in words that mix scripts (unicode layer) and
// in role prefixes; a word written wholly in Cyrillic or Greek is left alone. Latin
// small capitals ("ꜱʏꜱᴛᴇᴍ") are folded in words made of them and ASCII letters only,
// so IPA stays. The take-over rules read through words joined by hyphens or dots,
// spelled out or in leetspeak. Known limit: a take-over phrase padded to more than
// 256 bytes between its words escapes them.
// Sanitize is safe for concurrent use.
package sanitize

import (
	"strings"
	"unsafe"

	"github.com/ailab/ai-lab/sanitize/classifier"
)

// The keys of Report.Layers, one per layer (CONTRACT section 6).
const (
	LayerRolePrefix         = "role_prefix"
	LayerInstructionPattern = "instruction_pattern"
	LayerBreakout           = "breakout"
	LayerUnicode            = "unicode"
	LayerNewlines           = "newlines"
	LayerZeroWidth          = "zero_width"
	LayerRepetition         = "repetition"
	LayerDelimiter          = "delimiter"
	// LayerClassifier counts the windows of the text that the learned classifier
	// scored at or over its threshold. It is the ninth signal: it flags, it never
	// changes the text.
	LayerClassifier = "classifier"
)

// Layers lists every layer key in the order the layers run.
var Layers = []string{
	LayerZeroWidth, LayerUnicode, LayerNewlines, LayerRepetition, LayerDelimiter,
	LayerInstructionPattern, LayerRolePrefix, LayerBreakout, LayerClassifier,
}

// Markers that replace neutralized text. They are bracketed phrases with no colon,
// tag syntax or trigger word, so no layer matches them on a second pass.
const (
	markerRolePrefix  = "[role prefix removed]"
	markerInstruction = "[instruction token removed]"
	markerBreakout    = "[filtered content]"
	markerWrapperTag  = "[wrapper tag removed]"
)

// Options select the sanitizer's mode; the zero value is the aggressive mode.
type Options struct {
	Mild bool // the non-aggressive mode (`--mild`, sanitize.aggressive: false)
	// Datamark puts DatamarkRune in place of every space of the output (outside the
	// markers), so a model told of it by DatamarkNote can tell data from
	// instructions (sanitize.datamark; see datamark.go).
	Datamark bool
	// NoClassifier leaves out the learned classifier (sanitize.classifier: false):
	// Score stays 0 and only the patterns can flag the text.
	NoClassifier bool
}

// A Report counts what each layer changed. Layers always holds all nine keys.
// Score is the classifier's probability that the text is a prompt injection (0
// when it is off); Flagged is true when a pattern layer fired (role_prefix,
// instruction_pattern, breakout) or Score reached classifier.Threshold.
type Report struct {
	Layers  map[string]int `json:"layers"`
	Flagged bool           `json:"flagged"`
	Score   float64        `json:"score"`
}

func newReport() Report {
	r := Report{Layers: make(map[string]int, len(Layers))}
	for _, k := range Layers {
		r.Layers[k] = 0
	}
	return r
}

// Sanitize runs the eight layers over text and reports what each changed. The
// result is valid UTF-8 and sanitizing it again changes nothing.
func Sanitize(text string, opts Options) (string, Report) {
	rep := newReport()
	if opts.Datamark {
		text = unmark(text)
	}
	verdict := assess(text, !opts.NoClassifier)
	text = runLayers(text, !opts.Mild, 0, rep.Layers)
	v := verdict()
	rep.Score = v.Score
	if v.Score >= classifier.Threshold {
		rep.Layers[LayerClassifier] = max(v.Windows, 1)
	}
	rep.Flagged = flagged(rep.Layers) || rep.Layers[LayerClassifier] > 0
	if opts.Datamark {
		text = addDatamarks(text)
	}
	return text, rep
}

// concurrentAssess is the text size from which the classifier scores the text on
// another goroutine while the layers run: on a page of this size the goroutine
// costs a thousandth of the work, and on a machine with a core to spare the
// classifier then adds nothing to the wall time.
const concurrentAssess = 32 << 10

// assess starts the classifier on the original text (it folds invisible and
// look-alike characters itself, and the layers' markers would hide the phrases it
// weighs) and returns a function that gives its verdict, reading what is left of
// the text first.
func assess(text string, on bool) func() classifier.Assessment {
	if !on {
		return func() classifier.Assessment { return classifier.Assessment{} }
	}
	if len(text) < concurrentAssess {
		v := classifier.Assess(text)
		return func() classifier.Assessment { return v }
	}
	// The goroutine reads the text's pieces one at a time, and the caller, once
	// done with the layers, reads those left: on a long text neither core then
	// waits for the other at the end.
	job := classifier.Start(text)
	go job.Work()
	return job.Assessment
}

// concurrentBreakouts is the text size from which runLayers starts the breakout
// scan beside the layers before it (see speculateBreakouts); a variable so that
// tests can send short texts through that path.
var concurrentBreakouts = 1 << 20

// speculateBreakouts returns a function that gives neutralizeBreakouts(t,
// aggressive) for the text t that reaches the breakout layer. For a text of
// concurrentBreakouts bytes or more it starts the scan of s now, on another
// goroutine, and gives its result when t is s itself (the same bytes at the same
// address, which the layers in between return when they change nothing);
// otherwise, and for a shorter text, it scans t.
//
// The scan of s is cut into chunks (see breakoutScan); the goroutine takes them
// one by one, and when t is s the caller takes its share of those left.
func speculateBreakouts(s string, aggressive bool) func(t string) (string, int, int) {
	if len(s) < concurrentBreakouts || len(s) == 0 {
		return func(t string) (string, int, int) { return neutralizeBreakouts(t, aggressive) }
	}
	scan := newBreakoutScan(s, aggressive, true, breakoutCuts(len(s)))
	scan.help()
	return func(t string) (string, int, int) {
		if len(t) == len(s) && unsafe.StringData(t) == unsafe.StringData(s) {
			scan.finish()
			return applyBreakouts(s, scan.edits())
		}
		scan.stop() // waited for even when unused, so no scan outlives the call
		return neutralizeBreakouts(t, aggressive)
	}
}

func flagged(counts map[string]int) bool {
	return counts[LayerRolePrefix] > 0 || counts[LayerInstructionPattern] > 0 || counts[LayerBreakout] > 0
}

// runLayers runs every layer once, adding to counts. depth counts the levels of
// text found inside other text (decoded base64, a reversed run) it is in.
func runLayers(s string, aggressive bool, depth int, counts map[string]int) string {
	inner := func(text string, depth int) (bool, map[string]int) {
		c := make(map[string]int, len(Layers))
		runLayers(text, aggressive, depth, c)
		return flagged(c), c
	}
	// Before the unicode layer drops the bidi controls that show where text is
	// reversed.
	s = neutralizeReversed(s, depth, inner, counts)

	// zero_width and unicode, then newlines, repetition and delimiter (see
	// runRunLayers), in one pass over the pieces of a long text.
	var zw, uni, nl, rp, dl int
	s, zw, uni, nl, rp, dl = normalizeAndCollapse(s, aggressive)
	counts[LayerZeroWidth] += zw
	counts[LayerUnicode] += uni
	counts[LayerNewlines] += nl
	counts[LayerRepetition] += rp
	counts[LayerDelimiter] += dl

	patterns := counts[LayerInstructionPattern] + counts[LayerRolePrefix] + counts[LayerBreakout]
	var wrap, tok, hashTok, role, jsonTok, links, brk, brkTok int
	// The breakout scan is the longest of the pattern layers, and on most text the
	// layers before it change nothing, so that it reads the very string they were
	// given. On a long text it starts on that string at once, on another goroutine,
	// and its result is taken when the string reaches it unchanged (the same bytes
	// at the same address); otherwise it runs again on what it is given. The output
	// is the same either way, and the two scans overlap on a machine with a core to
	// spare.
	breakouts := speculateBreakouts(s, aggressive)
	// A wrapper tag in the content is a context breakout: the wrappers neutralize it
	// anyway, but counting it here flags the page and shows in `ai-server sanitize`.
	s, wrap = neutralizeFoldedWrapperTags(s)
	s, tok = neutralizeTokens(s, aggressive)
	s, hashTok, role = neutralizeLineStarts(s, aggressive)
	s, jsonTok = neutralizeToolJSON(s)
	s, links = neutralizeExfilLinks(s, aggressive)
	s = neutralizeEncoded(s, depth, inner, counts)
	s, brk, brkTok = breakouts(s)
	// A take-over sentence ("ignore previous instructions ...") is an
	// instruction pattern; breakout counts what tries to leave the wrapper or
	// the page: wrapper tags and links that carry data out.
	counts[LayerInstructionPattern] += tok + hashTok + jsonTok + brkTok + brk
	counts[LayerRolePrefix] += role
	counts[LayerBreakout] += wrap + links

	// A marker can complete a run: a ']' before nine more, a "removed]" before nine
	// more such words, two lines that became the same line. Only the run layers can
	// react to a marker (no pattern starts with a bracket), and trimming a run never
	// creates a pattern here because the runs were already trimmed once.
	if counts[LayerInstructionPattern]+counts[LayerRolePrefix]+counts[LayerBreakout] > patterns &&
		markersMayCompleteRun(s, aggressive) {
		s = runRunLayers(s, aggressive, counts)
	}
	return s
}

// markersMayCompleteRun reports whether a marker sits where it may complete a run:
// next to a bracket, or (aggressive mode) beside a copy of its first or last word, or
// on a line equal to a neighbouring line. It is a cheap test that spares clean pages
// a second run pass; a false alarm only costs that pass.
func markersMayCompleteRun(s string, aggressive bool) bool {
	if strings.Contains(s, "[[") || strings.Contains(s, "]]") {
		return true
	}
	if !aggressive {
		return false
	}
	for _, m := range []string{markerRolePrefix, markerInstruction, markerBreakout, markerWrapperTag} {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], m)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(m)
			if wordRepeatsAt(s, start, end) || lineRepeatsAt(s, start) {
				return true
			}
			i = end
		}
	}
	return false
}

// wordRepeatsAt reports whether the word that ends the text s[start:end] (glued text
// included) equals the next word, or the word that starts it equals the previous one.
func wordRepeatsAt(s string, start, end int) bool {
	lastStart := strings.LastIndexAny(s[:end], " \t\n\r") + 1
	lastEnd := end
	for lastEnd < len(s) && !isSpace[s[lastEnd]] {
		lastEnd++
	}
	p := lastEnd
	for p < len(s) && isBlank(s[p]) {
		p++
	}
	if p > lastEnd && strings.HasPrefix(s[p:], s[lastStart:lastEnd]) {
		return true
	}
	firstStart := start
	for firstStart > 0 && !isSpace[s[firstStart-1]] {
		firstStart--
	}
	firstEnd := start + strings.IndexAny(s[start:], " \t\n\r")
	if firstEnd < start {
		firstEnd = len(s)
	}
	q := firstStart
	for q > 0 && isBlank(s[q-1]) {
		q--
	}
	return q < firstStart && strings.HasSuffix(s[:q], s[firstStart:firstEnd])
}

// lineRepeatsAt reports whether the line holding position i equals the line before or
// the line after it.
func lineRepeatsAt(s string, i int) bool {
	ls := strings.LastIndexByte(s[:i], '\n') + 1
	le := lineEnd(s, i)
	line := s[ls:le]
	if ls > 0 {
		ps := strings.LastIndexByte(s[:ls-1], '\n') + 1
		if s[ps:ls-1] == line {
			return true
		}
	}
	return le < len(s) && s[le+1:lineEnd(s, le+1)] == line
}

func runRunLayers(s string, aggressive bool, counts map[string]int) string {
	var nl, rp, dl int
	s, nl, rp, dl = collapseRuns(s, aggressive)
	counts[LayerNewlines] += nl
	counts[LayerRepetition] += rp
	counts[LayerDelimiter] += dl
	return s
}

// An editor rebuilds a string only when the first edit arrives, so the common case of
// clean text costs no allocation.
type editor struct {
	src  string
	b    strings.Builder
	last int // end of the source already copied or skipped
	used bool
	// scratch, when set, is where the result is built instead of b: a buffer of the
	// caller's, reused from one piece of a long text to the next (see scratchPair).
	// The result then lives in it and is only good until the buffer is written again.
	scratch *[]byte
}

func (e *editor) replace(start, end int, with string) {
	if !e.used {
		e.used = true
		// Markers are longer than most of what they replace; leave room for a few
		// hundred so the builder does not have to copy the whole page again.
		size := len(e.src) + len(e.src)/64 + 256
		if e.scratch != nil {
			if cap(*e.scratch) < size {
				*e.scratch = make([]byte, 0, size)
			}
			*e.scratch = (*e.scratch)[:0]
		} else {
			e.b.Grow(size)
		}
	}
	if e.scratch != nil {
		*e.scratch = append(append(*e.scratch, e.src[e.last:start]...), with...)
	} else {
		e.b.WriteString(e.src[e.last:start])
		e.b.WriteString(with)
	}
	e.last = end
}

func (e *editor) result() string {
	if !e.used {
		return e.src
	}
	if e.scratch != nil {
		*e.scratch = append(*e.scratch, e.src[e.last:]...)
		return unsafe.String(unsafe.SliceData(*e.scratch), len(*e.scratch))
	}
	e.b.WriteString(e.src[e.last:])
	return e.b.String()
}

// A scratchPair is the two buffers one goroutine's pieces of a long text are
// rebuilt in, layer after layer (see normalizeAndCollapseAt): each layer that
// changes a piece writes it to the buffer its input is not in. The layers of a
// piece made a fresh copy each, a piece's size of new memory per layer and piece
// (three times the text on the multilingual benchmark), which the kernel had to
// map in and the caches to hold; the two buffers stay in the cache. Nothing
// keeps a layer's input once the next layer has read it, so writing over it is
// safe; what is still wanted at the end of a piece is copied out (own).
type scratchPair struct {
	a, b []byte
}

// holds reports whether s lives in buf.
func holds(buf []byte, s string) bool {
	if cap(buf) == 0 || len(s) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	return p >= start && p < start+uintptr(cap(buf))
}

// other returns the buffer of p that s does not live in, for a layer reading s to
// write to; nil (a fresh copy) when p is nil.
func (p *scratchPair) other(s string) *[]byte {
	if p == nil {
		return nil
	}
	if holds(p.a, s) {
		return &p.b
	}
	return &p.a
}

// has reports whether s lives in a buffer of p, where the next piece will write
// over it.
func (p *scratchPair) has(s string) bool {
	return p != nil && (holds(p.a, s) || holds(p.b, s))
}
