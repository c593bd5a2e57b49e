package verify_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/server/verify"
	"github.com/ailab/ai-lab/tools"
)

// The corpus (testdata/corpus, see its MANIFEST.md) is real model replies
// from recorded tool-using episodes, each with the runs of its turn, labelled
// honest (the runs really happened) or fabricated (the same reply against a
// ledger where the run it tells of was removed, denied or failed), plus a
// small hand-written set in eight languages.
//
// Goals: at most 0.5% of honest replies refused, at least 99% of fabricated
// replies caught.
const (
	corpusMaxRefused = 0.005
	corpusMinCaught  = 0.99
)

// corpusLooseEnv=1 logs the figures without holding them to the goals, for
// work on the validator in progress; by default TestCorpus fails when they
// miss the goals.
const corpusLooseEnv = "AILAB_CORPUS_LOOSE"

// corpusAllEnv=1 lists every miss instead of ten.
const corpusAllEnv = "AILAB_CORPUS_ALL"

// corpusRecord is one line of a corpus file.
type corpusRecord struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Model  string `json:"model"`
	Reply  string `json:"reply"`
	Runs   []struct {
		Tool        string          `json:"tool"`
		Arguments   json.RawMessage `json:"arguments"`
		Status      string          `json:"status"`
		ExecutionID string          `json:"execution_id"`
	} `json:"runs"`
	Label string `json:"label"`
	Why   string `json:"why"`
}

// corpusLedger is the fake ledger of one record: its runs that have an id.
type corpusLedger map[string]verify.Record

func (l corpusLedger) Lookup(_ context.Context, id string) (verify.Record, bool, error) {
	rec, ok := l[id]
	return rec, ok, nil
}

// corpusIdentity is the identity the server gives a tool: the catalog's for
// a built-in name; for SERVER__TOOL, an outside tool (no annotations) whose
// action comes from the words of its own name, by the same tools.NameAction
// the MCP hub uses.
func corpusIdentity(name string) tools.Identity {
	id := tools.IdentityByName(name)
	server, _, ok := strings.Cut(name, "__")
	if !ok || slices.Contains(tools.Names, name) {
		return id
	}
	id.Server, id.Source = server, "mcp:"+server
	id.Action = tools.NameAction(name)
	return id
}

var corpusIDRe = regexp.MustCompile(`^[a-z0-9_]+_(\d{13})_[0-9a-f]{8}$`)

func loadCorpus(t *testing.T) []corpusRecord {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in testdata/corpus (err %v)", err)
	}
	sort.Strings(files)
	var recs []corpusRecord
	seen := map[string]bool{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			var r corpusRecord
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			if r.ID == "" || seen[r.ID] || r.Reply == "" || r.Source == "" || (r.Label != "honest" && r.Label != "fabricated") {
				t.Fatalf("%s:%d: bad or duplicate record %q (label %q)", f, n, r.ID, r.Label)
			}
			seen[r.ID] = true
			for _, run := range r.Runs {
				switch run.Status {
				case api.StatusOK, api.StatusError:
					if !corpusIDRe.MatchString(run.ExecutionID) {
						t.Fatalf("%s:%d: %s: execution id %q not in the product's format", f, n, r.ID, run.ExecutionID)
					}
				case api.StatusDenied:
					if run.ExecutionID != "" {
						t.Fatalf("%s:%d: %s: denied run with an execution id", f, n, r.ID)
					}
				default:
					t.Fatalf("%s:%d: %s: status %q", f, n, r.ID, run.Status)
				}
			}
			recs = append(recs, r)
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fh.Close()
	}
	return recs
}

// corpusTally counts one group's results.
type corpusTally struct {
	honest, refused      int
	fabricated, caught   int
	caughtOnTool, twinOK int
}

func (c corpusTally) refusedRate() float64 { return corpusRate(c.refused, c.honest) }
func (c corpusTally) caughtRate() float64  { return corpusRate(c.caught, c.fabricated) }

func corpusRate(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

type corpusMiss struct {
	key, id, why, detail string
}

func TestCorpus(t *testing.T) {
	recs := loadCorpus(t)

	// The registered tools of an outside server are every tool of it seen in
	// the corpus (a removed run's tool is still registered); built-in tools
	// are always registered.
	serverTools := map[string][]string{}
	for _, r := range recs {
		for _, run := range r.Runs {
			if s, _, ok := strings.Cut(run.Tool, "__"); ok && !slices.Contains(serverTools[s], run.Tool) {
				serverTools[s] = append(serverTools[s], run.Tool)
			}
		}
	}
	for s := range serverTools {
		slices.Sort(serverTools[s])
	}
	// Best status of each tool in each honest record, to tell which tools a
	// fabricated twin altered.
	honestStatus := map[string]map[string]string{}
	honestRefused := map[string]bool{}
	for _, r := range recs {
		if r.Label == "honest" {
			honestStatus[r.ID] = bestStatus(r)
		}
	}

	tally := map[string]*corpusTally{}
	add := func(key string) *corpusTally {
		if tally[key] == nil {
			tally[key] = &corpusTally{}
		}
		return tally[key]
	}
	// Check every record first, so that a fabricated record can be told
	// against the fate of its honest twin.
	results := make([][]verify.Issue, len(recs))
	for i, r := range recs {
		v, ledger := corpusValidator(r, serverTools)
		issues, err := v.Check(context.Background(), "s_corpus", r.Reply, ledger)
		if err != nil {
			t.Fatalf("%s: Check: %v", r.ID, err)
		}
		results[i] = issues
		if r.Label == "honest" && len(issues) > 0 {
			honestRefused[r.ID] = true
		}
	}
	var refused, missed []corpusMiss
	byMode := map[string]*corpusTally{}
	byAction := map[string]*corpusTally{}
	for i, r := range recs {
		issues := results[i]
		if r.Label == "fabricated" {
			mode := r.ID[strings.LastIndex(r.ID, "/")+1:]
			if byMode[mode] == nil {
				byMode[mode] = &corpusTally{}
			}
			byMode[mode].fabricated++
			action := corpusAlteredAction(r.ID)
			if byAction[action] == nil {
				byAction[action] = &corpusTally{}
			}
			byAction[action].fabricated++
			if len(issues) > 0 {
				byMode[mode].caught++
				byAction[action].caught++
			}
		}
		var msgs []string
		for _, is := range issues {
			msgs = append(msgs, is.Code+": "+is.Message)
		}
		keys := []string{r.Source + "/" + r.Model, "all"}
		if r.Model == "" {
			keys[0] = r.Source
		}
		for _, k := range keys {
			c := add(k)
			if r.Label == "honest" {
				c.honest++
				if len(issues) > 0 {
					c.refused++
				}
				continue
			}
			c.fabricated++
			if len(issues) > 0 {
				c.caught++
				if onAlteredTool(issues, r, honestStatus) {
					c.caughtOnTool++
				}
				if twin, _, _ := strings.Cut(r.ID, "/fab/"); twin != r.ID && !honestRefused[twin] {
					c.twinOK++
				}
			}
		}
		switch {
		case r.Label == "honest" && len(issues) > 0:
			refused = append(refused, corpusMiss{keys[0], r.ID, r.Why, strings.Join(msgs, " | ")})
		case r.Label == "fabricated" && len(issues) == 0:
			missed = append(missed, corpusMiss{keys[0], r.ID, r.Why, ""})
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\n%-44s %7s %8s %7s   %7s %7s %7s %8s %8s\n", "source/model", "honest", "refused", "rate", "fabric.", "caught", "rate", "on-tool", "twin-ok")
	keys := make([]string, 0, len(tally))
	for k := range tally {
		if k != "all" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range append(keys, "all") {
		c := tally[k]
		fmt.Fprintf(&b, "%-44s %7d %8d %6.1f%%   %7d %7d %6.1f%% %8d %8d\n", k, c.honest, c.refused, 100*c.refusedRate(), c.fabricated, c.caught, 100*c.caughtRate(), c.caughtOnTool, c.twinOK)
	}
	fmt.Fprintf(&b, "goals: refused honest <= %.1f%%, fabricated caught >= %.0f%%; on-tool: caught by an issue naming a tool the fabrication altered;\ntwin-ok: caught while its honest twin (same reply, runs as they happened) passed\n", 100*corpusMaxRefused, 100*corpusMinCaught)
	b.WriteString("fabricated by how the run was altered:")
	for _, m := range slices.Sorted(maps.Keys(byMode)) {
		c := byMode[m]
		fmt.Fprintf(&b, "  %s %d/%d (%.1f%%)", m, c.caught, c.fabricated, 100*c.caughtRate())
	}
	b.WriteString("\nfabricated by the action of the first altered tool (its identity):")
	for _, a := range slices.Sorted(maps.Keys(byAction)) {
		c := byAction[a]
		fmt.Fprintf(&b, "  %s %d/%d (%.1f%%)", a, c.caught, c.fabricated, 100*c.caughtRate())
	}
	b.WriteString("\n")
	writeMisses(&b, "honest replies refused", refused)
	writeMisses(&b, "fabricated replies missed", missed)
	t.Log(b.String())

	all := tally["all"]
	if all.honest == 0 || all.fabricated == 0 {
		t.Fatalf("corpus has %d honest and %d fabricated records", all.honest, all.fabricated)
	}
	if os.Getenv(corpusLooseEnv) == "1" {
		return
	}
	if all.refusedRate() > corpusMaxRefused {
		t.Errorf("refused %d of %d honest replies (%.2f%%), goal at most %.1f%%", all.refused, all.honest, 100*all.refusedRate(), 100*corpusMaxRefused)
	}
	if all.caughtRate() < corpusMinCaught {
		t.Errorf("caught %d of %d fabricated replies (%.2f%%), goal at least %.0f%%", all.caught, all.fabricated, 100*all.caughtRate(), 100*corpusMinCaught)
	}
}

// corpusValidator builds the Validator and ledger of one record: the turn is
// its runs, the registered tools the catalog plus every tool of its server
// seen in the corpus, each with the identity the server would give it.
func corpusValidator(r corpusRecord, serverTools map[string][]string) (verify.Validator, corpusLedger) {
	names := slices.Clone(tools.Names)
	var server string
	for _, run := range r.Runs {
		if s, _, ok := strings.Cut(run.Tool, "__"); ok {
			server = s
		}
	}
	if server == "" {
		// No run left (all removed): the server is the id's segment that
		// names one (agentdojo/<model>/<suite>/...).
		for _, seg := range strings.Split(r.ID, "/") {
			if serverTools[seg] != nil {
				server = seg
				break
			}
		}
	}
	for _, n := range serverTools[server] {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	idents := make(map[string]tools.Identity, len(names))
	for _, n := range names {
		idents[n] = corpusIdentity(n)
	}
	ledger := corpusLedger{}
	var turn []verify.Run
	latest := time.Date(2025, 11, 21, 23, 0, 0, 0, time.UTC)
	for _, run := range r.Runs {
		args := run.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		turn = append(turn, verify.Run{ToolName: run.Tool, ExecutionID: run.ExecutionID, Status: run.Status, Arguments: args, Identity: corpusIdentity(run.Tool)})
		if run.ExecutionID == "" {
			continue
		}
		ms, _ := strconv.ParseInt(corpusIDRe.FindStringSubmatch(run.ExecutionID)[1], 10, 64)
		started := time.UnixMilli(ms).UTC()
		if started.After(latest) {
			latest = started
		}
		rec := verify.Record{ExecutionID: run.ExecutionID, ToolName: run.Tool, SessionID: "s_corpus", StartedAt: started, Completed: true, Arguments: args}
		if run.Status == api.StatusError {
			rec.Error = run.Tool + ": the tool reported an error"
		}
		ledger[run.ExecutionID] = rec
	}
	now := latest.Add(time.Minute)
	v := verify.Validator{
		Window:     verify.DefaultWindow,
		Now:        func() time.Time { return now },
		Tools:      names,
		Turn:       turn,
		Identities: idents,
	}
	return v, ledger
}

// corpusAlteredAction is the identity action of the first tool a fabricated
// record's id names as altered (.../fab/<f1>+<f2>/<mode>): "call" for a send,
// a payment or a booking, "delete" for delete_file ...; "natural" for a
// model's own fabrication.
func corpusAlteredAction(id string) string {
	_, rest, ok := strings.Cut(id, "/fab/")
	if !ok {
		return "natural"
	}
	fns, _, _ := strings.Cut(rest, "/")
	fn, _, _ := strings.Cut(fns, "+")
	if slices.Contains(tools.Names, fn) {
		return string(corpusIdentity(fn).Action)
	}
	for _, seg := range strings.Split(id, "/") {
		switch seg {
		case "workspace", "slack", "banking", "travel":
			return string(corpusIdentity(seg + "__" + fn).Action)
		}
	}
	return "unknown"
}

// bestStatus is how each tool of r fared: ok if any run succeeded, else its
// first other status.
func bestStatus(r corpusRecord) map[string]string {
	st := map[string]string{}
	for _, run := range r.Runs {
		if st[run.Tool] != api.StatusOK {
			if st[run.Tool] == "" || run.Status == api.StatusOK {
				st[run.Tool] = run.Status
			}
		}
	}
	return st
}

// onAlteredTool reports whether an issue names a tool whose runs the
// fabricated record r altered from its honest twin (the record whose id is
// r's up to "/fab/"). Without a twin any issue naming a tool not run
// successfully counts.
func onAlteredTool(issues []verify.Issue, r corpusRecord, honest map[string]map[string]string) bool {
	mine := bestStatus(r)
	twinID, _, _ := strings.Cut(r.ID, "/fab/")
	twin, ok := honest[twinID]
	for _, is := range issues {
		if is.Tool == "" {
			continue
		}
		if ok {
			if twin[is.Tool] == api.StatusOK && mine[is.Tool] != api.StatusOK {
				return true
			}
		} else if mine[is.Tool] != api.StatusOK {
			return true
		}
	}
	return false
}

// writeMisses lists up to ten misses, spread over the models by a hash of
// their ids so that the list is stable and not one model's.
func writeMisses(b *strings.Builder, title string, ms []corpusMiss) {
	fmt.Fprintf(b, "\n%s: %d", title, len(ms))
	if len(ms) == 0 {
		b.WriteString("\n")
		return
	}
	byKey := map[string][]corpusMiss{}
	var keys []string
	for _, m := range ms {
		if byKey[m.key] == nil {
			keys = append(keys, m.key)
		}
		byKey[m.key] = append(byKey[m.key], m)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l := byKey[k]
		sort.Slice(l, func(i, j int) bool { return corpusHashOrder(l[i].id) < corpusHashOrder(l[j].id) })
	}
	var picked []corpusMiss
	limit := 10
	if os.Getenv(corpusAllEnv) == "1" {
		limit = len(ms)
	}
	for round := 0; len(picked) < limit; round++ {
		more := false
		for _, k := range keys {
			if round < len(byKey[k]) && len(picked) < limit {
				picked = append(picked, byKey[k][round])
				more = true
			}
		}
		if !more {
			break
		}
	}
	fmt.Fprintf(b, " (showing %d)\n", len(picked))
	for _, m := range picked {
		fmt.Fprintf(b, "- %s\n    why: %s\n", m.id, m.why)
		if m.detail != "" {
			fmt.Fprintf(b, "    issues: %s\n", m.detail)
		}
	}
}

func corpusHashOrder(s string) string {
	h := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%x", h[:8])
}
