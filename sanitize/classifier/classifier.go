// Package classifier scores how likely a text is a prompt injection: an attempt,
// written into content the model reads (a web page, a search snippet, a tool's
// output), to take over the model's instructions or slip it a task of its own.
//
// It complements the sanitizer's pattern layers, which only catch phrasings someone
// wrote a pattern for. The model is logistic regression over hashed features of the
// normalized text (case, compatibility forms, accents and invisible characters
// folded; spelled-out and digit-for-letter words undone): word unigrams and bigrams
// and character 4-grams. Its weights are embedded in the binary; they are built from
// public data in data/ by `go run ./sanitize/train`, which also writes the threshold.
// The classifier is hand-written rather than taken from a library because no
// well-kept pure-Go library does hashed-feature text classification with a
// zero-allocation scoring path, and the whole model is two hundred lines.
//
// It must never fetch anything, load weights from outside the binary, log, or change
// the text: it only scores, and the caller decides what a score means. It imports
// nothing of this module, and is safe for concurrent use.
package classifier

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Score returns the probability in [0,1] that text is a prompt injection,
// scoring the whole text and sliding windows over it (so a hijack buried in a
// long page is found): the maximum over windows, less a penalty for length. A
// text read in W windows, W over FreeWindows, has LengthPenalty ×
// ln(min(W, PenaltyWindows) / FreeWindows) taken off its best window's log-odds:
// each window is one more chance for ordinary prose to score high by accident, so
// a longer text must hold a window that stands out further. Without it, long
// benign pages (a book's chapters, security cheat sheets) were flagged several
// times as often as short texts of the same kind. The penalty stops growing at
// PenaltyWindows windows (some 600 words), so padding a page with more text
// does not hide an injection in it any further.
//
// A window is about 20 words and windows overlap by half; a text that fits in
// one window is scored whole. A text of 1 MiB or more is read in pieces of about
// 128 KiB that several goroutines can share (see Job); a piece reads on up to 4
// KiB past its end, so that the windows that begin in it are read whole and a
// passage across a cut is still read in one window. Texts longer than maxScan
// bytes are sampled: the windows of evenly spaced slices (the first and last
// included) that add up to maxScan bytes are scored, which bounds the work at
// the cost of missing an injection that sits only between the slices.
func Score(text string) float64 {
	return embedded().Score(text)
}

// Flagged reports Score(text) >= Threshold.
func Flagged(text string) bool {
	return Score(text) >= Threshold
}

// An Assessment is what the classifier finds in one text.
type Assessment struct {
	Score float64 // as Score returns it
	// Windows is, when Score reaches the threshold, how many windows scored at
	// or over it on their own (before the length penalty), and 0 when it does not.
	Windows int
}

// Assess scores text as Score does and also counts the windows that reach
// Threshold, so a caller can tell one suspicious passage from a page full of them.
func Assess(text string) Assessment {
	return embedded().Assess(text, Threshold)
}

// maxScan bounds the bytes Score reads of one text (8 MiB, some 50 ms); maxSlices is
// how many slices a longer text is sampled in.
const (
	maxScan   = 8 << 20
	maxSlices = 64
)

//go:embed model.bin
var modelFile []byte

var embedded = sync.OnceValue(func() *Model {
	m, err := ParseModel(modelFile)
	if err != nil {
		// The file is part of the source tree; the package tests load it.
		panic("classifier: embedded model.bin: " + err.Error())
	}
	return m.WithLengthPenalty(LengthPenalty, FreeWindows, PenaltyWindows)
})

// A Model is a trained set of weights. The zero Model is not usable; get one from
// ParseModel or NewModel.
type Model struct {
	bias  float32
	scale float32 // the weight of one quantum of w
	w     []int16 // 1 << TableBits weights, in quanta
	// The length penalty (see Score): log-odds per unit of
	// ln(min(windows, capped) / free).
	penalty      float32
	free, capped int
}

// WithLengthPenalty returns a model with m's weights that takes perLog ×
// ln(min(W, capped) / free) off the best window's log-odds of a text read in
// W > free windows (see Score). A model from NewModel or ParseModel has no
// penalty; the embedded one has LengthPenalty, FreeWindows and PenaltyWindows.
func (m *Model) WithLengthPenalty(perLog float64, free, capped int) *Model {
	c := *m
	c.penalty, c.free = float32(perLog), max(free, 1)
	c.capped = max(capped, c.free)
	return &c
}

// lengthPenalty is the log-odds the penalty takes off a text read in n windows.
func (m *Model) lengthPenalty(n int) float32 {
	if n <= m.free || m.penalty == 0 {
		return 0
	}
	return m.penalty * float32(math.Log(float64(min(n, m.capped))/float64(m.free)))
}

// modelMagic starts a model file; its last byte is the format version.
const modelMagic = "AILABPI\x03"

// NewModel returns a model with the given bias and 1<<TableBits weights, quantized
// to 16 bits: a 512 KB table stays in a core's L2 cache, which is what makes Score
// fast, and the rounding (a 65536th of the largest weight) changes no decision
// that matters.
func NewModel(bias float32, weights []float32) (*Model, error) {
	if len(weights) != 1<<TableBits {
		return nil, errors.New("classifier: wrong number of weights")
	}
	var top float64
	for _, w := range weights {
		top = max(top, math.Abs(float64(w)))
	}
	m := &Model{bias: bias, scale: float32(top / math.MaxInt16), w: make([]int16, len(weights))}
	if top == 0 {
		m.scale = 1
		return m, nil
	}
	for i, w := range weights {
		m.w[i] = int16(math.Round(float64(w) / float64(m.scale)))
	}
	return m, nil
}

// ParseModel decodes a model file written by MarshalBinary.
func ParseModel(data []byte) (*Model, error) {
	const head = len(modelMagic) + 12
	if len(data) < head || string(data[:len(modelMagic)]) != modelMagic {
		return nil, errors.New("classifier: not a model file of this version")
	}
	bits := binary.LittleEndian.Uint32(data[len(modelMagic):])
	if bits != TableBits || len(data) != head+2<<TableBits {
		return nil, errors.New("classifier: model file built for another table size")
	}
	m := &Model{
		bias:  math.Float32frombits(binary.LittleEndian.Uint32(data[len(modelMagic)+4:])),
		scale: math.Float32frombits(binary.LittleEndian.Uint32(data[len(modelMagic)+8:])),
		w:     make([]int16, 1<<TableBits),
	}
	for i := range m.w {
		m.w[i] = int16(binary.LittleEndian.Uint16(data[head+2*i:]))
	}
	return m, nil
}

// MarshalBinary encodes the model: a magic string, the table size in bits, the bias,
// the scale and the weights, little-endian.
func (m *Model) MarshalBinary() ([]byte, error) {
	out := make([]byte, 0, len(modelMagic)+12+2*len(m.w))
	out = append(out, modelMagic...)
	out = binary.LittleEndian.AppendUint32(out, TableBits)
	out = binary.LittleEndian.AppendUint32(out, math.Float32bits(m.bias))
	out = binary.LittleEndian.AppendUint32(out, math.Float32bits(m.scale))
	for _, w := range m.w {
		out = binary.LittleEndian.AppendUint16(out, uint16(w))
	}
	return out, nil
}

var scanners = sync.Pool{New: func() any { return new(scanner) }}

// Score is the package-level Score with this model's weights.
func (m *Model) Score(text string) float64 {
	// The threshold only sets which windows Assess counts, and Score drops the count.
	return m.Assess(text, 1).Score
}

// Assess is the package-level Assess with this model's weights and the given
// threshold.
func (m *Model) Assess(text string, threshold float64) Assessment {
	if len(text) >= pieceFrom {
		return m.Start(text, threshold).Assessment()
	}
	// One piece, read here: scoring a short text allocates nothing.
	hit := logit(threshold)
	s := m.scanner(hit)
	r := s.read(piece{text: text, limit: len(text)})
	s.release() // s is the pool's again: nothing of it is read after this
	return m.assessment([]pieceResult{r}, hit)
}

// Start returns a Job that assesses text as Assess does, in pieces that any number
// of goroutines may read at once through Job.Work.
func Start(text string) *Job {
	return embedded().Start(text, Threshold)
}

// Start is the package-level Start with this model's weights and the given
// threshold.
func (m *Model) Start(text string, threshold float64) *Job {
	j := &Job{m: m, pieces: pieces(text), hit: logit(threshold), done: make(chan struct{})}
	j.results = make([]pieceResult, len(j.pieces))
	return j
}

// A Job is the assessment of one text, read in pieces (one piece for a text under
// pieceFrom bytes). Work and Assessment may be called from any goroutines; the
// assessment does not depend on which goroutine read which piece.
type Job struct {
	m       *Model
	pieces  []piece
	hit     float32
	results []pieceResult
	next    atomic.Int64 // the next piece to take
	read    atomic.Int64 // pieces read
	done    chan struct{}
}

type pieceResult struct {
	best    float32
	scored  bool
	over    int
	windows int
}

// Work reads pieces of the text, one at a time, until none is left to take.
func (j *Job) Work() {
	var s *scanner
	for {
		i := int(j.next.Add(1) - 1)
		if i >= len(j.pieces) {
			break
		}
		if s == nil {
			s = j.m.scanner(j.hit)
		}
		j.results[i] = s.read(j.pieces[i])
		if int(j.read.Add(1)) == len(j.pieces) {
			close(j.done)
		}
	}
	if s != nil {
		s.release()
	}
}

// scanner returns a scoring scanner of the pool, set to this model's weights
// and counting the windows that reach hit.
func (m *Model) scanner(hit float32) *scanner {
	s := scanners.Get().(*scanner)
	s.w, s.bias, s.scale, s.shift, s.collect = m.w, m.bias, m.scale, 64-TableBits, false
	s.hitLogit = hit
	return s
}

// release puts a scanner from Model.scanner back in the pool.
func (s *scanner) release() {
	s.text = ""
	scanners.Put(s)
}

// read scores the windows of one piece.
func (s *scanner) read(p piece) pieceResult {
	s.reset()
	s.limit = p.limit
	s.scan(p.text)
	return pieceResult{best: s.best, scored: s.scored, over: s.over, windows: s.windows}
}

// Assessment reads the pieces no goroutine has taken yet, waits for the ones
// others are reading, and returns the text's assessment.
func (j *Job) Assessment() Assessment {
	j.Work()
	if len(j.pieces) > 0 {
		<-j.done
	}
	return j.m.assessment(j.results, j.hit)
}

// assessment is the assessment of a text whose pieces read as results, with the
// length penalty applied and windows counted against hit (a log-odds).
func (m *Model) assessment(results []pieceResult, hit float32) Assessment {
	best := float32(math.Inf(-1))
	over, windows := 0, 0
	for _, r := range results {
		if r.scored && r.best > best {
			best = r.best
		}
		over += r.over
		windows += r.windows
	}
	if math.IsInf(float64(best), -1) {
		return Assessment{} // nothing to read: no letters, digits or role punctuation
	}
	best -= m.lengthPenalty(windows)
	if best < hit {
		over = 0
	}
	return Assessment{Score: sigmoid(best), Windows: over}
}

// logit is the inverse of sigmoid, clamped so that 0 and 1 stay finite.
func logit(p float64) float32 {
	p = min(max(p, 1e-9), 1-1e-9)
	return float32(math.Log(p / (1 - p)))
}

// A piece is a part of a text that one scanner reads on its own: it scores the
// windows that begin before limit (an offset in text), and text reaches past limit
// so that the last of them are read whole. The next piece begins at limit with the
// windows that begin there.
type piece struct {
	text  string
	limit int
}

// The geometry of pieces: a text of pieceFrom bytes or more is read in pieces of
// about pieceSize bytes, each reading on up to pieceTail bytes into the next to
// finish its last windows (a window of twenty words is some 150 bytes of prose;
// a window longer than the tail is read cut short). Variables so that tests can
// cut short texts.
var (
	pieceFrom = 1 << 20
	pieceSize = 128 << 10
	pieceTail = 4 << 10
)

// pieces returns the pieces Score reads of text: the text whole, the text in
// pieces when it has pieceFrom bytes or more, or, over maxScan bytes, the evenly
// spaced slices of it that are read (each on its own, with no tail).
func pieces(text string) []piece {
	switch {
	case len(text) > maxScan:
		size := maxScan / maxSlices
		step := (len(text) - size) / (maxSlices - 1)
		out := make([]piece, maxSlices)
		for i := range out {
			out[i] = piece{text: text[i*step : i*step+size], limit: size}
		}
		return out
	case len(text) < pieceFrom:
		return []piece{{text: text, limit: len(text)}}
	}
	out := make([]piece, 0, len(text)/pieceSize+1)
	for from := 0; from < len(text); {
		to := cutAt(text, from+pieceSize)
		end := cutAt(text, to+pieceTail)
		out = append(out, piece{text: text[from:end], limit: to - from})
		from = to
	}
	return out
}

// cutAt returns where a piece that should end near i ends: just after the first
// space or line break in the 256 bytes from i, so that words are not cut, or
// failing that (text in scripts written without spaces, a long token) at the
// first character that starts at i or after; len(text) past the end.
func cutAt(text string, i int) int {
	if i >= len(text) {
		return len(text)
	}
	near := text[i:min(i+256, len(text))]
	if k := strings.IndexAny(near, " \n"); k >= 0 {
		return i + k + 1
	}
	for i < len(text) && !utf8.RuneStart(text[i]) {
		i++
	}
	return i
}

func sigmoid(x float32) float64 {
	return 1 / (1 + math.Exp(-float64(x)))
}

// A Window is one of the windows Score reads: its byte range in the text and the
// indexes of its features in the weight table (an index appears once per
// occurrence). Training reads texts through Windows so that it sees exactly the
// features Score will.
type Window struct {
	Start, End int
	Features   []uint32
	first      int // byte offset of the window's first token
}

// Windows returns the windows of text that Score takes the maximum over, in order.
// Texts over maxScan bytes are not sampled here: training texts are small.
func Windows(text string) []Window {
	s := &scanner{collect: true, shift: 64 - TableBits}
	s.reset()
	s.scan(text)
	c := s.chunks
	if len(c) == 0 {
		return nil
	}
	if len(c) == 1 {
		return []Window{{Start: c[0].start, End: c[0].end, Features: s.feats[c[0].featFrom:c[0].featTo], first: c[0].first}}
	}
	out := make([]Window, 0, len(c)-1)
	for i := 1; i < len(c); i++ {
		out = append(out, Window{Start: c[i-1].start, End: c[i].end,
			Features: s.feats[c[i-1].featFrom:c[i].featTo], first: c[i-1].first})
	}
	return out
}

// WindowLogit is the model's log-odds for one window's features: the bias plus the
// sum of the features' weights times Norm of their number, which keeps short and
// long windows on one scale.
func (m *Model) WindowLogit(features []uint32) float32 {
	if len(features) == 0 {
		return m.bias
	}
	var sum int32
	for _, f := range features {
		sum += int32(m.w[f])
	}
	return m.bias + m.scale*float32(sum)*Norm(len(features))
}

// A Feature is one feature of a text with a readable form: a word, a word pair
// (the two words), a character 4-gram in brackets (< and > mark the word's edges)
// or a punctuation run.
type Feature struct {
	Index uint32
	Name  string
}

// Features returns every feature of text, in order, with its readable form, for
// reports on what the weights key on. Scoring never calls it.
func Features(text string) []Feature {
	s := &scanner{collect: true, naming: true, shift: 64 - TableBits}
	s.reset()
	s.scan(text)
	out := make([]Feature, len(s.feats))
	for i, f := range s.feats {
		out[i] = Feature{Index: f, Name: s.names[i]}
	}
	return out
}

// Weight is the weight of feature index in log-odds per unit of feature value.
func (m *Model) Weight(index uint32) float32 {
	return m.scale * float32(m.w[index])
}
