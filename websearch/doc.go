// Package websearch is AI Lab's only road to the open web: it asks DuckDuckGo's
// HTML endpoints for search results (no API key) and fetches single pages for
// read_webpage, returning their main text.
//
// It must never hand the caller raw markup as if it were trusted, never reach a
// private or local address unless told to, never keep cookies between users and
// never hammer DuckDuckGo: requests are spaced and a bot check is never retried.
// Sanitizing and wrapping what it returns is the caller's job (tools/ does it).
package websearch
