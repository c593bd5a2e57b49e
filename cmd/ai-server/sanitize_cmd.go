package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ailab/ai-lab/sanitize"
)

// defaultSanitizeSource names the wrapper's source when --source is not given: the
// text came from standard input, not from a URL, and the wrapper says so.
const defaultSanitizeSource = "stdin"

// sanitizeOptions are the flags of `ai-server sanitize`.
type sanitizeOptions struct {
	source                            string
	mild, asJSON, datamark, noLearned bool
}

func (o *sanitizeOptions) flagSet() *flag.FlagSet {
	fs := newFlagSet("sanitize")
	fs.StringVar(&o.source, "source", defaultSanitizeSource, "the `URL` the text came from, shown in the wrapper")
	fs.BoolVar(&o.mild, "mild", false, "use the non-aggressive mode (sanitize.aggressive: false)")
	fs.BoolVar(&o.noLearned, "no-classifier", false, "patterns only: leave out the learned classifier (sanitize.classifier: false)")
	fs.BoolVar(&o.datamark, "datamark", false, "put ˆ between the words of the output (sanitize.datamark)")
	fs.BoolVar(&o.asJSON, "json", false, `write {"content": ..., "report": ...} with the per-layer counts and the classifier's score`)
	return fs
}

// runSanitize is `ai-server sanitize [--source URL] [--mild] [--json]`: it reads text
// on stdin and writes what the model would see of it, sanitized and wrapped as
// <webpage_content source="URL">. With --json it writes {"content": ..., "report": ...}
// instead, so a script can read the per-layer counts.
func runSanitize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts sanitizeOptions
	words, code, ok := parseArgs("sanitize", opts.flagSet(), args, stdout, stderr)
	if !ok {
		return code
	}
	if len(words) > 0 {
		return usageError(stderr, "sanitize: unexpected argument %q: the text is read from stdin, e.g. ai-server sanitize < page.txt", words[0])
	}

	data, err := readText(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: sanitize: cannot read stdin: %v\n", err)
		return exitFailure
	}
	text, report := sanitize.Sanitize(data, sanitize.Options{Mild: opts.mild, NoClassifier: opts.noLearned, Datamark: opts.datamark})

	if !opts.asJSON {
		// Written from the sanitized text as it is: building the wrapped page as one
		// string, and then fmt's copy of it, would each cost a copy of the page.
		err := sanitize.WriteWebpage(stdout, opts.source, text)
		if err == nil {
			_, err = io.WriteString(stdout, "\n")
		}
		if err != nil {
			fmt.Fprintf(stderr, "ai-server: sanitize: cannot write output: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	content := sanitize.WrapWebpage(opts.source, text)
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false) // the wrapper's tags should read as tags
	if err := enc.Encode(struct {
		Content string          `json:"content"`
		Report  sanitize.Report `json:"report"`
	}{content, report}); err != nil {
		fmt.Fprintf(stderr, "ai-server: sanitize: cannot write output: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// firstBlock and maxBlock bound the blocks readText reads a stream of unknown size in.
const (
	firstBlock = 64 << 10
	maxBlock   = 4 << 20
)

// readText reads r to its end as one string, copying each byte once. A regular file
// is read into a buffer of its size; a pipe is read in blocks that grow to maxBlock
// and are joined at the end, where reading into one growing buffer would copy
// (and touch fresh memory for) the text about twice over. Memory that is touched
// for the first time is the dearest part of sanitizing megabytes.
func readText(r io.Reader) (string, error) {
	var b strings.Builder
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if pos, err := f.Seek(0, io.SeekCurrent); err == nil && fi.Size() > pos {
				b.Grow(int(fi.Size()-pos) + 1)
				_, err := io.Copy(&b, f)
				return b.String(), err
			}
		}
	}
	var blocks [][]byte
	total := 0
	for size := firstBlock; ; size = min(2*size, maxBlock) {
		block := make([]byte, size)
		n, err := io.ReadFull(r, block)
		blocks = append(blocks, block[:n])
		total += n
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	if len(blocks) == 1 {
		return string(blocks[0]), nil
	}
	b.Grow(total)
	for _, block := range blocks {
		b.Write(block)
	}
	return b.String(), nil
}
