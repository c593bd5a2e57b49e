package websearch

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestReadableWithin(t *testing.T) {
	article := "The council voted on Tuesday to close the old bridge to cars. Repairs will take two years and cost four million."
	related := " Related stories: a new park opens downtown, the library extends its hours, schools close for the holiday week, the market moves to the square."
	tests := []struct {
		name           string
		readable, text string
		want           bool
	}{
		{"same words, other spacing and markers", article, "- " + article, true},
		{"trafilatura holds a long tail readability lacks", article, article + related, true},
		{"readability holds a long tail trafilatura lacks", article + related, article, false},
		{"another block of the page", related, article, false},
		{"empty", article, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readableWithin(tt.readable, tt.text); got != tt.want {
				t.Errorf("readableWithin = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLinesAlsoIn(t *testing.T) {
	standfirst := "The old bridge over the river will close to cars next month after inspectors found its supports worn through, and the council has no money set aside for the repairs it needs."
	readable := "Share this story on Facebook, Twitter or by email\n\n" + standfirst + "\n\n# Bridge to close\n\nThe council voted on Tuesday to close the old bridge to cars.\n\nAdvertisement\n\n- Lanes close in May\n- Cars detour by the ring road\n\nRepairs will take two years.\n\nSign up for our newsletter to get the news first"
	// trafilatura's text: no share line, no standfirst, no sign-up box, one
	// word run into the next, and the list lost inside the article.
	kept := "# Bridge to close\n\nThe council voted on Tuesday to close the oldbridge to cars.\n\nRepairs will take two years."
	// The lines both hold, the list between them and the long standfirst just
	// before them; not the furniture at the edges, nor the one-word line inside.
	want := standfirst + "\n\n# Bridge to close\n\nThe council voted on Tuesday to close the old bridge to cars.\n\n- Lanes close in May\n- Cars detour by the ring road\n\nRepairs will take two years."
	if got := linesAlsoIn(readable, kept); got != want {
		t.Errorf("linesAlsoIn =\n%s\nwant\n%s", got, want)
	}
}

func TestPruneComments(t *testing.T) {
	page := `<html><body><article><p>The bridge closes in May.</p></article>
<div class="Article-Comments"><p>first!</p></div>
<section id="comments"><ol class="commentlist"><li>buy my pills</li></ol></section>
<div id="disqus_thread"><p>load comments</p></div>
<div class="sidebar"><p>Most read</p></div>
<div class="entry"><p>Posted by laurie</p><h2 id="comments">Comments</h2><div id="c1"><p>lovely hat</p></div><p class="posted">Posted by: Ellen</p></div>
<p>About this blog</p></body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	pruneComments(doc)
	var b strings.Builder
	if err := html.Render(&b, doc); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, gone := range []string{"first!", "buy my pills", "load comments", "lovely hat", "Posted by: Ellen"} {
		if strings.Contains(got, gone) {
			t.Errorf("comment text %q survived: %s", gone, got)
		}
	}
	for _, kept := range []string{"The bridge closes in May.", "Most read", "Posted by laurie", "About this blog"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q was pruned: %s", kept, got)
		}
	}
}

// FuzzLinesAlsoIn checks that linesAlsoIn only ever keeps lines of its text,
// in their order, whatever the two texts are.
func FuzzLinesAlsoIn(f *testing.F) {
	f.Add("a b c d e\n\nf g h\n\ni j k l m", "a b c d e i j k l m")
	f.Add("long line of words that runs on and on for more than twenty five words so that it counts as a standfirst before the article begins here now\nThe article begins here now and goes on", "The article begins here now and goes on")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, text, other string) {
		got := linesAlsoIn(text, other)
		lines := strings.Split(text, "\n")
		i := 0
		for _, line := range strings.Split(got, "\n") {
			if line == "" {
				continue
			}
			for i < len(lines) && lines[i] != line {
				i++
			}
			if i == len(lines) {
				t.Fatalf("linesAlsoIn(%q, %q) = %q: line %q is not one of the text's, in order", text, other, got, line)
			}
			i++
		}
	})
}
