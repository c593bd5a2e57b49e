// Package sanitize is the one gate every piece of outside text (web pages, search
// titles and snippets) passes before the model sees it. It runs eight layers that
// strip prompt-injection tricks and count what they changed, and it wraps the result
// in tags the content can never close or reopen.
//
// It must never fetch, log or decide policy: the caller chooses whether to sanitize
// and which mode, and wrapping is always applied. It imports nothing of this module.
//
// The layers run in this order, so that evasion fails:
//
//  1. zero_width and unicode first: invisible characters go, look-alike letters and
//     spaces are folded (NFKC), so the pattern layers see plain text.
//  2. newlines, repetition and delimiter next: they only shorten runs, and running
//     them before the pattern layers means their edits cannot assemble a new pattern.
//  3. instruction_pattern, role_prefix and breakout last: they replace what they find
//     with a visible bracketed marker (never with nothing, so that removing a piece
//     cannot glue its neighbours into a new match).
//
// Neutralized text is replaced by these markers: a fake transcript prefix such as
// "SYSTEM:" by [role prefix removed], a template or special token such as <|im_start|>
// by [instruction token removed], and a take-over sentence by [filtered content].
package sanitize

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
)

// Layers lists every layer key in the order the layers run.
var Layers = []string{
	LayerZeroWidth, LayerUnicode, LayerNewlines, LayerRepetition, LayerDelimiter,
	LayerInstructionPattern, LayerRolePrefix, LayerBreakout,
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
}

// A Report counts what each layer changed. Layers always holds all eight keys.
type Report struct {
	Layers  map[string]int `json:"layers"`
	Flagged bool           `json:"flagged"`
}

func newReport() Report {
	r := Report{Layers: make(map[string]int, len(Layers))}
	for _, k := range Layers {
		r.Layers[k] = 0
	}
	return r
}

// maxPasses bounds the rerun of the pipeline after a pattern layer fired. A marker
// can make two lines identical (aggressive line collapse) or shift a line start, so
// the pipeline reruns until nothing changes; in practice the second pass is a no-op.
const maxPasses = 4

// Sanitize runs the eight layers over text and reports what each changed. The
// result is valid UTF-8 and sanitizing it again changes nothing.
func Sanitize(text string, opts Options) (string, Report) {
	rep := newReport()
	aggressive := !opts.Mild
	for pass := 0; pass < maxPasses; pass++ {
		out, fired := runLayers(text, aggressive, rep.Layers)
		text = out
		if !fired {
			break
		}
	}
	rep.Flagged = rep.Layers[LayerRolePrefix] > 0 || rep.Layers[LayerInstructionPattern] > 0 ||
		rep.Layers[LayerBreakout] > 0
	return text, rep
}

// runLayers runs every layer once, adding to counts, and reports whether a pattern
// layer (the ones that insert markers) changed anything.
func runLayers(s string, aggressive bool, counts map[string]int) (string, bool) {
	var zw, uni int
	s, zw, uni = normalizeInvisible(s)
	counts[LayerZeroWidth] += zw
	counts[LayerUnicode] += uni

	var nl, rp, dl int
	s, nl, rp, dl = collapseRuns(s, aggressive)
	counts[LayerNewlines] += nl
	counts[LayerRepetition] += rp
	counts[LayerDelimiter] += dl

	var tok, hashTok, role, brk int
	s, tok = neutralizeTokens(s, aggressive)
	s, hashTok, role = neutralizeLineStarts(s, aggressive)
	s, brk = neutralizeBreakouts(s, aggressive)
	counts[LayerInstructionPattern] += tok + hashTok
	counts[LayerRolePrefix] += role
	counts[LayerBreakout] += brk
	return s, tok+hashTok+role+brk > 0
}

// An editor rebuilds a string only when the first edit arrives, so the common case of
// clean text costs no allocation.
type editor struct {
	src  string
	b    []byte
	last int // end of the source already copied or skipped
	used bool
}

func (e *editor) replace(start, end int, with string) {
	if !e.used {
		e.used = true
		e.b = make([]byte, 0, len(e.src)+64)
	}
	e.b = append(e.b, e.src[e.last:start]...)
	e.b = append(e.b, with...)
	e.last = end
}

func (e *editor) result() string {
	if !e.used {
		return e.src
	}
	e.b = append(e.b, e.src[e.last:]...)
	return string(e.b)
}
