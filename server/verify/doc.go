// Package verify decides whether a model's final reply may reach the user as it
// is (CONTRACT section 7). It extracts the tool results a reply claims, checks
// each cited execution id against the session's execution ledger, reports words
// shaped like an execution id that are not in the contract's format, holds every
// past-tense account of a tool run ("I searched the web", "I deleted notes.txt")
// to the calls of the turn, catches replies that announce a tool instead of
// calling it, and parses tool calls that models without native tool calling
// write as text. It also words the re-prompt for the model and the fallback
// reply for the user.
//
// Honest replies must pass: a failed or denied call told as such, content a
// tool returned shown as it came, and promises that wait for the user. The
// re-prompt never asks the model to call a tool the user denied in the turn.
//
// It is pure: it never talks to the model, never runs a tool and never writes the
// ledger; it reads the ledger only through the small Ledger interface the caller
// passes in, and the turn's calls only as the Validator.Turn the caller fills.
// It must never import server/ or store/.
package verify
