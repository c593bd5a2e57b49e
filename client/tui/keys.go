package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"github.com/ailab/ai-lab/client"
)

// keyMap lists the bindings; the help line shows those of the current mode.
type keyMap struct {
	Send, Newline, PageUp, PageDown, End, Quit, Commands key.Binding
	Cancel                                               key.Binding // Esc while a turn runs
	Scroll                                               key.Binding // PageUp and PageDown as one help entry
	Approve, Deny, Session, Always, ApproveAll, DenyAll  key.Binding
	Full                                                 key.Binding
	Skip, Back, Pick, Move, Yes, No, Revoke              key.Binding
	Force                                                key.Binding // f under an undo's conflict
}

func newKeyMap() keyMap {
	return keyMap{
		Send:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:    key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter", "newline")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		End:        key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "newest")),
		Scroll:     key.NewBinding(key.WithKeys("pgup", "pgdown"), key.WithHelp("pgup/dn", "scroll")),
		Quit:       key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Commands:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/help", "commands")),
		Cancel:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Approve:    key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y", "yes")),
		Deny:       key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "no")),
		Session:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "session")),
		Always:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "always")),
		ApproveAll: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "all")),
		DenyAll:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "none")),
		Full:       key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "details")),
		Skip:       key.NewBinding(key.WithKeys("enter", "esc"), key.WithHelp("enter", "done (empty skips)")),
		Back:       key.NewBinding(key.WithKeys("esc", "?"), key.WithHelp("esc", "back")),
		Pick:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "resume")),
		Move:       key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "choose")),
		Yes:        key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
		No:         key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "no")),
		Revoke:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "revoke")),
		Force:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "force")),
	}
}

// bindings is a help.KeyMap over a fixed list.
type bindings []key.Binding

func (b bindings) ShortHelp() []key.Binding  { return b }
func (b bindings) FullHelp() [][]key.Binding { return [][]key.Binding{b} }

// forMode is the help of mode m; busy means a turn runs, which Esc cancels; b
// is the batch being decided, whose current call says whether s and r work.
func (k keyMap) forMode(m mode, busy bool, b *client.Batch) help.KeyMap {
	switch m {
	case modeApproval:
		// y yes, n no, a all, d none: short words, so that r fits in 80 columns
		// beside them with ctrl+c whole. s and r show only when they work for the
		// call being decided, as the prompt's keys say.
		bs := bindings{k.Approve, k.Deny}
		if b != nil {
			keys := "/" + b.Keys() + "/"
			if strings.Contains(keys, "/s/") {
				bs = append(bs, k.Session)
			}
			if strings.Contains(keys, "/r/") {
				bs = append(bs, k.Always)
			}
		}
		return append(bs, k.ApproveAll, k.DenyAll, k.Full, k.Quit)
	case modeConfirm:
		return bindings{k.Yes, k.No, k.Quit}
	case modeGrants:
		return bindings{k.Move, k.Revoke, k.Back, k.Quit}
	case modeUndo:
		return bindings{k.Yes, k.No, k.Scroll, k.Quit}
	case modeUndoForce:
		return bindings{k.Force, k.No, k.Scroll, k.Quit}
	case modeReason:
		return bindings{k.Skip, k.Quit}
	case modeArgs:
		return bindings{k.Back, k.Scroll, k.Quit}
	case modePicker:
		return bindings{k.Move, k.Pick, k.Back, k.Quit}
	}
	// Short enough for 80 columns: a cut help line would hide ctrl+c. While a turn
	// runs, Enter would only be refused, so Esc takes its place.
	if busy {
		return bindings{k.Cancel, k.Newline, k.Scroll, k.Commands, k.Quit}
	}
	return bindings{k.Send, k.Newline, k.Scroll, k.Commands, k.Quit}
}
