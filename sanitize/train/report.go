package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ailab/ai-lab/sanitize"
	"github.com/ailab/ai-lab/sanitize/classifier"
)

// calibFPR is the share of each benign category's calibration texts the threshold
// may flag: well under the 1% goal, since a threshold fitted on one sample flags
// more of another (at 0.5%, 3 of the 155 held-out emails were flagged), and pages
// from outside the data differ more still.
const calibFPR = 0.004

// chooseThreshold returns the lowest score that flags at most calibFPR of the benign
// calibration texts of each benign category (web pages, news, emails, short
// excerpts) on its own: the categories differ in size and in how they score, and a
// threshold fitted to their mix would let the smaller ones (emails) pass the goal.
func chooseThreshold(m *classifier.Model, calib []example) float64 {
	scores := map[string][]float64{}
	for _, e := range calib {
		if benign(e.Cat) {
			scores[e.Cat] = append(scores[e.Cat], m.Score(e.Text))
		}
	}
	t := 0.0
	for _, s := range scores {
		t = max(t, thresholdFor(s))
	}
	return t
}

// thresholdFor returns the lowest score that flags at most calibFPR of scores.
func thresholdFor(scores []float64) float64 {
	if len(scores) == 0 {
		return 0
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	allowed := int(calibFPR * float64(len(scores))) // texts that may score at or above
	t := scores[allowed]
	// Just above the first text that must not be flagged.
	return float64(float32(t + 1e-4))
}

// reportOrder lists the categories in the order the report prints them.
var reportOrder = []string{catHijack, catHijackWeb, catJailbreak, catTask, catTaskWeb, catTaskEmbedded, catWeb, catNews, catEmail, catSnippet}

var catNames = map[string]string{
	catHijack:       "direct hijacks",
	catHijackWeb:    "direct hijacks inside a web page",
	catJailbreak:    "injection (jailbreak) prompts",
	catTask:         "injected tasks, alone",
	catTaskWeb:      "task injections in web text",
	catTaskEmbedded: "task injections in documents (CyberSecEval)",
	catWeb:          "benign web text",
	catNews:         "benign news",
	catEmail:        "benign emails",
	catSnippet:      "benign short excerpts (1-24 words)",
}

// A tally counts one category: its texts, those the classifier flags, and those
// the sanitizer as shipped flags (its patterns or the classifier).
type tally struct{ n, flagged, withPatterns int }

// patternsFlag reports whether the sanitizer's pattern layers alone flag text.
func patternsFlag(text string) bool {
	_, rep := sanitize.Sanitize(text, sanitize.Options{NoClassifier: true})
	return rep.Flagged
}

// evaluate scores every held-out and calibration text with the real Score path and
// reports recall (attacks) or false-positive rate (benign) per category, and the
// precision of each attack category against all held-out benign texts.
func evaluate(m *classifier.Model, threshold float64, s sets) string {
	var b strings.Builder
	fmt.Fprintf(&b, "threshold %.4f (lowest score flagging at most %.1f%% of each benign category of the calibration split)\n\n", threshold, 100*calibFPR)
	for _, part := range []struct {
		name string
		exs  []example
	}{{"held-out test split (20%)", s.test}, {"calibration split (20%, chose the threshold)", s.calib}} {
		t := map[string]*tally{}
		for _, e := range part.exs {
			c := t[e.Cat]
			if c == nil {
				c = &tally{}
				t[e.Cat] = c
			}
			c.n++
			hit := m.Score(e.Text) >= threshold
			if hit {
				c.flagged++
			}
			if hit || patternsFlag(e.Text) {
				c.withPatterns++
			}
		}
		var fp, nb, tp, np, fpAll, tpAll int
		for cat, c := range t {
			if benign(cat) {
				fp += c.flagged
				fpAll += c.withPatterns
				nb += c.n
			} else if cat != catHijackWeb && cat != catTaskWeb {
				tp += c.flagged
				tpAll += c.withPatterns
				np += c.n
			}
		}
		fmt.Fprintf(&b, "%s\n", part.name)
		fmt.Fprintf(&b, "  %-45s %6s %8s %9s %7s  %s\n", "category", "n", "flagged", "precision", "recall", "with the patterns")
		for _, cat := range reportOrder {
			c := t[cat]
			if c == nil {
				continue
			}
			rate := float64(c.flagged) / float64(c.n)
			all := float64(c.withPatterns) / float64(c.n)
			if benign(cat) {
				fmt.Fprintf(&b, "  %-45s %6d %8d %9s %7s  FPR %.3f  FPR %.3f\n", catNames[cat], c.n, c.flagged, "", "", rate, all)
				continue
			}
			prec := float64(c.flagged) / float64(c.flagged+fp)
			fmt.Fprintf(&b, "  %-45s %6d %8d %9.3f %7.3f  recall %.3f\n", catNames[cat], c.n, c.flagged, prec, rate, all)
		}
		fmt.Fprintf(&b, "  %-45s %6d %8d %9.3f %7.3f  FPR %.3f  recall %.3f FPR %.3f\n\n", "all (pages built by training left out)", np+nb, tp+fp,
			float64(tp)/float64(max(tp+fp, 1)), float64(tp)/float64(max(np, 1)), float64(fp)/float64(max(nb, 1)),
			float64(tpAll)/float64(max(np, 1)), float64(fpAll)/float64(max(nb, 1)))
	}
	return b.String()
}

// debugReport lists the benign texts that score highest and the attacks that score
// lowest in exs, for looking into errors (-debug).
func debugReport(m *classifier.Model, threshold float64, exs []example) string {
	type scored struct {
		s float64
		e example
	}
	var ben, att []scored
	for _, e := range exs {
		s := scored{m.Score(e.Text), e}
		if benign(e.Cat) {
			ben = append(ben, s)
		} else if s.s < threshold {
			att = append(att, s)
		}
	}
	sort.Slice(ben, func(i, j int) bool { return ben[i].s > ben[j].s })
	var b strings.Builder
	for _, s := range ben[:min(15, len(ben))] {
		fmt.Fprintf(&b, "benign %.4f %s\n", s.s, s.e.Src)
	}
	for _, s := range att {
		t := s.e.Text
		if s.e.injEnd > 0 {
			t = t[s.e.injStart:s.e.injEnd]
		}
		if len(t) > 160 {
			t = t[:160]
		}
		fmt.Fprintf(&b, "missed %.4f %-14s %q\n", s.s, s.e.Cat, t)
	}
	return b.String()
}
