// Command claimcorpus turns AgentDojo's recorded runs (real models using
// tools) into the labelled corpus that server/verify's TestCorpus measures
// the reply validator on.
//
//	go run ./scripts/claimcorpus -src /work/.mirror/sequrity-ai+agentdojo/repo
//
// -src is either a git directory holding the AgentDojo history (read at
// -commit with git) or a folder holding runs/ as a work tree. The output,
// server/verify/testdata/corpus/agentdojo.jsonl, is one JSON record a line,
// sorted by id, and the same bytes on every run.
//
// Every usable episode (no attack, final assistant text, no tool call written
// as text) gives one honest record: the real final reply with the runs that
// really happened. Every reply sentence that clearly says, in the past tense,
// that an action was done (sent, deleted, created, booked, searched, read a
// page ...) and whose tool really ran gives one fabricated record: the same
// reply against a ledger where every run of that tool was removed, denied or
// failed (the mode is chosen by a hash of the record id). A reply that tells
// of an action whose tool never ran is the model's own fabrication: kept as a
// fabricated record with its runs as recorded when listed in naturalVetted
// (checked by hand), else left out. The hand-written set (handmade.go) goes to
// -handmade. CLAIMCORPUS_DEBUG=1 prints each such unrun claim to stderr.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// PinnedCommit is the AgentDojo commit the committed corpus was made from
// (Edoardo Debenedetti, 2025-08-09, "add CLAUDE.md and other files"; the
// last commit whose tree holds runs/ in the sequrity-ai/agentdojo fork's copy
// of the ethz-spylab/agentdojo history).
const PinnedCommit = "96046ab54a99f5e5ec86b920ea9a2d8ae24ea6d8"

// defaultModels are the pipelines used: five model families, two of them
// with two generations, so no one model's style dominates.
var defaultModels = []string{
	"gpt-4o-2024-05-13",
	"gpt-4o-mini-2024-07-18",
	"claude-3-5-sonnet-20241022",
	"claude-3-7-sonnet-20250219",
	"gemini-1.5-pro-002",
	"gemini-2.0-flash-001",
	"meta-llama_Llama-3.3-70B-Instruct",
	"command-r-plus",
}

// naturalVetted are the episodes whose real final reply tells of an action
// that never ran (the model's own fabrication), each read by hand against its
// run file: kept as fabricated records with their runs as recorded. All are
// command-r-plus, which often ends a task by saying it did the last step
// instead of calling the tool.
var naturalVetted = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`banking/user_task_13 slack/user_task_14 slack/user_task_2 slack/user_task_4
		slack/user_task_6 slack/user_task_7 slack/user_task_9 travel/injection_task_5 travel/user_task_0
		travel/user_task_1 travel/user_task_3 travel/user_task_4 travel/user_task_7 travel/user_task_8
		workspace/injection_task_3 workspace/user_task_21 workspace/user_task_29 workspace/user_task_31`) {
		naturalVetted["agentdojo/command-r-plus/"+t] = true
	}
}

// announcesVetted are episodes whose final reply ends by announcing a tool
// call it never makes ("Now, I will search for ..."), read by hand: no false
// claim of a past run, but not a reply the product should show either (the
// validator rightly re-prompts), so neither label fits and they are left out.
var announcesVetted = map[string]bool{
	"agentdojo/command-r-plus/workspace/user_task_13": true,
	"agentdojo/command-r-plus/workspace/user_task_23": true,
}

// baseMS is the start time of every episode's first run (2025-11-21T23:00:00Z).
const baseMS = int64(1763766000000)

// A Run is one tool run of a record.
type Run struct {
	Tool        string          `json:"tool"`
	Arguments   json.RawMessage `json:"arguments"`
	Status      string          `json:"status"`
	ExecutionID string          `json:"execution_id"`
}

// A Record is one labelled reply.
type Record struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Model  string `json:"model"`
	Reply  string `json:"reply"`
	Runs   []Run  `json:"runs"`
	Label  string `json:"label"`
	Why    string `json:"why"`
}

// episode is the part of an AgentDojo run file that is read.
type episode struct {
	Suite      string    `json:"suite_name"`
	Pipeline   string    `json:"pipeline_name"`
	UserTask   string    `json:"user_task_id"`
	Injection  *string   `json:"injection_task_id"`
	AttackType *string   `json:"attack_type"`
	Messages   []message `json:"messages"`
}

type message struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []toolCall      `json:"tool_calls"`
	ToolCall  *toolCall       `json:"tool_call"`
	Error     *string         `json:"error"`
}

type toolCall struct {
	Function string          `json:"function"`
	Args     json.RawMessage `json:"args"`
}

func main() {
	src := flag.String("src", "", "AgentDojo git directory or work tree (required)")
	commit := flag.String("commit", PinnedCommit, "commit to read when -src is a git directory")
	out := flag.String("out", "server/verify/testdata/corpus/agentdojo.jsonl", "output file")
	models := flag.String("models", strings.Join(defaultModels, ","), "comma-separated pipeline names")
	handOut := flag.String("handmade", "server/verify/testdata/corpus/handmade.jsonl", "output file of the hand-written set (\"\" to skip)")
	stats := flag.Bool("stats", true, "print counts to stderr")
	flag.Parse()
	if *src == "" {
		fmt.Fprintln(os.Stderr, "claimcorpus: -src is required")
		os.Exit(2)
	}
	files, err := readRuns(*src, *commit, strings.Split(*models, ","))
	if err != nil {
		fmt.Fprintln(os.Stderr, "claimcorpus:", err)
		os.Exit(1)
	}
	var recs []Record
	skipped := map[string]int{}
	for _, name := range sortedKeys(files) {
		var ep episode
		if err := json.Unmarshal(files[name], &ep); err != nil {
			fmt.Fprintf(os.Stderr, "claimcorpus: %s: %v\n", name, err)
			os.Exit(1)
		}
		if m := strings.Split(name, "/"); len(m) > 1 {
			ep.Pipeline = m[1] // Llama's files say "local"
		}
		rs, why := episodeRecords(ep)
		if why != "" {
			skipped[why]++
		}
		recs = append(recs, rs...)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	size, err := writeRecords(*out, recs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "claimcorpus:", err)
		os.Exit(1)
	}
	if *handOut != "" {
		hand := handmadeRecords()
		n, err := writeRecords(*handOut, hand)
		if err != nil {
			fmt.Fprintln(os.Stderr, "claimcorpus:", err)
			os.Exit(1)
		}
		if *stats {
			printStats(os.Stderr, hand, nil, n)
		}
	}
	if *stats {
		printStats(os.Stderr, recs, skipped, size)
	}
}

// writeRecords writes recs to path as JSON lines and returns the size.
func writeRecords(path string, recs []Record) (int, error) {
	var buf bytes.Buffer
	for _, r := range recs {
		b, err := marshal(r)
		if err != nil {
			return 0, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	return buf.Len(), os.WriteFile(path, buf.Bytes(), 0o644)
}

// marshal encodes r without HTML escaping, so replies stay readable.
func marshal(r Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func printStats(w io.Writer, recs []Record, skipped map[string]int, size int) {
	count := map[string]int{}
	for _, r := range recs {
		count[r.Model+"\t"+r.Label]++
		count["ALL\t"+r.Label]++
		if r.Label == "fabricated" {
			mode := r.ID[strings.LastIndex(r.ID, "/")+1:]
			count["mode\t"+mode]++
		}
	}
	for _, k := range sortedKeys(count) {
		fmt.Fprintf(w, "%s\t%d\n", k, count[k])
	}
	for _, k := range sortedKeys(skipped) {
		fmt.Fprintf(w, "skipped\t%s\t%d\n", k, skipped[k])
	}
	fmt.Fprintf(w, "bytes\t%d\n", size)
}

// readRuns returns the none/none.json files of the given pipelines, by path.
func readRuns(src, commit string, models []string) (map[string][]byte, error) {
	want := func(p string) bool {
		f := strings.Split(p, "/")
		if len(f) != 6 || f[0] != "runs" || f[4] != "none" || f[5] != "none.json" {
			return false
		}
		for _, m := range models {
			if f[1] == m {
				return true
			}
		}
		return false
	}
	out := map[string][]byte{}
	if st, err := os.Stat(filepath.Join(src, "runs")); err == nil && st.IsDir() {
		err := filepath.WalkDir(filepath.Join(src, "runs"), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			rel = filepath.ToSlash(rel)
			if !want(rel) {
				return nil
			}
			b, err := os.ReadFile(p)
			out[rel] = b
			return err
		})
		return out, err
	}
	ls, err := exec.Command("git", "--git-dir", src, "ls-tree", "-r", "--name-only", commit, "runs").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-tree %s in %s: %w", commit, src, err)
	}
	var paths []string
	for _, p := range strings.Split(strings.TrimSpace(string(ls)), "\n") {
		if want(p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no runs/<model>/<suite>/<task>/none/none.json at %s for %v", commit, models)
	}
	cmd := exec.Command("git", "--git-dir", src, "cat-file", "--batch")
	var in bytes.Buffer
	for _, p := range paths {
		fmt.Fprintf(&in, "%s:%s\n", commit, p)
	}
	cmd.Stdin = &in
	raw, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	r := bufio.NewReader(bytes.NewReader(raw))
	for _, p := range paths {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: %s: %q", p, head)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, err
		}
		b := make([]byte, n+1)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		out[p] = b[:n]
	}
	return out, nil
}

// text is a message's text: a string, or the text parts of a list.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type    string `json:"type"`
		Content string `json:"content"`
		Text    string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Content + p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// textCall is a tool call a model wrote as text (Llama's <function=...>):
// in the product that is a call, not a final reply.
var textCall = regexp.MustCompile(`<function[=>]|<tool_call>|\{"(name|function)":\s*"[a-z_]+",\s*"(parameters|arguments)"`)

// episodeRecords returns the honest record of ep and its fabricated twins,
// or why ep gives none.
func episodeRecords(ep episode) ([]Record, string) {
	if ep.Injection != nil || ep.AttackType != nil {
		return nil, "attacked episode"
	}
	n := len(ep.Messages)
	if n == 0 {
		return nil, "no messages"
	}
	last := ep.Messages[n-1]
	if last.Role != "assistant" || len(last.ToolCalls) > 0 {
		return nil, "no final assistant reply"
	}
	reply := text(last.Content)
	if strings.TrimSpace(reply) == "" {
		return nil, "empty final reply"
	}
	if textCall.MatchString(reply) {
		return nil, "tool call written as text"
	}
	id := "agentdojo/" + ep.Pipeline + "/" + ep.Suite + "/" + ep.UserTask
	if announcesVetted[id] {
		return nil, "reply announces a call it did not make"
	}
	var runs []Run
	var fns []string // AgentDojo function of each run
	for _, m := range ep.Messages {
		if m.Role != "tool" || m.ToolCall == nil {
			continue
		}
		name := ep.Suite + "__" + m.ToolCall.Function
		status := "ok"
		if m.Error != nil && *m.Error != "" {
			status = "error"
		}
		i := len(runs)
		runs = append(runs, Run{
			Tool:        name,
			Arguments:   canonical(m.ToolCall.Args),
			Status:      status,
			ExecutionID: executionID(name, id, i),
		})
		fns = append(fns, m.ToolCall.Function)
	}
	claims := findClaims(ep.Suite, reply, runs, fns)
	var unrun []string
	for _, c := range claims {
		if c.status != "ok" {
			var names []string
			for _, fn := range c.fns {
				names = append(names, ep.Suite+"__"+fn)
			}
			what := "no run of " + strings.Join(names, " or ") + " happened"
			if c.status == "error" {
				what = "every run of " + strings.Join(names, " or ") + " failed"
			}
			unrun = append(unrun, fmt.Sprintf("%s, yet the reply says %q", what, c.sentence))
			if os.Getenv("CLAIMCORPUS_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "SKIP %s %v %q: %q\n", id, c.fns, c.status, c.sentence)
			}
		}
	}
	if len(unrun) > 0 {
		// The model itself told of an action that failed or never ran as
		// done: a natural fabrication. Kept (runs as recorded) only when
		// checked by hand; otherwise left out and counted.
		if !naturalVetted[id] {
			return nil, "reply claims a failed or unrun action"
		}
		if runs == nil {
			runs = []Run{}
		}
		return []Record{{
			ID: id + "/natural", Source: "agentdojo", Model: ep.Pipeline, Reply: reply, Runs: runs, Label: "fabricated",
			Why: "natural fabrication by the model, runs as recorded: " + strings.Join(unrun, "; "),
		}}, ""
	}
	errs := 0
	for _, r := range runs {
		if r.Status == "error" {
			errs++
		}
	}
	honest := Record{
		ID: id, Source: "agentdojo", Model: ep.Pipeline, Reply: reply, Runs: runs, Label: "honest",
		Why: fmt.Sprintf("real final reply of %s on %s/%s with its %d recorded runs (%d failed)", ep.Pipeline, ep.Suite, ep.UserTask, len(runs), errs),
	}
	if runs == nil {
		honest.Runs = []Run{}
	}
	recs := []Record{honest}
	for _, c := range claims {
		set := map[string]bool{}
		var names []string
		for _, fn := range c.fns {
			set[fn] = true
			names = append(names, ep.Suite+"__"+fn)
		}
		modes := []string{"removed", "denied", "failed"}
		fid := id + "/fab/" + strings.Join(c.fns, "+")
		mode := modes[hash(fid)%3]
		fid += "/" + mode
		var fr []Run
		altered := map[string]int{}
		for i, r := range runs {
			if !set[fns[i]] {
				fr = append(fr, r)
				continue
			}
			altered[r.Tool]++
			switch mode {
			case "denied":
				r.Status, r.ExecutionID = "denied", ""
				fr = append(fr, r)
			case "failed":
				r.Status = "error"
				fr = append(fr, r)
			}
		}
		if fr == nil {
			fr = []Run{}
		}
		var parts []string
		for _, t := range sortedKeys(altered) {
			parts = append(parts, fmt.Sprintf("%d run(s) of %s", altered[t], t))
		}
		verb := map[string]string{"removed": "removed from the ledger (never ran)", "denied": "marked denied by the user", "failed": "marked failed"}[mode]
		recs = append(recs, Record{
			ID: fid, Source: "agentdojo", Model: ep.Pipeline, Reply: reply, Runs: fr, Label: "fabricated",
			Why: fmt.Sprintf("%s %s (the claim could rest on any of %s); the reply still says it was done: %q",
				strings.Join(parts, " and "), verb, strings.Join(names, ", "), c.sentence),
		})
	}
	return recs, ""
}

// canonical re-encodes a JSON object with sorted keys; null becomes {}.
func canonical(raw json.RawMessage) json.RawMessage {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if len(raw) == 0 || d.Decode(&v) != nil || v == nil {
		return json.RawMessage("{}")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return json.RawMessage("{}")
	}
	return json.RawMessage(bytes.TrimRight(b.Bytes(), "\n"))
}

func hash(s string) uint64 {
	h := sha256.Sum256([]byte(s))
	return binary.BigEndian.Uint64(h[:8])
}

var nonIDChar = regexp.MustCompile(`[^a-z0-9_]`)

// executionID is the i-th run's id in the product's format:
// <tool lower-cased, non [a-z0-9_] as _>_<13-digit unix ms>_<8 hex>.
func executionID(tool, recordID string, i int) string {
	h := sha256.Sum256([]byte(recordID + "#" + strconv.Itoa(i)))
	ms := baseMS + int64(i)*1000 + int64(h[8])<<2
	return nonIDChar.ReplaceAllString(strings.ToLower(tool), "_") + "_" + strconv.FormatInt(ms, 10) + "_" + hex.EncodeToString(h[:4])
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
