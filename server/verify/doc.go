// Package verify decides whether a model's final reply may reach the user as it
// is (CONTRACT section 7). It extracts the tool results a reply claims, checks
// each cited execution id against the session's execution ledger, catches replies
// that announce a tool instead of calling it, and parses tool calls that models
// without native tool calling write as text. It also words the re-prompt for the
// model and the fallback reply for the user.
//
// It is pure: it never talks to the model, never runs a tool and never writes the
// ledger; it reads the ledger only through the small Ledger interface the caller
// passes in. It must never import server/ or store/.
package verify
