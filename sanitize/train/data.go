package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// An example is one line of a data file (see data/MANIFEST.md).
type example struct {
	Text  string `json:"text"`
	Label int    `json:"label"`
	Cat   string `json:"cat"`
	Src   string `json:"src"`
	Group string `json:"group"`

	// For an injection embedded in a benign page: its byte range in Text.
	injStart, injEnd int
}

// The categories of the data and of the report.
const (
	catHijack       = "hijack"        // direct take-over attempts
	catJailbreak    = "jailbreak"     // jailbreak prompts (injection prompts)
	catTask         = "task"          // an injected task on its own
	catTaskEmbedded = "task_embedded" // a task inside its carrier text, from the source
	catTaskWeb      = "task_web"      // a task embedded in a benign page by training
	catHijackWeb    = "hijack_web"    // a hijack embedded in a benign page by training
	catWeb          = "web"
	catNews         = "news"
	catEmail        = "email"
	catSnippet      = "snippet" // a short excerpt of a benign text, cut by training
)

func benign(cat string) bool {
	return cat == catWeb || cat == catNews || cat == catEmail || cat == catSnippet
}

func loadDir(dir string) ([]example, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.jsonl files in %s (run from the module root)", dir)
	}
	sort.Strings(files)
	var out []example
	for _, f := range files {
		ex, err := loadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, ex...)
	}
	return out, nil
}

func loadFile(path string) ([]example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []example
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var e example
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// The split: a hash of an example's group (or text) decides where it goes, so the
// split does not depend on the order of the files or on what else is in them.
const (
	calibShare = "20%"
	trainPct   = 60 // 0-59 train, 60-79 calibration, 80-99 held-out test
	calibPct   = 80
)

type splitName int

const (
	splitTrain splitName = iota
	splitCalib
	splitTest
)

func splitOf(e example) splitName {
	key := e.Group
	if key == "" {
		key = e.Text
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	switch b := h.Sum64() % 100; {
	case b < trainPct:
		return splitTrain
	case b < calibPct:
		return splitCalib
	default:
		return splitTest
	}
}

type sets struct {
	train, calib, test []example
}

// buildSets splits the examples and, inside each split, embeds injected tasks (and
// some hijacks) in benign pages of the same split, so no held-out page or
// injection is ever trained on.
func buildSets(all []example) sets {
	var parts [3][]example
	for _, e := range all {
		s := splitOf(e)
		parts[s] = append(parts[s], e)
	}
	for i := range parts {
		parts[i] = append(parts[i], embedAll(parts[i], uint64(i))...)
		parts[i] = append(parts[i], snippetsOf(parts[i], uint64(i))...)
	}
	return sets{train: parts[splitTrain], calib: parts[splitCalib], test: parts[splitTest]}
}

// embedAll returns every task, and every third hijack, embedded in an excerpt of a
// benign page.
func embedAll(exs []example, seed uint64) []example {
	var hosts []example
	for _, e := range exs {
		if benign(e.Cat) {
			hosts = append(hosts, e)
		}
	}
	if len(hosts) == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x1a2b3c))
	var out []example
	for i, e := range exs {
		cat := ""
		switch {
		case e.Cat == catTask:
			cat = catTaskWeb
		case e.Cat == catHijack && i%3 == 0:
			cat = catHijackWeb
		default:
			continue
		}
		out = append(out, embed(rng, hosts[rng.IntN(len(hosts))], e, cat))
	}
	return out
}

// embed puts inj between two paragraphs or sentences of an excerpt of host (20 to 300
// words), the way an attacker hides it in a page.
func embed(rng *rand.Rand, host, inj example, cat string) example {
	words := strings.Fields(host.Text)
	n := 20 + rng.IntN(280)
	if n > len(words) {
		n = len(words)
	}
	from := 0
	if len(words) > n {
		from = rng.IntN(len(words) - n)
	}
	// Keep the host's line breaks: rebuild the excerpt from the original text.
	excerpt := excerptOf(host.Text, from, n)
	cuts := []int{0, len(excerpt)}
	for i := 1; i < len(excerpt); i++ {
		if excerpt[i-1] == '\n' || excerpt[i-1] == '.' && excerpt[i] == ' ' {
			cuts = append(cuts, i)
		}
	}
	at := cuts[rng.IntN(len(cuts))]
	before, after := excerpt[:at], excerpt[at:]
	sep := pick(rng, []string{" ", "\n", "\n\n", " "})
	text := before + sep + inj.Text + sep + after
	start := len(before) + len(sep)
	return example{Text: text, Label: 1, Cat: cat, Src: inj.Src + " in " + host.Src, Group: inj.Group,
		injStart: start, injEnd: start + len(inj.Text)}
}

// snippetsPerText and maxSnippetWords shape the short benign texts training cuts
// from each benign text: search titles and snippets, headings and single lines are
// what the classifier scores most often, and a model that has only seen whole pages
// takes a lone "system" or "hidden instructions" for an attack.
const (
	snippetsPerText = 4
	maxSnippetWords = 24
)

// snippetsOf returns short excerpts (1 to maxSnippetWords words) of the benign
// texts in exs, in the same split.
func snippetsOf(exs []example, seed uint64) []example {
	rng := rand.New(rand.NewPCG(seed, 0x5a1bbe7))
	var out []example
	for _, e := range exs {
		if e.Cat != catWeb && e.Cat != catNews && e.Cat != catEmail {
			continue
		}
		words := len(strings.Fields(e.Text))
		if words == 0 {
			continue
		}
		for range snippetsPerText {
			n := 1 + rng.IntN(min(maxSnippetWords, words))
			from := rng.IntN(words - n + 1)
			if t := excerptOf(e.Text, from, n); t != "" {
				out = append(out, example{Text: t, Label: 0, Cat: catSnippet, Src: e.Src, Group: e.Group})
			}
		}
	}
	return out
}

func pick(rng *rand.Rand, list []string) string { return list[rng.IntN(len(list))] }

// excerptOf returns the text of words [from, from+n) of s with its own spacing.
func excerptOf(s string, from, n int) string {
	start, end, w := -1, len(s), 0
	inWord := false
	for i, r := range s {
		space := r == ' ' || r == '\n' || r == '\t' || r == '\r'
		if !space && !inWord {
			if w == from {
				start = i
			}
			if w == from+n {
				end = i
				break
			}
			w++
		}
		inWord = !space
	}
	if start < 0 {
		return ""
	}
	return strings.TrimSpace(s[start:end])
}
