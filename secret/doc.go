// Package secret recognises secrets in text by what they are (key formats,
// URL passwords and query values, NAME=value lines, command-line flags,
// bearer tokens, private key blocks, a password told in prose) and masks
// them: Mask for text, MaskJSON for tool arguments, MaskArgv for a command
// line kept as a list. Every surface that shows or exports text (the HTTP
// API, server-sent events, the log, traces, OTLP spans) masks with these, so
// one rule set decides everywhere; Detect tells the client that a value it
// shows exactly looks like a secret. It only ever reads text: it must never
// change the arguments a tool runs with, and it imports nothing of ours.
package secret
