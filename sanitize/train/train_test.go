package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ailab/ai-lab/sanitize/classifier"
)

// TestCommittedModelIsReproducible trains on the committed data exactly as
// `go run ./sanitize/train` does and checks that the result is the committed
// model.bin and Threshold, byte for byte: the weights in the binary come from the
// data in the repository and nothing else, and a change to the features, the data
// or the training that is not followed by a new training run fails here.
func TestCommittedModelIsReproducible(t *testing.T) {
	dir := filepath.Join("..", "classifier")
	examples, err := loadDir(filepath.Join(dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	sets := buildSets(examples)
	model := train(sets.train, defaultConfig)
	threshold := chooseThreshold(model, sets.calib)
	bin, err := model.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join(dir, "model.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bin, committed) {
		t.Error("training on the committed data does not give the committed model.bin: run go run ./sanitize/train")
	}
	if fmt.Sprintf("%.4f", threshold) != fmt.Sprintf("%.4f", classifier.Threshold) { // as threshold.go writes it
		t.Errorf("training chooses the threshold %.4f, threshold.go says %.4f: run go run ./sanitize/train", threshold, classifier.Threshold)
	}
}

// TestSplitsAreDisjoint: no group of examples is in two splits, so the held-out
// figures are about texts training never saw.
func TestSplitsAreDisjoint(t *testing.T) {
	examples, err := loadDir(filepath.Join("..", "classifier", "data"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]splitName{}
	for _, e := range examples {
		key := e.Group
		if key == "" {
			key = e.Text
		}
		s := splitOf(e)
		if prev, ok := seen[key]; ok && prev != s {
			t.Fatalf("group %q is in splits %d and %d", key, prev, s)
		}
		seen[key] = s
	}
}
