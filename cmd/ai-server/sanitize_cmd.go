package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ailab/ai-lab/sanitize"
)

const sanitizeUsage = "usage: ai-server sanitize [--source URL] [--mild] [--json] < text"

// defaultSanitizeSource names the wrapper's source when --source is not given: the
// text came from standard input, not from a URL, and the wrapper says so.
const defaultSanitizeSource = "stdin"

// runSanitize is `ai-server sanitize [--source URL] [--mild] [--json]`: it reads text
// on stdin and writes what the model would see of it, sanitized and wrapped as
// <webpage_content source="URL">. With --json it writes {"content": ..., "report": ...}
// instead, so a script can read the per-layer counts.
func runSanitize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sanitize", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	source := fs.String("source", defaultSanitizeSource, "the URL the text came from, shown in the wrapper")
	mild := fs.Bool("mild", false, "use the non-aggressive mode")
	asJSON := fs.Bool("json", false, `write {"content": ..., "report": ...}`)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, sanitizeUsage)
			return exitOK
		}
		return usageError(stderr, "sanitize: %v (%s)", err, sanitizeUsage)
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "sanitize: unexpected argument %q: the text is read from stdin (%s)", fs.Arg(0), sanitizeUsage)
	}

	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ai-server: sanitize: cannot read stdin: %v\n", err)
		return exitFailure
	}
	text, report := sanitize.Sanitize(string(data), sanitize.Options{Mild: *mild})
	content := sanitize.WrapWebpage(*source, text)

	if !*asJSON {
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
