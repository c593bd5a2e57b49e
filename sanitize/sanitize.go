// Package sanitize is the one gate every piece of outside text passes before the
// model sees it. (Placeholder API; the sanitizer work replaces this file.)
package sanitize

// Options select the sanitizer's mode; the zero value is the aggressive mode.
type Options struct {
	Mild bool // the non-aggressive mode (`--mild`, sanitize.aggressive: false)
}

// A Report counts what each layer changed.
type Report struct {
	Layers  map[string]int `json:"layers"`
	Flagged bool           `json:"flagged"`
}

// Sanitize runs the layers over text.
func Sanitize(text string, opts Options) (string, Report) {
	return text, Report{Layers: map[string]int{}}
}

// WrapWebpage wraps page content in <webpage_content source="URL">...</webpage_content>.
func WrapWebpage(source, content string) string {
	return `<webpage_content source="` + source + `">` + content + `</webpage_content>`
}

// WrapSearchResults wraps a listing in <search_results source="duckduckgo" query="...">...</search_results>.
func WrapSearchResults(query, content string) string {
	return `<search_results source="duckduckgo" query="` + query + `">` + content + `</search_results>`
}
