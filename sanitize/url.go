package sanitize

import (
	"net/url"
	"strings"
)

// CleanURL returns an outside URL as the model may see it: a page's address after
// redirects, a search result's link. A URL is chosen by whoever runs the site, and a
// model reads "?SYSTEM:%20ignore%20all%20previous%20instructions" as the words it
// encodes, so each part of the URL (the user info, every path segment, every query
// key and value, the fragment) is percent-decoded and put through the pattern layers
// (the classifier is left out: a URL slug is too short for it to judge). A part they
// flag is dropped: the user info or the fragment whole, the query whole, the path
// replaced by "/". What is left is a working address of the same site. The report
// adds up the layers over every part; flagged says whether anything was dropped. A
// string that does not parse as a URL, or an opaque one (mailto:...), is kept whole
// or, when the patterns find anything in it, dropped whole (""). A URL with nothing
// to drop comes back byte for byte.
func CleanURL(raw string, opts Options) (string, Report) {
	opts.NoClassifier, opts.Datamark = true, false
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		decoded, derr := url.PathUnescape(raw)
		if derr != nil {
			decoded = raw
		}
		if _, rep := Sanitize(raw+"\n"+decoded, opts); rep.Flagged {
			return "", rep
		}
		return raw, newReport()
	}
	rep := newReport()
	check := func(parts ...string) bool {
		_, r := Sanitize(strings.Join(parts, "\n"), opts)
		for k, v := range r.Layers {
			rep.Layers[k] += v
		}
		return r.Flagged
	}
	if u.User != nil && check(u.User.String()) {
		u.User = nil
		rep.Flagged = true
	}
	if check(strings.Split(u.Path, "/")...) {
		u.Path, u.RawPath = "/", ""
		rep.Flagged = true
	}
	if u.RawQuery != "" && check(queryParts(u.RawQuery)...) {
		u.RawQuery, u.ForceQuery = "", false
		rep.Flagged = true
	}
	if u.Fragment != "" && check(u.Fragment) {
		u.Fragment, u.RawFragment = "", ""
		rep.Flagged = true
	}
	if !rep.Flagged {
		return raw, rep
	}
	return u.String(), rep
}

// queryParts returns every key and value of a query, decoded (a value that does not
// decode is kept as it is, since a model reads it as it is).
func queryParts(q string) []string {
	var out []string
	for pair := range strings.SplitSeq(q, "&") {
		for part := range strings.SplitSeq(pair, "=") {
			if d, err := url.QueryUnescape(part); err == nil {
				part = d
			}
			out = append(out, part)
		}
	}
	return out
}
