// Package htmldate stands in for github.com/markusmobius/go-htmldate, which
// go-trafilatura imports to find a page's publication date. ai-lab switches
// that off (trafilatura.Options.HtmlDateMode: Disabled, see
// websearch/extract.go), yet linking the real package links go-dateparser,
// whose package initialisation builds its language tables at every start of
// every ai-lab binary: about 200 ms and 50 MB before anything runs. This
// module keeps only the API go-trafilatura compiles against, and finds no
// date; go.mod points go-htmldate here with a replace directive.
package htmldate

import (
	"time"

	"golang.org/x/net/html"
)

// Options mirrors the fields of go-htmldate's Options that go-trafilatura sets.
type Options struct {
	ExtractTime         bool
	UseOriginalDate     bool
	URL                 string
	MinDate             time.Time
	MaxDate             time.Time
	EnableLog           bool
	SkipExtensiveSearch bool
	DeferUrlExtractor   bool
}

// Result mirrors go-htmldate's Result.
type Result struct {
	DateTime    time.Time
	HasTime     bool
	HasTimezone bool
	SrcString   string
}

// IsZero reports whether no date was found: always, here.
func (r Result) IsZero() bool { return r.DateTime.IsZero() }

// FromDocument finds no date: dates are not extracted in ai-lab.
func FromDocument(*html.Node, Options) (Result, error) { return Result{}, nil }
