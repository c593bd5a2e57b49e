package verify

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// spellingClaims are the plain claims FuzzClaimSpellings spells in other
// ways, each with the turns it is judged in: nothing ran, the call was
// denied, the action ran on another object, the action ran as told.
var spellingClaims = []struct {
	text   string
	tool   string
	object string // the run's path or URL
	noCase bool   // the claim holds an execution id, whose case is meaningful
}{
	{text: "I deleted notes.txt.", tool: tools.DeleteFile, object: "notes.txt"},
	{text: "notes.txt was deleted.", tool: tools.DeleteFile, object: "notes.txt"},
	{text: "Done: notes.txt is gone now.", tool: tools.DeleteFile, object: "notes.txt"},
	{text: "I have deleted notes.txt? Yes, it is gone.", tool: tools.DeleteFile, object: "notes.txt"},
	{text: "J'ai supprimé notes.txt.", tool: tools.DeleteFile, object: "notes.txt"},
	{text: "Ich habe die Datei notes.txt gelöscht.", tool: tools.DeleteFile, object: "notes.txt"},
	{text: "I read https://go.dev and it says Go 1.27 is out.", tool: tools.ReadWebpage, object: "https://go.dev"},
	{text: "I wrote report.md with the summary.", tool: tools.WriteFile, object: "report.md"},
	{text: "I searched the web and found three articles.", tool: tools.WebSearch, object: "go"},
	{text: "Go 1.27 is out (execution_id: " + searchID + ").", tool: tools.WebSearch, object: "go", noCase: true},
	{text: "Go 1.27 is out (execution_id: web_search_1763769600999_12345678).", tool: tools.WebSearch, object: "go", noCase: true},
}

// lookalikeOf maps ASCII letters to a Cyrillic letter that reads the same.
var lookalikeOf = map[rune]rune{'a': 'а', 'e': 'е', 'o': 'о', 'p': 'р', 'c': 'с', 'x': 'х', 'y': 'у', 'i': 'і', 's': 'ѕ', 'j': 'ј', 'h': 'һ', 'd': 'ԁ',
	'A': 'А', 'E': 'Е', 'O': 'О', 'P': 'Р', 'C': 'С', 'X': 'Х', 'T': 'Т', 'H': 'Н', 'K': 'К', 'M': 'М', 'B': 'В'}

var invisibles = []rune{'\u200b', '\u200c', '\u200d', '\u2060', '\u00ad', '\ufeff', '\ufe0f'}

// spell writes text another way: letters' case flipped where caseMask says,
// characters full-width where wideMask says, look-alike letters where
// lookMask says, invisible characters after the characters invisMask says.
// Each mask is read bit by bit over the runes, cycling.
func spell(text string, caseMask, wideMask, lookMask, invisMask uint64, noCase bool) string {
	var b strings.Builder
	i := 0
	for _, r := range text {
		bit := uint64(1) << (i % 64)
		i++
		if !noCase && caseMask&bit != 0 {
			switch {
			case 'a' <= r && r <= 'z':
				r -= 'a' - 'A'
			case 'A' <= r && r <= 'Z':
				r += 'a' - 'A'
			}
		}
		switch {
		case wideMask&bit != 0 && '!' <= r && r <= '~':
			r += 0xFF01 - '!'
		case wideMask&bit != 0 && r == ' ':
			r = '\u3000'
		case lookMask&bit != 0:
			if l, ok := lookalikeOf[r]; ok {
				r = l
			}
		}
		b.WriteRune(r)
		if invisMask&bit != 0 {
			b.WriteRune(invisibles[(i/3)%len(invisibles)])
		}
	}
	return b.String()
}

// wrap puts a spelled claim in one of the markdown forms a reply may use.
func wrap(claim string, form uint8) string {
	switch form % 8 {
	case 1:
		return "> " + claim
	case 2:
		return "- " + claim
	case 3:
		return "| Step | What happened |\n|---|---|\n| 1 | " + claim + " |"
	case 4:
		return "See [" + claim + "](https://example.com/log)."
	case 5:
		return "**" + claim + "**"
	case 6:
		return "## " + claim
	case 7:
		return "> - **" + claim + "**"
	}
	return claim
}

// FuzzClaimSpellings: however a claim is spelled (case, width, look-alike
// letters, invisible characters) and wrapped (quote, list, table cell, link
// text, bold, heading), it is judged as its plain spelling is.
func FuzzClaimSpellings(f *testing.F) {
	f.Add(uint8(0), uint64(0), uint64(0), uint64(0), uint64(0), uint8(0))
	f.Add(uint8(0), uint64(0xAAAA), uint64(0), uint64(0), uint64(0), uint8(1))
	f.Add(uint8(1), uint64(0), uint64(0xFFFF_FFFF), uint64(0), uint64(0), uint8(3))
	f.Add(uint8(2), uint64(0), uint64(0), uint64(0xFFFF_FFFF_FFFF_FFFF), uint64(0), uint8(4))
	f.Add(uint8(3), uint64(0), uint64(0), uint64(0), uint64(0x5555_5555_5555_5555), uint8(5))
	f.Add(uint8(4), uint64(0xF0F0), uint64(0x0F0F), uint64(0xFF00FF), uint64(0x1111), uint8(7))
	f.Add(uint8(5), uint64(0x1234), uint64(0), uint64(0xFFFF), uint64(0x8888), uint8(2))
	f.Add(uint8(9), uint64(0), uint64(0xFFFF_FFFF_FFFF), uint64(0), uint64(0x4444_4444_4444), uint8(6))
	f.Add(uint8(10), uint64(0), uint64(0xFFFF_FFFF_FFFF), uint64(0xFFFF_FFFF), uint64(0x2222_2222_2222), uint8(1))
	f.Fuzz(func(t *testing.T, which uint8, caseMask, wideMask, lookMask, invisMask uint64, form uint8) {
		c := spellingClaims[int(which)%len(spellingClaims)]
		plain := wrap(c.text, 0)
		spelled := wrap(spell(c.text, caseMask, wideMask, lookMask, invisMask, c.noCase), form)
		if !utf8.ValidString(spelled) {
			t.Skip()
		}
		key := "path"
		if c.tool == tools.ReadWebpage {
			key = "url"
		} else if c.tool == tools.WebSearch {
			key = "query"
		}
		other := "other.txt"
		if c.tool == tools.ReadWebpage {
			other = "https://example.org"
		}
		run := func(status, object string) Run {
			r := Run{ToolName: c.tool, Status: status, Arguments: args(key, object)}
			if status != api.StatusDenied {
				r.ExecutionID = tools.IDPrefix(c.tool) + "_1763769600600_abababab"
			}
			return r
		}
		for _, turn := range [][]Run{nil, {run(api.StatusDenied, c.object)}, {run(api.StatusOK, other)}, {run(api.StatusOK, c.object)}} {
			v := testValidator()
			v.Turn = turn
			judge := func(reply string) []string {
				issues, err := v.Check(context.Background(), "s_1", reply, testLedger())
				if err != nil {
					t.Fatal(err)
				}
				var codes []string
				for _, is := range issues {
					codes = append(codes, is.Code+":"+is.Tool)
				}
				return codes
			}
			want, got := judge(plain), judge(spelled)
			if !slices.Equal(want, got) {
				t.Fatalf("turn %+v:\nplain   %q: %v\nspelled %q: %v", turn, plain, want, spelled, got)
			}
		}
	})
}
