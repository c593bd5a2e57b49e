package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

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

	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: sanitize: cannot read stdin: %v\n", err)
		return exitFailure
	}
	text, report := sanitize.Sanitize(string(data), sanitize.Options{Mild: opts.mild, NoClassifier: opts.noLearned, Datamark: opts.datamark})
	content := sanitize.WrapWebpage(opts.source, text)

	if !opts.asJSON {
		fmt.Fprintln(stdout, content)
		return exitOK
	}
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
