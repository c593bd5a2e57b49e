// Command train builds the prompt-injection classifier's weights from the data in
// sanitize/classifier/data and reports how well they do on held-out data:
//
//	go run ./sanitize/train
//
// run from the module root. It writes sanitize/classifier/model.bin (the weights the
// classifier embeds) and sanitize/classifier/threshold.go (the threshold), and prints
// precision, recall and false-positive rate per category on the held-out split. The
// same data gives the same bytes: the split is a hash of each example, every random
// choice comes from a fixed seed, and training runs on one goroutine.
//
// It must never read anything but the data folder, and never touch the network.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/ailab/ai-lab/sanitize/classifier"
)

func main() {
	data := flag.String("data", "sanitize/classifier/data", "folder of the JSONL training data")
	out := flag.String("out", "sanitize/classifier", "folder to write model.bin and threshold.go to")
	flag.BoolVar(&debug, "debug", false, "also list the worst-scored held-out texts (with -score: every flagged text)")
	flag.BoolVar(&loso, "loso", true, "also train once without each source and score it (minutes)")
	flag.IntVar(&defaultConfig.epochs, "epochs", defaultConfig.epochs, "training epochs")
	flag.Float64Var(&defaultConfig.rate, "rate", defaultConfig.rate, "AdaGrad learning rate")
	flag.Float64Var(&defaultConfig.l2, "l2", defaultConfig.l2, "L2 penalty")
	flag.Uint64Var(&defaultConfig.seed, "seed", defaultConfig.seed, "seed of the training order (another seed shows how much a figure owes to chance)")
	flag.BoolVar(&defaultConfig.capTopics, "cap-topics", defaultConfig.capTopics, "keep the topic words' weights at or under zero")
	flag.Float64Var(&defaultConfig.maxWeight, "max-weight", defaultConfig.maxWeight, "cap on any weight (0: none)")
	flag.Float64Var(&minHijackRecall, "min-hijack-recall", minHijackRecall, "calibration hijack recall the threshold keeps")
	flag.Float64Var(&defaultConfig.hijackWeight, "hijack-weight", defaultConfig.hijackWeight, "weight of a direct hijack against a jailbreak")
	flag.Float64Var(&defaultConfig.taskWeight, "task-weight", defaultConfig.taskWeight, "weight of an injected task against a jailbreak")
	flag.Float64Var(&defaultConfig.lengthPenalty, "length-penalty", defaultConfig.lengthPenalty, "log-odds off a text's best window per unit of ln(windows / free windows)")
	flag.IntVar(&defaultConfig.freeWindows, "free-windows", defaultConfig.freeWindows, "windows a text may have before the length penalty applies")
	flag.IntVar(&defaultConfig.penaltyWindows, "penalty-windows", defaultConfig.penaltyWindows, "windows past which the length penalty stops growing")
	losoEpochs := flag.Int("loso-epochs", 0, "training epochs of each leave-one-source-out fit (0: as -epochs)")
	flag.StringVar(&losoOnly, "loso-only", "", "comma-separated sources: leave out only these (for experiments)")
	score := flag.String("score", "", "only score this JSONL file with -model at -threshold and print the flagged share of each source")
	modelPath := flag.String("model", "sanitize/classifier/model.bin", "with -score: the model file")
	threshold := flag.Float64("threshold", classifier.Threshold, "with -score: the threshold")
	flag.Parse()
	if err := defaultConfig.check(); err != nil {
		log.Fatal(err)
	}
	if *losoEpochs < 0 {
		log.Fatalf("-loso-epochs is %d: give 0 (the left-out fits train as many epochs as -epochs) or more", *losoEpochs)
	}
	if *score != "" {
		if err := scoreFile(*score, *modelPath, *threshold, defaultConfig); err != nil {
			log.Fatal(err)
		}
		return
	}
	losoConfig = defaultConfig
	if *losoEpochs > 0 {
		losoConfig.epochs = *losoEpochs
	}
	if err := run(*data, *out); err != nil {
		log.Fatal(err)
	}
}

var (
	debug, loso bool
	losoOnly    string
)

func run(dataDir, outDir string) error {
	examples, err := loadDir(dataDir)
	if err != nil {
		return err
	}
	sets := buildSets(examples)
	model := train(sets.train, defaultConfig)
	threshold := chooseThreshold(model, sets.calib)

	rep := evaluate(model, threshold, sets)
	var rs []losoResult
	if loso {
		rs = leaveOneSourceOut(examples)
		rep += losoReport(rs) + "\n"
	}
	rep += goalsReport(model, threshold, sets.test, rs)
	rep += featureReport(model, threshold, sets.train)
	fmt.Print(rep)
	if debug {
		fmt.Print(debugReport(model, threshold, sets.test))
	}

	bin, err := model.MarshalBinary()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "model.bin"), bin, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "threshold.go"), thresholdSource(threshold, defaultConfig), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dataDir, "REPORT.txt"), []byte(rep), 0o644)
}

// check refuses settings that would not train what the flags say: a length
// penalty that would not mean what Score says, no epochs, or an attack weight
// of 0 or less.
func (c config) check() error {
	switch {
	case c.epochs < 1:
		return fmt.Errorf("-epochs %d: want 1 or more", c.epochs)
	case c.hijackWeight <= 0:
		return fmt.Errorf("-hijack-weight %g: want more than 0 (at 0 training ignores the hijacks, under 0 it learns them as benign)", c.hijackWeight)
	case c.taskWeight <= 0:
		return fmt.Errorf("-task-weight %g: want more than 0 (at 0 training ignores the injected tasks, under 0 it learns them as benign)", c.taskWeight)
	case c.lengthPenalty < 0:
		return fmt.Errorf("-length-penalty %g: want 0 (no penalty) or more; a negative one would raise long texts' scores", c.lengthPenalty)
	case c.freeWindows < 1:
		return fmt.Errorf("-free-windows %d: want 1 or more", c.freeWindows)
	case c.penaltyWindows < c.freeWindows:
		return fmt.Errorf("-penalty-windows %d: want at least -free-windows (%d)", c.penaltyWindows, c.freeWindows)
	}
	return nil
}

// thresholdSource is the Go file that declares the threshold and the length
// penalty.
func thresholdSource(t float64, cfg config) []byte {
	var b strings.Builder
	b.WriteString("// Code generated by go run ./sanitize/train; DO NOT EDIT.\n\npackage classifier\n\n")
	fmt.Fprintf(&b, `// Threshold is the score above which text is flagged: training scores the
// calibration split (%s of the data, by hash, never trained on) and takes the
// highest threshold that keeps %.2f of its direct hijacks, but never one that
// flags more than %.1f%% of its benign pages, news, emails or short excerpts.
// The held-out and leave-one-source-out figures are in data/REPORT.txt.
const Threshold = %.4f

// LengthPenalty, FreeWindows and PenaltyWindows are the embedded model's length
// penalty (see Score): a text read in W > FreeWindows windows has LengthPenalty ×
// ln(min(W, PenaltyWindows) / FreeWindows) taken off its best window's log-odds.
const (
	LengthPenalty  = %g
	FreeWindows    = %d
	PenaltyWindows = %d
)
`, calibShare, minHijackRecall, 100*calibFPR, t, cfg.lengthPenalty, cfg.freeWindows, cfg.penaltyWindows)
	return []byte(b.String())
}

// scoreFile scores every text of a data file with the model in modelPath (a model
// before this one, say), with the given length penalty (0 for a model from before
// it had one), and prints, for each source, how many texts there are and how many
// score at or over threshold.
func scoreFile(path, modelPath string, threshold float64, cfg config) error {
	exs, err := loadFile(path)
	if err != nil {
		return err
	}
	bin, err := os.ReadFile(modelPath)
	if err != nil {
		return err
	}
	m, err := classifier.ParseModel(bin)
	if err != nil {
		return err
	}
	m = m.WithLengthPenalty(cfg.lengthPenalty, cfg.freeWindows, cfg.penaltyWindows)
	names, n, hits := flaggedBySource(m, threshold, exs)
	fmt.Printf("%s scored with %s at %.4f\n  %-34s %6s %8s %8s\n", path, modelPath, threshold, "source", "n", "flagged", "share")
	for _, k := range names {
		fmt.Printf("  %-34s %6d %8d %8.3f\n", k, n[k], hits[k], float64(hits[k])/float64(n[k]))
	}
	if debug {
		// Each flagged text, with its best window and what carries it.
		for _, e := range exs {
			if sc := m.Score(e.Text); sc >= threshold {
				fmt.Printf("  %.4f %s %.200q\n%s", sc, e.Src, e.Text, explain(m, e.Text))
			}
		}
	}
	return nil
}
