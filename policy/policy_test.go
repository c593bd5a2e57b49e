package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/config"
	"github.com/ailab/ai-lab/tools"
)

// fixture is a workspace with a registry of the built-in file tools and the
// web tools' locators, and a config to decide under.
type fixture struct {
	t   *testing.T
	dir string
	reg *tools.Registry
	cfg *config.Config
}

func newFixture(t *testing.T, preset string) *fixture {
	t.Helper()
	dir := t.TempDir()
	ws, err := tools.OpenWorkspace(filepath.Join(dir, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	reg, err := tools.NewRegistry(append(tools.FileTools(ws), webLocators()...)...)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Safety.Preset = preset
	cfg.Path = filepath.Join(dir, "config.yaml")
	return &fixture{t: t, dir: dir, reg: reg, cfg: cfg}
}

// webLocators are the web tools as the policy sees them: their names and
// what they act on, without a network behind them.
func webLocators() []tools.Tool {
	return []tools.Tool{webTool{tools.WebSearch}, webTool{tools.ReadWebpage}}
}

type webTool struct{ name string }

func (w webTool) Name() string               { return w.name }
func (w webTool) Description() string        { return "" }
func (w webTool) Parameters() map[string]any { return nil }
func (w webTool) Run(context.Context, json.RawMessage) (any, error) {
	panic("the policy never runs a tool")
}
func (w webTool) Locate(raw json.RawMessage) (tools.Object, error) {
	var a struct {
		URL   string `json:"url"`
		Query string `json:"query"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Object{}, err
	}
	if w.name == tools.WebSearch {
		return tools.Object{Kind: tools.ObjectQuery, Query: a.Query}, nil
	}
	return tools.LocateURL(a.URL)
}

// ws is the host path of a workspace path.
func (f *fixture) ws(p string) string { return filepath.Join(f.dir, "ws", filepath.FromSlash(p)) }

func (f *fixture) file(p, content string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.ws(p)), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.ws(p), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) decide(name, args string, grants ...api.SessionGrant) Decision {
	return New(f.cfg, f.reg).Decide(Call{Name: name, Args: json.RawMessage(args)}, grants)
}

func (f *fixture) offer(name, args string) (*api.GrantOffer, string) {
	return New(f.cfg, f.reg).Offer(Call{Name: name, Args: json.RawMessage(args)})
}

func grant(tool, pattern string) api.SessionGrant {
	return api.SessionGrant{GrantID: "g_1", ToolName: tool, Pattern: pattern}
}

func write(p string) string {
	b, _ := json.Marshal(map[string]string{"path": p, "content": "x"})
	return string(b)
}

func pathArg(p string) string {
	b, _ := json.Marshal(map[string]string{"path": p})
	return string(b)
}

func urlArg(u string) string {
	b, _ := json.Marshal(map[string]string{"url": u})
	return string(b)
}

// TestGrantsCoverExactlyWhatTheySay is the bypass table: each call the
// outside red team made run under a grant it did not cover, and its honest
// neighbour that must still run.
func TestGrantsCoverExactlyWhatTheySay(t *testing.T) {
	f := newFixture(t, tools.PresetModerate)
	f.file("notes/todo.txt", "todo")
	f.file("victim.txt", "do not touch")
	f.file("src/main.go", "package main")
	if err := os.Symlink("../victim.txt", f.ws("notes/link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../src", f.ws("notes/srclink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub2", f.ws("notes/inside")); err != nil { // a link that stays in notes/
		t.Fatal(err)
	}
	f.file("notes/sub2/keep.txt", "k")
	outside := filepath.Join(f.dir, "outside.txt")
	os.WriteFile(outside, []byte("AWS_SECRET_ACCESS_KEY=abc"), 0o644)
	if err := os.Link(outside, f.ws("notes/hard.txt")); err != nil {
		t.Fatal(err)
	}
	notes := grant(tools.WriteFile, "notes/*")
	cases := []struct {
		name  string
		tool  string
		args  string
		grant api.SessionGrant
		run   bool
	}{
		{"a file in the granted folder", tools.WriteFile, write("notes/x.txt"), notes, true},
		{"a subfolder of the granted folder", tools.WriteFile, write("notes/sub/y.txt"), notes, true},
		{"dots that stay inside", tools.WriteFile, write("notes/./a/../b.txt"), notes, true},
		{"a link that stays in the folder", tools.WriteFile, write("notes/inside/keep.txt"), notes, true},
		{"a trailing blank is a name in notes/sub", tools.WriteFile, write("notes/sub/ "), notes, true},
		{"another folder", tools.WriteFile, write("src/main.go"), notes, false},
		{".git", tools.WriteFile, write(".git/config"), notes, false},
		{"a folder whose name starts the same", tools.WriteFile, write("notes-old/x.txt"), notes, false},
		{"dots that climb out", tools.WriteFile, write("notes/../src/main.go"), notes, false},
		{"a leading blank", tools.WriteFile, write(" notes/x.txt"), notes, false},
		{"an ideographic space", tools.WriteFile, write("\u3000notes/x.txt"), notes, false},
		{"an em space", tools.WriteFile, write("\u2003notes/x.txt"), notes, false},
		{"a Hangul filler after the folder", tools.WriteFile, write("notes\u3164/x.txt"), notes, false},
		{"a zero-width space inside", tools.WriteFile, write("notes/x\u200b.txt"), notes, false},
		{"a combining grapheme joiner", tools.WriteFile, write("notes/x\u034f.txt"), notes, false},
		{"a symlink out of the folder", tools.WriteFile, write("notes/link.txt"), notes, false},
		{"a folder symlink out of the folder", tools.WriteFile, write("notes/srclink/main.go"), notes, false},
		{"a hard link to a file outside", tools.WriteFile, write("notes/hard.txt"), notes, false},
		{"a glob the model wrote is a name", tools.WriteFile, write("*/todo.txt"), grant(tools.WriteFile, "*/*"), false},
		{"a backslash folder is not notes/", tools.WriteFile, write(`notes\/x.txt`), grant(tools.WriteFile, `notes\/*`), false},
		{"an absolute path", tools.WriteFile, write("/etc/passwd"), notes, false},
		{"another tool", tools.DeleteFile, pathArg("notes/todo.txt"), grant(tools.DeleteFile, "notes/*"), false},
		{"the legacy top-folder grant: a top file", tools.WriteFile, write("a.txt"), grant(tools.WriteFile, "*"), true},
		{"the legacy top-folder grant: not below", tools.WriteFile, write("notes/a.txt"), grant(tools.WriteFile, "*"), false},
		{"the whole workspace", tools.WriteFile, write("notes/a.txt"), grant(tools.WriteFile, "./*"), true},
		{"list: the folder", tools.ListDirectory, pathArg("notes"), grant(tools.ListDirectory, "notes"), true},
		{"list: a blank before the folder", tools.ListDirectory, pathArg(" notes"), grant(tools.ListDirectory, "notes"), false},
		{"list: another folder", tools.ListDirectory, pathArg("src"), grant(tools.ListDirectory, "notes"), false},
		{"read: the folder", tools.ReadFile, pathArg("notes/todo.txt"), grant(tools.ReadFile, "notes/*"), true},
		{"read: through a link out", tools.ReadFile, pathArg("notes/link.txt"), grant(tools.ReadFile, "notes/*"), false},
		{"read: a hard link", tools.ReadFile, pathArg("notes/hard.txt"), grant(tools.ReadFile, "notes/*"), false},
		{"host: exact", tools.ReadWebpage, urlArg("https://go.dev/doc/"), grant(tools.ReadWebpage, "go.dev"), true},
		{"host: another spelling of it", tools.ReadWebpage, urlArg("https://GO.DEV./doc/"), grant(tools.ReadWebpage, "go.dev"), true},
		{"host: full width", tools.ReadWebpage, urlArg("https://ｇｏ．ｄｅｖ/"), grant(tools.ReadWebpage, "go.dev"), true},
		{"host: a subdomain is not the host", tools.ReadWebpage, urlArg("https://evil.go.dev/"), grant(tools.ReadWebpage, "go.dev"), false},
		{"host: a suffix trick", tools.ReadWebpage, urlArg("https://go.dev.evil.com/"), grant(tools.ReadWebpage, "go.dev"), false},
		{"host: a star grant is no wildcard", tools.ReadWebpage, urlArg("https://example.com/"), grant(tools.ReadWebpage, "*"), false},
		{"host: mapped IPv6 is the IPv4 host", tools.ReadWebpage, urlArg("http://[::ffff:127.0.0.1]:8080/"), grant(tools.ReadWebpage, "127.0.0.1"), true},
		{"host: another address", tools.ReadWebpage, urlArg("http://127.0.0.2/"), grant(tools.ReadWebpage, "127.0.0.1"), false},
		{"search: any query", tools.WebSearch, `{"query": "go 1.26"}`, grant(tools.WebSearch, "*"), true},
		{"search: a hidden character", tools.WebSearch, `{"query": "go\u200b"}`, grant(tools.WebSearch, "*"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := f.decide(c.tool, c.args, c.grant)
			if ran := d.Verdict == Run && d.By == api.DecisionGrant; ran != c.run {
				t.Errorf("%s %s under grant %s %q: %+v, want run by grant %v", c.tool, c.args, c.grant.ToolName, c.grant.Pattern, d, c.run)
			}
			if !c.run && c.tool == tools.WriteFile && d.Verdict != Ask {
				t.Errorf("not covered, yet %+v (moderate asks for write_file)", d)
			}
		})
	}
}

// TestOffersNameLiteralScopes: an offer is built from the canonical object
// and only for what reads plainly; its pattern is what the grant covers.
func TestOffersNameLiteralScopes(t *testing.T) {
	f := newFixture(t, tools.PresetModerate)
	f.file("victim.txt", "v")
	f.file("notes/a.txt", "a")
	os.Symlink("../victim.txt", f.ws("notes/link.txt"))
	cases := []struct {
		name, tool, args string
		pattern, label   string // "" pattern: no offer
		why              string // part of the reason none is offered
	}{
		{"a write in a folder", tools.WriteFile, write("notes/todo.txt"), "notes/*", "write files in notes/ for this session", ""},
		{"a write at the top", tools.WriteFile, write("todo.txt"), "./*", "write files anywhere in the workspace for this session", ""},
		{"dots are cleaned", tools.WriteFile, write("./notes/../notes/x.txt"), "notes/*", "write files in notes/ for this session", ""},
		{"a link offers where it leads", tools.WriteFile, write("notes/link.txt"), "./*", "write files anywhere in the workspace for this session", ""},
		{"a star", tools.WriteFile, write("*/todo.txt"), "", "", "cannot be shown plainly"},
		{"a star inside a name", tools.WriteFile, write("no*/todo.txt"), "", "", "cannot be shown plainly"},
		{"brackets", tools.WriteFile, write("[a-z]*/todo.txt"), "", "", "cannot be shown plainly"},
		{"a backslash", tools.WriteFile, write(`notes\/todo.txt`), "", "", "cannot be shown plainly"},
		{"a blank at a name's edge", tools.WriteFile, write(" notes/x.txt"), "", "", "cannot be shown plainly"},
		{"a question mark", tools.ReadFile, pathArg("what?/x"), "", "", "cannot be shown plainly"},
		{"a delete", tools.DeleteFile, pathArg("notes/a.txt"), "", "", "never takes a grant"},
		{"a move", tools.MoveFile, `{"source": "notes/a.txt", "destination": "b.txt"}`, "", "", "never takes a grant"},
		{"outside", tools.WriteFile, write("../x.txt"), "", "", "cannot be resolved"},
		{"a host", tools.ReadWebpage, urlArg("https://Go.Dev/doc"), "go.dev", "read pages on go.dev for this session", ""},
		{"a star host", tools.ReadWebpage, urlArg("http://*/"), "", "", "cannot be resolved"},
		{"a search", tools.WebSearch, `{"query": "x"}`, "*", "search the web for this session", ""},
		{"a list", tools.ListDirectory, pathArg("notes"), "notes", "list the folder notes and its subfolders for this session", ""},
		{"a list of the top", tools.ListDirectory, `{}`, ".", "list any folder of the workspace for this session", ""},
	}
	hidden := []rune{0x034F, 0xFE0F, 0xE0100, 0x3164, 0x115F, 0xFFA0, 0x2800, 0x17B4, 0x2028, 0x3000, 0x200B, 0x202E}
	for _, r := range hidden {
		cases = append(cases, struct {
			name, tool, args string
			pattern, label   string
			why              string
		}{"hidden " + strings.ToUpper(string(rune(r))), tools.WriteFile, write("notes" + string(r) + "/x.txt"), "", "", "invisible"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, why := f.offer(c.tool, c.args)
			switch {
			case c.pattern == "" && g != nil:
				t.Errorf("offered %+v", g)
			case c.pattern == "" && !strings.Contains(why, c.why):
				t.Errorf("no offer, reason %q, want it to say %q", why, c.why)
			case c.pattern != "" && (g == nil || g.Pattern != c.pattern || g.Label != c.label):
				t.Errorf("offer %+v (%q), want %q %q", g, why, c.pattern, c.label)
			}
			if g != nil {
				// What is offered covers the call it was offered for.
				if d := f.decide(c.tool, c.args, api.SessionGrant{GrantID: "g", ToolName: c.tool, Pattern: g.Pattern}); d.By != api.DecisionGrant {
					t.Errorf("the offered grant does not cover its own call: %+v", d)
				}
			}
		})
	}

	strict := newFixture(t, tools.PresetStrict)
	if g, why := strict.offer(tools.WriteFile, write("notes/a.txt")); g != nil || !strings.Contains(why, "strict") {
		t.Errorf("strict offered %+v (%q)", g, why)
	}
	if g, _ := strict.offer(tools.ReadFile, pathArg("notes/a.txt")); g == nil {
		t.Error("strict offered no grant for read_file, which it does not list")
	}
}

// TestOrderOfSources: a deny rule wins over everything, an ask rule over a
// grant and an allow rule, a grant or an allow rule over the preset; every
// decision names its source.
func TestOrderOfSources(t *testing.T) {
	f := newFixture(t, tools.PresetModerate)
	f.cfg.MCP.Servers = []config.MCPServer{{Name: "files", Approval: config.MCPApproval{Mode: config.ApprovalNever}}, {Name: "gh"}}
	f.cfg.Safety.Rules = []config.Rule{
		{Effect: config.RuleDeny, Tool: tools.ReadFile, Path: "secrets/", Line: 10},
		{Effect: config.RuleAllow, Tool: tools.WriteFile, Path: "notes/", Line: 11},
		{Effect: config.RuleAsk, Tool: tools.WriteFile, Path: "notes/private/", Line: 12},
		{Effect: config.RuleAllow, Tool: tools.ReadWebpage, Host: "go.dev", Line: 13},
		{Effect: config.RuleAllow, Tool: tools.ReadWebpage, Host: "*.example.org", Line: 14},
		{Effect: config.RuleAsk, Tool: "files__*", Line: 15},
		{Effect: config.RuleAllow, Tool: "gh__search", Line: 16},
		{Effect: config.RuleAllow, Tool: tools.MoveFile, Path: "notes/", Line: 17},
		{Effect: config.RuleDeny, Tool: tools.DeleteFile, Path: "keep/", Line: 18},
	}
	cases := []struct {
		name, tool, args string
		grants           []api.SessionGrant
		verdict          Verdict
		by               string
		reason           string
	}{
		{"a deny rule", tools.ReadFile, pathArg("secrets/key"), nil, Deny, api.DecisionRule, "rule 1 in config.yaml: "},
		{"a deny rule beats a grant", tools.ReadFile, pathArg("secrets/key"), []api.SessionGrant{grant(tools.ReadFile, "secrets/*")}, Deny, api.DecisionRule, "rule 1"},
		{"outside the denied folder", tools.ReadFile, pathArg("secretsx/key"), nil, Run, api.DecisionAuto, "preset moderate: read_file runs without asking"},
		{"an allow rule", tools.WriteFile, write("notes/a.txt"), nil, Run, api.DecisionRule, "rule 2 in config.yaml: "},
		{"an ask rule beats an allow rule", tools.WriteFile, write("notes/private/a.txt"), nil, Ask, "", "rule 3 in config.yaml: "},
		{"an ask rule beats a grant", tools.WriteFile, write("notes/private/a.txt"), []api.SessionGrant{grant(tools.WriteFile, "notes/*")}, Ask, "", "rule 3"},
		{"the preset", tools.WriteFile, write("other/a.txt"), nil, Ask, "", "preset moderate: write_file asks"},
		{"a grant", tools.WriteFile, write("other/a.txt"), []api.SessionGrant{grant(tools.WriteFile, "other/*")}, Run, api.DecisionGrant, "session grant g_1: write files in other/"},
		{"an exact host", tools.ReadWebpage, urlArg("https://go.dev/x"), nil, Run, api.DecisionRule, "rule 4"},
		{"a subdomain of an exact host", tools.ReadWebpage, urlArg("https://x.go.dev/"), nil, Run, api.DecisionAuto, "preset moderate"},
		{"a subdomain rule", tools.ReadWebpage, urlArg("https://a.b.example.org/"), nil, Run, api.DecisionRule, "rule 5"},
		{"a subdomain rule is not the host", tools.ReadWebpage, urlArg("https://example.org/"), nil, Run, api.DecisionAuto, "preset moderate"},
		{"every tool of a server asks", "files__write_file", `{}`, nil, Ask, "", "rule 6 in config.yaml: "},
		{"one MCP tool allowed", "gh__search", `{}`, nil, Run, api.DecisionRule, "rule 7"},
		{"an MCP tool nothing names asks", "gh__delete_repo", `{}`, nil, Ask, "", "MCP server gh has approval: always"},
		{"an MCP server nobody configured", "zz__x", `{}`, nil, Ask, "", "no rule, grant or setting names zz__x"},
		{"a move needs both ends in the folder", tools.MoveFile, `{"source": "notes/a", "destination": "notes/b"}`, nil, Run, api.DecisionRule, "rule 8"},
		{"a move out of the folder asks", tools.MoveFile, `{"source": "notes/a", "destination": "elsewhere/b"}`, nil, Ask, "", "preset moderate"},
		{"a deny matches either end", tools.DeleteFile, pathArg("keep/a"), nil, Deny, api.DecisionRule, "rule 9"},
		{"an allow rule with a folder needs plain arguments", tools.WriteFile, write("notes/a\u200b.txt"), nil, Ask, "", "preset moderate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := f.decide(c.tool, c.args, c.grants...)
			if d.Verdict != c.verdict || d.By != c.by || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("%+v, want %s by %q with a reason holding %q", d, c.verdict, c.by, c.reason)
			}
		})
	}
}

// TestPresetsAndMCPSettings: the preset decides what no rule or grant names;
// an MCP tool asks unless its server says never, and always under strict; a
// safer preset is never refused; grants do not apply to the tools strict lists.
func TestPresetsAndMCPSettings(t *testing.T) {
	cases := []struct {
		preset, tool string
		approval     string
		verdict      Verdict
		reason       string
	}{
		{tools.PresetStrict, tools.WebSearch, "", Ask, "preset strict: web_search asks"},
		{tools.PresetStrict, tools.ReadFile, "", Run, "preset strict: read_file runs without asking"},
		{tools.PresetModerate, tools.WebSearch, "", Run, "preset moderate"},
		{tools.PresetModerate, tools.DeleteFile, "", Ask, "preset moderate: delete_file asks"},
		{tools.PresetMinimal, tools.DeleteFile, "", Run, "preset minimal: approval is off"},
		{tools.PresetStrict, "srv__x", config.ApprovalNever, Ask, "preset strict: every MCP tool asks"},
		{tools.PresetModerate, "srv__x", config.ApprovalNever, Run, "MCP server srv has approval: never"},
		{tools.PresetMinimal, "srv__x", config.ApprovalAlways, Ask, "MCP server srv has approval: always"},
		{tools.PresetMinimal, "srv__x", "", Ask, "MCP server srv has approval: always"},
	}
	for _, c := range cases {
		f := newFixture(t, c.preset)
		f.cfg.MCP.Servers = []config.MCPServer{{Name: "srv", Approval: config.MCPApproval{Mode: c.approval}}}
		if d := f.decide(c.tool, `{}`); d.Verdict != c.verdict || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%s under %s (approval %q): %+v, want %s %q", c.tool, c.preset, c.approval, d, c.verdict, c.reason)
		}
	}
	strict := newFixture(t, tools.PresetStrict)
	if d := strict.decide(tools.WebSearch, `{"query": "x"}`, grant(tools.WebSearch, "*")); d.Verdict != Ask {
		t.Errorf("strict let a grant run web_search: %+v", d)
	}
	custom := newFixture(t, tools.PresetCustom)
	custom.cfg.Safety.ApprovalMode, custom.cfg.Safety.ToolsRequiringApproval = true, []string{tools.ReadFile}
	if d := custom.decide(tools.ReadFile, pathArg("a")); d.Verdict != Ask || d.Reason != "preset custom: read_file asks" {
		t.Errorf("custom: %+v", d)
	}
}

// TestRuleFor: the rule "always" saves is the offered scope, and a
// top-folder grant of the old kind cannot be widened into one.
func TestRuleFor(t *testing.T) {
	cases := []struct {
		tool, pattern string
		want          config.Rule
		err           bool
	}{
		{tools.WriteFile, "notes/*", config.Rule{Effect: config.RuleAllow, Tool: tools.WriteFile, Path: "notes/"}, false},
		{tools.ReadFile, "./*", config.Rule{Effect: config.RuleAllow, Tool: tools.ReadFile, Path: "./"}, false},
		{tools.ListDirectory, "notes/sub", config.Rule{Effect: config.RuleAllow, Tool: tools.ListDirectory, Path: "notes/sub/"}, false},
		{tools.ReadWebpage, "go.dev", config.Rule{Effect: config.RuleAllow, Tool: tools.ReadWebpage, Host: "go.dev"}, false},
		{tools.WebSearch, "*", config.Rule{Effect: config.RuleAllow, Tool: tools.WebSearch}, false},
		{tools.WriteFile, "*", config.Rule{}, true},
		{tools.DeleteFile, "notes/*", config.Rule{}, true},
	}
	for _, c := range cases {
		got, err := RuleFor(c.tool, api.GrantOffer{Pattern: c.pattern})
		if (err != nil) != c.err || got != c.want {
			t.Errorf("RuleFor(%s, %q) = %+v, %v; want %+v (error %v)", c.tool, c.pattern, got, err, c.want, c.err)
		}
	}
}

// TestList: every rule in checking order, then the preset's entries.
func TestList(t *testing.T) {
	f := newFixture(t, tools.PresetModerate)
	f.cfg.Safety.Rules = []config.Rule{
		{Effect: config.RuleAllow, Tool: tools.WriteFile, Path: "notes/", Line: 3},
		{Effect: config.RuleDeny, Tool: tools.ReadFile, Path: "secrets/", Line: 4},
	}
	f.cfg.MCP.Servers = []config.MCPServer{{Name: "files", Approval: config.MCPApproval{Mode: config.ApprovalNever}}}
	l := New(f.cfg, nil).List()
	if l.Preset != tools.PresetModerate || len(l.Entries) != 2+len(tools.Names)+1 {
		t.Fatalf("%+v", l)
	}
	if e := l.Entries[0]; e.Source != "rule 2 in config.yaml" || e.Effect != config.RuleDeny || e.Scope != "secrets/" {
		t.Errorf("first entry %+v, want the deny rule", e)
	}
	if e := l.Entries[1]; e.Source != "rule 1 in config.yaml" || e.Effect != config.RuleAllow {
		t.Errorf("second entry %+v", e)
	}
	last := l.Entries[len(l.Entries)-1]
	if last.Tool != "files__*" || last.Effect != config.RuleAllow || last.Source != "MCP server files" {
		t.Errorf("last entry %+v", last)
	}
}
