package sanitize

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPatternsOnProbes measures the pattern layers alone (the classifier
// off) on the probes of classifier/probes: injected tasks written by others
// (PIArena's, as ordinary requests to the model that reads a text;
// InjecAgent's), the Wikipedia passages PIArena plants them in, and pages
// about language models (Ollama's and Continue's docs), which must stay
// nearly unflagged. The rules
// for orders about the reading model's answer were written after reading 25
// of PIArena's 1,700 tasks, so for them PIArena is a development set, not an
// unseen one. Run with -v for the figures.
func TestPatternsOnProbes(t *testing.T) {
	for _, p := range []struct {
		file     string
		min, max float64 // the flagged share must stay within
	}{
		{"piarena.jsonl", 0.40, 1},
		{"injecagent.jsonl", 0.45, 1},
		{"wikicontexts.jsonl", 0, 0},
		// Pages about language models: 2 of 349 flagged today, on a "`system`:"
		// list item (7 before "[SYSTEM](#system)" links, "<model>" and "<tool>"
		// placeholders, "models, run tools" and "give your configuration a
		// name" stopped reading as attacks).
		{"llmdocs.jsonl", 0, 0.01},
	} {
		texts := probeTexts(t, p.file)
		flagged := 0
		for _, text := range texts {
			if _, rep := Sanitize(text, Options{NoClassifier: true}); rep.Flagged {
				flagged++
			}
		}
		share := float64(flagged) / float64(len(texts))
		t.Logf("%-20s %5d texts, %4d flagged by the patterns (%.3f)", p.file, len(texts), flagged, share)
		if share < p.min || share > p.max {
			t.Errorf("%s: the patterns flag %.3f, want %.2f to %.2f", p.file, share, p.min, p.max)
		}
	}

	// The same tasks inside text, as an attack plants them: each in the
	// middle of a passage, at a sentence's end.
	tasks, passages := probeTexts(t, "piarena.jsonl"), probeTexts(t, "wikicontexts.jsonl")
	flagged := 0
	for i, task := range tasks {
		page := passages[i%len(passages)]
		cut := len(page) / 2
		for cut < len(page) && page[cut] != '.' {
			cut++
		}
		if cut < len(page) {
			cut++
		}
		if _, rep := Sanitize(page[:cut]+" "+task+" "+page[cut:], Options{NoClassifier: true}); rep.Flagged {
			flagged++
		}
	}
	share := float64(flagged) / float64(len(tasks))
	t.Logf("%-20s %5d texts, %4d flagged by the patterns (%.3f)", "piarena in passages", len(tasks), flagged, share)
	if share < 0.38 {
		t.Errorf("PIArena's tasks inside passages: the patterns flag %.3f, want at least 0.38", share)
	}
}

// probeTexts reads the texts of one probe file.
func probeTexts(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("classifier", "probes", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, e.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no texts", name)
	}
	return out
}
