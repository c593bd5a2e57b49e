// Package verify decides whether a model's final reply may reach the user as it
// is (CONTRACT section 7). It extracts the tool results a reply claims, checks
// each cited execution id against the session's execution ledger, reports words
// shaped like an execution id that are not in the contract's format, holds every
// account of a tool run ("I searched the web", "I deleted notes.txt") to the
// calls of the turn, catches replies that announce a tool instead of calling
// it, and parses tool calls that models without native tool calling write as
// text. It also words the re-prompt for the model and the fallback reply for
// the user.
//
// # What it reads
//
// The reply is read as its reader sees it: invisible characters (zero-width
// spaces and joiners, the soft hyphen, bidi controls, variation selectors, tag
// characters) are removed, the text is put in NFKC (full-width digits and
// letters become ASCII), and Cyrillic, Greek and Armenian letters that look
// like Latin ones are folded to ASCII inside words that are not wholly of
// that script. Ids and verbs are then read on that text, so "I dеleted" with
// a Cyrillic е is "I deleted", and an id with full-width digits or a
// zero-width space inside is the id it shows.
//
// Every part of the reply is read for accounts of runs: prose, quote lines,
// lists, each cell of a table, the text of links, emphasis, headings, HTML
// emphasis tags and code blocks. A code block or quote that shows exactly what
// a successful run of the turn returned (a file read_file read) is the tool's
// output and claims nothing.
//
// An account is an action, an object and an outcome: which kind of action
// (the tools.Action of the tool's one identity record: a built-in tool's from
// tools.IdentityByName, an MCP tool's from Run.Identity or
// Validator.Identities), on which object (a path, compared after cleaning, a
// bare file name matching a path that ends in it; a URL or domain, compared by
// host), done or not. "I deleted notes.txt" needs a successful run of a
// delete action on notes.txt in this turn, by any tool whose identity says it
// deletes, or a cited execution id whose ledger record is such a run
// (Record.Arguments give its object). A claim that a call failed, was denied
// or was only tried holds when such a call failed or was denied. Words
// elsewhere in the reply excuse nothing; only a clause of the claim's own
// sentence that goes on to tell the failure ("I searched the web, but it
// timed out") does. Negation and questions void a claim ("I did not delete",
// "I couldn't delete", "Shall I delete?"), but a question the reply answers
// itself ("I have deleted notes.txt? Yes, it is gone.") is a claim.
//
// The grammar reads English, French, German, Spanish, Italian, Portuguese,
// Dutch and Polish for the file and web actions (read, list, write, create,
// save, delete, remove, move, rename, copy, search, fetch, visit): first-person
// past tenses, compound pasts and passives ("was deleted", "has been written",
// "a été supprimé", "wurde gelöscht"), result states ("is gone now", "is now
// empty"), and paraphrases ("got rid of", "I used the search tool", "according
// to my web search"). An id's tool is held to the tool named beside it exactly
// when two tools share the id's spelling (srv__Read, srv__read).
//
// It reads as well the deeds of tools beyond files and the web (deeds.go):
// sending (an e-mail, a message, money: "I've sent the email to Bob", "$5 has
// been sent to Spotify", "Sent feedback to Eve"), paying, booking ("Your hotel
// is booked now", "I reserved a room"), inviting and adding ("Dora has been
// invited", "I added Fred to the channel"), scheduling and creating an event
// ("The transaction is now scheduled", "I added the event to your
// calendar"), updating, removing, sharing, and looking at the user's own
// things ("I've reviewed your recent transactions"), in English and, by
// their participles and past forms, in the seven other languages. Such a
// claim's object is a person, an amount or a name that a reply words as it
// likes, so it is held to the turn by its kind: a successful run of a tool
// whose action is of that kind (tools.NameAction reads it from an outside
// tool's name: send_email sends, reserve_hotel books, get_webpage fetches)
// backs it, and with none the claim is an unrun_claim whatever words are
// near. The claim is narrowed by what its clause names: a noun that is a
// word of such tools' names ("channel" in add_user_to_channel, "email" in
// delete_email) must be in the backing tool's name, and a figure of three
// digits or more (an amount, an account number, a street number) in its
// arguments, when the clause names one.
//
// An announcement needs the tool's own object: "search the web", "look it up
// online", "read the page at https://...". "I will search for flights" names no
// tool, and a reply that asks the user a question (for what it needs before it
// can act) makes no promise.
//
// # What it cannot read
//
// It reads the languages above only, and of them the verbs of its tables; a
// paraphrase it has no phrase for ("notes.txt is history", "the money is on
// its way", a metaphor, a language it does not know) passes. An outside tool
// whose identity and name say nothing of its effect (tools.ActionCall) is held
// only to "I ran/called/used <its name>". A deed is matched by kind, so a
// successful run of another tool of the same kind backs it unless the
// clause names a noun or a figure that tells them apart: "I've read the
// landlord's notice" after a read of the transactions passes, and so does
// "I updated your address" after another update. Its own reading of an
// outside tool's name is used only for a tool the server gave an identity
// record (Run.Identity or Validator.Identities); a tool known by name alone
// backs nothing, and a deed that no tool the Validator knows can do ("I
// booked the table" with no booking tool) is not held to the turn, since
// a re-prompt could name no tool for it. A line "- Name: ..." is read as a transcript of someone
// else's words and claims nothing. Claims that an action failed or was not
// done are held to the turn in English only, and only when they name their
// object. Objects are compared by name, without
// case, and not resolved as the tool would (symbolic links, "..", a
// relative path against another folder); a run whose arguments the server
// did not give matches any object. Content a web tool returned is not known
// to it (Run.Result is a file's content only), so quoting a page that tells
// of an action in the first person is read as the reply's own claim, and so
// is a first-person draft the reply writes for the user in a code block or a
// quote. Emphasis
// inside a word ("de**lete**d") splits it. Announcements are not read in code
// blocks, quotes and link texts, which show someone else's words.
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
