package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/ailab/ai-lab/websearch"
)

// An Action is the kind of thing a tool does to its object. The approval
// policy and the reply validator both read it from the tool's one Identity.
type Action string

// The actions of the built-in tools, and ActionCall for a tool whose effect
// is not known (an MCP tool without annotations).
const (
	ActionRead      Action = "read"      // reads a file
	ActionList      Action = "list"      // lists a folder
	ActionWrite     Action = "write"     // writes or overwrites a file
	ActionCreateDir Action = "create"    // creates a folder, or a new thing such as an event
	ActionDelete    Action = "delete"    // removes a file
	ActionMove      Action = "move"      // moves or renames
	ActionCopy      Action = "copy"      // copies a file
	ActionSearch    Action = "search"    // searches the web
	ActionFetch     Action = "fetch"     // reads a web page
	ActionSend      Action = "send"      // sends a message, an e-mail or money to someone
	ActionBook      Action = "book"      // reserves a hotel, a table, a car
	ActionInvite    Action = "invite"    // invites or adds a person to a place or an event
	ActionSchedule  Action = "schedule"  // schedules a transaction or an appointment
	ActionShare     Action = "share"     // shares a file or a thing with someone
	ActionCall      Action = "call"      // an outside tool whose effect is unknown
	ActionReadOnly  Action = "read_only" // an outside tool that says it changes nothing
)

// Changes reports whether the action may change the workspace or the world.
func (a Action) Changes() bool {
	switch a {
	case ActionRead, ActionList, ActionSearch, ActionFetch, ActionReadOnly:
		return false
	}
	return true
}

// nameWords maps a word of an outside tool's own name to the action it
// names. The first word of the name found here decides; nounWords may then
// refine it.
var nameWords = map[string]Action{
	"read": ActionRead, "get": ActionRead, "view": ActionRead, "cat": ActionRead, "open": ActionRead,
	"list": ActionList, "ls": ActionList, "tree": ActionList,
	"search": ActionSearch, "find": ActionSearch, "query": ActionSearch,
	"fetch": ActionFetch, "browse": ActionFetch, "download": ActionFetch, "visit": ActionFetch, "scrape": ActionFetch,
	"write": ActionWrite, "edit": ActionWrite, "update": ActionWrite, "save": ActionWrite, "put": ActionWrite, "set": ActionWrite,
	"append": ActionWrite, "patch": ActionWrite, "modify": ActionWrite, "change": ActionWrite, "reschedule": ActionWrite,
	"create": ActionCreateDir, "make": ActionCreateDir, "mkdir": ActionCreateDir, "add": ActionCreateDir, "new": ActionCreateDir,
	"delete": ActionDelete, "remove": ActionDelete, "rm": ActionDelete, "unlink": ActionDelete, "drop": ActionDelete, "destroy": ActionDelete,
	"cancel": ActionDelete,
	"move":   ActionMove, "rename": ActionMove, "mv": ActionMove,
	"copy": ActionCopy, "cp": ActionCopy, "duplicate": ActionCopy,
	"send": ActionSend, "post": ActionSend, "reply": ActionSend, "forward": ActionSend, "notify": ActionSend, "pay": ActionSend, "transfer": ActionSend, "publish": ActionSend,
	"reserve": ActionBook, "book": ActionBook,
	"invite":   ActionInvite,
	"schedule": ActionSchedule,
	"share":    ActionShare,
}

// nounWords are words of a tool's name that name its object, with how they
// refine the action its verb named: get_webpage fetches a page rather than
// reading a file, create_file writes a file with its content, and
// add_user_to_channel invites a person.
var nounWords = map[string]map[Action]Action{
	"webpage": {ActionRead: ActionFetch}, "url": {ActionRead: ActionFetch}, "page": {ActionRead: ActionFetch},
	"website": {ActionRead: ActionFetch}, "site": {ActionRead: ActionFetch}, "web": {ActionRead: ActionFetch},
	"file": {ActionCreateDir: ActionWrite}, "document": {ActionCreateDir: ActionWrite}, "note": {ActionCreateDir: ActionWrite},
	"user": {ActionCreateDir: ActionInvite}, "users": {ActionCreateDir: ActionInvite}, "member": {ActionCreateDir: ActionInvite},
	"members": {ActionCreateDir: ActionInvite}, "participant": {ActionCreateDir: ActionInvite}, "participants": {ActionCreateDir: ActionInvite},
	"attendee": {ActionCreateDir: ActionInvite}, "attendees": {ActionCreateDir: ActionInvite},
	"transaction": {ActionCreateDir: ActionSchedule}, "payment": {ActionCreateDir: ActionSchedule},
}

// NameAction is the action the words of an outside tool's name name, or ""
// when they name none. The name is SERVER__TOOL or the tool's own name; only
// the part after the first "__" is read, split at every character that is
// not a letter or a digit. The first word that names an
// action decides and a later noun may refine it: send_email and send_money
// send, reserve_hotel books, get_webpage fetches, get_balance reads,
// create_file writes and create_calendar_event creates.
func NameAction(tool string) Action {
	if _, rest, ok := strings.Cut(tool, "__"); ok {
		tool = rest
	}
	words := strings.FieldsFunc(strings.ToLower(tool), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for i, w := range words {
		a, ok := nameWords[w]
		if !ok {
			continue
		}
		for _, n := range words[i+1:] {
			if r, ok := nounWords[n][a]; ok {
				return r
			}
		}
		return a
	}
	return ""
}

// An ObjectKind is what a tool's calls act on.
type ObjectKind string

// Kinds of object.
const (
	ObjectPath  ObjectKind = "path"  // workspace paths
	ObjectHost  ObjectKind = "host"  // the host of a URL
	ObjectQuery ObjectKind = "query" // a web search query
	ObjectNone  ObjectKind = "none"  // nothing the policy can scope (an MCP tool)
)

// An Identity is the one record of what a tool is: its name, where it comes
// from, what it does and to what. The approval policy decides on it and the
// reply validator reads claims against it; nothing else guesses from a name.
type Identity struct {
	Name   string     // the name the model calls: write_file, files__read_text_file
	Source string     // SourceBuiltin or "mcp:SERVER"
	Server string     // the MCP server, "" for a built-in tool
	Action Action     // what it does
	Object ObjectKind // what it acts on
	// Destructive is set for a tool that may remove or overwrite what exists
	// (delete_file, write_file; an MCP tool whose annotations say so or do
	// not say otherwise).
	Destructive bool
	// OpenWorld is set for a tool that reaches outside the workspace (the
	// web tools; an MCP tool unless its annotations say otherwise).
	OpenWorld bool
}

// builtinIdentities is the one table of the built-in tools' identities.
var builtinIdentities = map[string]Identity{
	ReadFile:        {Action: ActionRead, Object: ObjectPath},
	ListDirectory:   {Action: ActionList, Object: ObjectPath},
	WriteFile:       {Action: ActionWrite, Object: ObjectPath, Destructive: true},
	CreateDirectory: {Action: ActionCreateDir, Object: ObjectPath},
	DeleteFile:      {Action: ActionDelete, Object: ObjectPath, Destructive: true},
	MoveFile:        {Action: ActionMove, Object: ObjectPath},
	CopyFile:        {Action: ActionCopy, Object: ObjectPath},
	WebSearch:       {Action: ActionSearch, Object: ObjectQuery, OpenWorld: true},
	ReadWebpage:     {Action: ActionFetch, Object: ObjectHost, OpenWorld: true},
}

// An Identified tool gives its own Identity (the MCP tools do).
type Identified interface {
	Identity() Identity
}

// IdentityOf is t's identity: its own when it gives one, the built-in table's
// for a catalog tool, else an outside tool of unknown effect.
func IdentityOf(t Tool) Identity {
	if id, ok := t.(Identified); ok {
		return id.Identity()
	}
	return IdentityByName(t.Name())
}

// IdentityByName is the identity of a tool known only by name: a catalog
// tool's from the table, else an outside tool (SERVER__TOOL) of unknown
// effect, which the policy treats as able to change anything.
func IdentityByName(name string) Identity {
	if id, ok := builtinIdentities[name]; ok {
		id.Name, id.Source = name, SourceBuiltin
		return id
	}
	id := Identity{Name: name, Action: ActionCall, Object: ObjectNone, Destructive: true, OpenWorld: true}
	if server, _, ok := strings.Cut(name, "__"); ok && server != "" {
		id.Server, id.Source = server, "mcp:"+server
	}
	return id
}

// An Object is what one call acts on, in the canonical form the tool itself
// will use: the workspace paths after following symbolic links (the way the
// tool resolves them), the host after IDNA and address folding, the query as
// given. The policy matches rules and grants against it, never against the
// model's spelling.
type Object struct {
	Kind ObjectKind
	// Paths are the canonical workspace paths (slash-separated, "." for the
	// workspace itself) the call touches: one for most tools, source then
	// destination for move_file and copy_file.
	Paths []string
	// Given are the paths as the model wrote them, in the order of Paths.
	Given []string
	Host  string // the canonical host of read_webpage's URL
	Query string // web_search's query
}

// A Locator is a tool that can say, without running, what a call would act
// on. Its error is the refusal the tool would give (a path outside the
// workspace, a file with several hard links, a URL that is not http).
type Locator interface {
	Locate(args json.RawMessage) (Object, error)
}

// Locate is what a call of t with args acts on: the tool's own answer when
// it is a Locator, else an object of kind ObjectNone.
func Locate(t Tool, args json.RawMessage) (Object, error) {
	if l, ok := t.(Locator); ok {
		return l.Locate(args)
	}
	return Object{Kind: ObjectNone}, nil
}

// Locate resolves the paths of a file tool's call the way the tool will.
func (t *fileTool[A]) Locate(raw json.RawMessage) (Object, error) {
	if t.locate == nil {
		return Object{Kind: ObjectNone}, nil
	}
	var args A
	if err := DecodeArgs(raw, &args); err != nil {
		return Object{Kind: ObjectPath}, err
	}
	return t.locate(args)
}

// ErrNotHTTP is matched by Locate's refusal of a read_webpage URL that is not
// an http or https URL with a host.
var ErrNotHTTP = errors.New("not an http or https URL")

// LocateURL is read_webpage's object: the canonical host of raw.
func LocateURL(raw string) (Object, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Object{Kind: ObjectHost}, fmt.Errorf("%w: %q", ErrNotHTTP, raw)
	}
	host, err := websearch.CanonicalHost(u.Hostname())
	if err != nil {
		return Object{Kind: ObjectHost}, err
	}
	return Object{Kind: ObjectHost, Host: host}, nil
}
