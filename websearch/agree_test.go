package websearch

import "testing"

func TestSameArticle(t *testing.T) {
	article := "The council voted on Tuesday to close the old bridge to cars. Repairs will take two years and cost four million."
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"same words, other spacing and markers", article, "- " + article, true},
		{"one holds a long tail the other lacks", article, article + " Related stories: a new park opens downtown, the library extends its hours, schools close for the holiday week.", false},
		{"empty", article, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameArticle(tt.a, tt.b); got != tt.want {
				t.Errorf("sameArticle = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLinesAlsoIn(t *testing.T) {
	readable := "# Bridge to close\n\nThe council voted on Tuesday to close the old bridge to cars.\n\nShare this article on Facebook and Twitter now\n\nPhoto: the bridge\n\nRepairs will take two years."
	// trafilatura's text: no share line, no caption, and one word run into the next.
	kept := "# Bridge to close\n\nThe council voted on Tuesday to close the oldbridge to cars.\n\nRepairs will take two years."
	want := "# Bridge to close\n\nThe council voted on Tuesday to close the old bridge to cars.\n\nRepairs will take two years."
	if got := linesAlsoIn(readable, kept); got != want {
		t.Errorf("linesAlsoIn =\n%s\nwant\n%s", got, want)
	}
}
