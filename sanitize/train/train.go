package main

import (
	"math"
	"math/rand/v2"

	"github.com/ailab/ai-lab/sanitize/classifier"
)

// A config holds the training's hyperparameters.
type config struct {
	epochs int
	rate   float64 // AdaGrad's base learning rate
	l2     float64 // L2 penalty per update on the weights an instance touches
	seed   uint64
	// capTopics keeps the weights of topicFeatures at or under zero.
	capTopics bool
	// maxWeight, when positive, caps every weight at it: no single word, pair or
	// 4-gram can carry a window alone (a template's pet phrase, memorized).
	maxWeight float64
	// hijackWeight is the weight of a direct hijack (alone or inside a page)
	// against a jailbreak, which weighs 1 (an injected task weighs taskWeight).
	// The threshold is
	// held down by the direct hijacks (it is the highest that keeps minHijackRecall
	// of them), while the injected tasks are caught far above their goal. On
	// the data of an earlier round, with a task weighing 1 and a recall floor of
	// 0.84, weights 2, 3 and 4 gave thresholds of
	// 0.641, 0.661 and 0.666, and task injections in web text of 0.866, 0.838 and
	// 0.821 (held-out split).
	hijackWeight float64
	// taskWeight is the weight of an injected task (alone, in its carrier text
	// or embedded by training) against a jailbreak. Injected tasks are ordinary
	// requests ("write a short summary", "reply with", "can you recommend"), and
	// the more they weigh, the more a benign mail full of requests reads like
	// one: left out of training, own.go's request mails were flagged 8.7% at
	// weight 1, 5.9% at 0.5, 4.0% at 0.25, 1.7% at 0.1, 1.1% at 0.06, 0.9% at
	// 0.05 and 0.04 (0.6% to 1.3% over five seeds at 0.05, 0.6% to 1.0% at
	// 0.04) and 0.6% to 0.9% at 0.03, while held-out task injections in web
	// text fell from 0.748 to 0.674, 0.560, 0.383, 0.295, 0.273, 0.243 and 0.210
	// for the classifier alone (0.383 at 0.03 for the sanitizer as shipped, on
	// which the goal of 0.30 is judged). What the classifier learns of tasks
	// hardly carries to tasks written elsewhere: it flags 31 of PIArena's 1,700
	// at 0.5 and 8 at 0.03, against 692 for the patterns, and InjecAgent's 62 of
	// 124 at both. So 0.03: the tasks are the patterns' job, and the
	// classifier's is the take-over.
	taskWeight float64
	// lengthPenalty, freeWindows and penaltyWindows are the model's length
	// penalty (see classifier.Score): log-odds off a text's best window per
	// unit of ln(min(windows, penaltyWindows) / freeWindows). Training's
	// windows are not affected; the threshold and every figure of the report
	// are chosen and measured with it. Without it, 6 of 48 benign sources were
	// over 1% left out of training, four of them long pages; with it, 3 of 48.
	lengthPenalty  float64
	freeWindows    int
	penaltyWindows int
}

var defaultConfig = config{epochs: 12, rate: 0.3, l2: 1e-2, seed: 7, capTopics: true, hijackWeight: 3, taskWeight: 0.03,
	lengthPenalty: 0.3, freeWindows: 3, penaltyWindows: 64}

// An instance is one window to learn from.
type instance struct {
	feats  []uint32
	label  float64
	weight float64
}

// instances turns examples into windows with labels and weights. A benign text's
// windows are negatives. An attack's windows are positives that share one unit of
// weight, since not every window of a long jailbreak is the jailbreak. In a page
// with an embedded injection, the windows that hold most of the injection are
// positives, those that miss it negatives, and the rest (a sliver of the injection)
// are left out. A direct hijack weighs hijackWeight attacks and an injected task
// (alone, in its carrier text or embedded by training) taskWeight. Positives are
// then weighted to balance the negatives.
func instances(exs []example, hijackWeight, taskWeight float64) []instance {
	var out []instance
	var pos, neg float64
	for _, e := range exs {
		wins := classifier.Windows(e.Text)
		if len(wins) == 0 {
			continue
		}
		if e.Label == 0 {
			for _, w := range wins {
				out = append(out, instance{feats: w.Features, label: 0, weight: 1})
				neg++
			}
			continue
		}
		unit := 1.0
		switch e.Cat {
		case catHijack, catHijackWeb:
			unit = hijackWeight
		case catTask, catTaskEmbedded, catTaskWeb:
			unit = taskWeight
		}
		if e.injEnd == 0 {
			for _, w := range wins {
				out = append(out, instance{feats: w.Features, label: 1, weight: unit / float64(len(wins))})
			}
			pos += unit
			continue
		}
		var hits []classifier.Window
		for _, w := range wins {
			overlap := min(w.End, e.injEnd) - max(w.Start, e.injStart)
			switch {
			case overlap <= 0:
				out = append(out, instance{feats: w.Features, label: 0, weight: 1})
				neg++
			case 2*overlap >= min(e.injEnd-e.injStart, w.End-w.Start):
				hits = append(hits, w)
			}
		}
		for _, w := range hits {
			out = append(out, instance{feats: w.Features, label: 1, weight: unit / float64(len(hits))})
		}
		if len(hits) > 0 {
			pos += unit
		}
	}
	if pos > 0 {
		scale := neg / pos
		for i := range out {
			if out[i].label == 1 {
				out[i].weight *= scale
			}
		}
	}
	return out
}

// train fits logistic regression with AdaGrad on the examples' windows. A window's
// features each have the value classifier.Norm(count), as in classifier.Model.WindowLogit.
// It is deterministic: a fixed shuffle seed and one goroutine.
func train(exs []example, cfg config) *classifier.Model {
	data := instances(exs, cfg.hijackWeight, cfg.taskWeight)
	w := make([]float64, 1<<classifier.TableBits)
	capped := make([]bool, len(w))
	if cfg.capTopics {
		for f := range topicFeatures() {
			capped[f] = true
		}
	}
	g2 := make([]float64, len(w))
	var bias, biasG2 float64
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(cfg.seed, 0x5eed))
	for range cfg.epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			in := data[k]
			if len(in.feats) == 0 {
				continue
			}
			v := float64(classifier.Norm(len(in.feats)))
			z := bias
			for _, f := range in.feats {
				z += w[f] * v
			}
			p := 1 / (1 + math.Exp(-z))
			g := (p - in.label) * in.weight
			biasG2 += g * g
			bias -= cfg.rate * g / (math.Sqrt(biasG2) + 1e-8)
			gv := g * v
			for _, f := range in.feats {
				grad := gv + cfg.l2*w[f]
				g2[f] += grad * grad
				w[f] -= cfg.rate * grad / (math.Sqrt(g2[f]) + 1e-8)
				if capped[f] && w[f] > 0 {
					w[f] = 0
				}
				if cfg.maxWeight > 0 && w[f] > cfg.maxWeight {
					w[f] = cfg.maxWeight
				}
			}
		}
	}
	w32 := make([]float32, len(w))
	for i, x := range w {
		w32[i] = float32(x)
	}
	m, err := classifier.NewModel(float32(bias), w32)
	if err != nil {
		panic(err) // the table size is the classifier's own constant
	}
	return m.WithLengthPenalty(cfg.lengthPenalty, cfg.freeWindows, cfg.penaltyWindows)
}
