package verify

import (
	"slices"
	"testing"

	"github.com/ailab/ai-lab/tools"
)

func TestAnnouncements(t *testing.T) {
	cases := []struct {
		name  string
		reply string
		want  []string // announced tools, in order
	}{
		{"explicit tool name", "I'll check this using the web_search tool.", []string{tools.WebSearch}},
		{"search the web", "Let me search the web for the latest Go release…", []string{tools.WebSearch}},
		{"read that page", "I will read that page and summarize it.", []string{tools.ReadWebpage}},
		{"read a URL", "Now let me read https://go.dev/doc/go1.26 for details.", []string{tools.ReadWebpage}},
		{"write the file", "I'm going to write the file notes.txt with your list…", []string{tools.WriteFile}},
		{"look that up online", "Good question! Let me look that up online.", []string{tools.WebSearch}},
		{"curly apostrophe", "I’ll quickly search the web for it", []string{tools.WebSearch}},
		{"gerund after start by", "I'll start by searching the internet.", []string{tools.WebSearch}},
		{"read the file", "Let me read the file plan.md first.", []string{tools.ReadFile}},
		{"create a folder", "I am going to create a folder named reports.", []string{tools.CreateDirectory}},
		{"delete it", "Sure. I'll delete it now.", []string{tools.DeleteFile}},
		{"list the workspace", "Let me list the files in the workspace.", []string{tools.ListDirectory}},
		{"move a file", "I will move draft.txt to archive/.", []string{tools.MoveFile}},
		{"copy a file", "Let's copy the file to backup.txt.", []string{tools.CopyFile}},
		{"URL with a query", "Let me read https://example.com/?q=go now.", []string{tools.ReadWebpage}},
		{"call by name", "I will call read_webpage on that link.", []string{tools.ReadWebpage}},
		{"do a web search", "I'll do a quick web search for that.", []string{tools.WebSearch}},
		{"run a search", "Let me run a search on the internet.", []string{tools.WebSearch}},
		{"perform a search online", "I will perform a search online for recent news.", []string{tools.WebSearch}},
		{"use the search tool", "I'll use the search tool.", []string{tools.WebSearch}},
		{"take a look at the page", "Let me take a look at that page.", []string{tools.ReadWebpage}},
		{"get the contents", "I'll get the contents of notes.txt.", []string{tools.ReadFile}},
		{"two tools, each once", "Let me search the web. Then I'll read the page. Let me search again.", []string{tools.WebSearch, tools.ReadWebpage}},

		// Searching names the web tool only with the web as its object; these
		// three were announcements of web_search before that rule.
		{"look that up, nothing says where", "Good question! Let me look that up.", nil},
		{"search for something, nothing says where", "I’ll quickly search for it", nil},
		{"perform a search, nothing says where", "I will perform a search for recent news.", nil},

		{"past tense search", "I searched the web and found three articles (" + searchID + ").", nil},
		{"past tense read", "I read the page and found that Go 1.26 adds new features.", nil},
		{"advice to the user", "You can search the web for more.", nil},
		{"let me know", "Let me know if you want me to search the web for more.", nil},
		{"offer with if", "If you like, I'll read the full article.", nil},
		{"question", "Shall I search the web for newer results?", nil},
		{"promise that waits for the user", "I will search the web only when you allow it.", nil},
		{"promise that waits for approval", "With your approval I'll delete notes.txt.", nil},
		{"promise after the user acts", "Once you confirm, I'll read the page.", nil},
		{"question without offer words", "Do I need to read the file again?", nil},
		{"negation", "I will not search the web for this.", nil},
		{"summary verb", "I'll summarize what the web_search results (" + searchID + ") say.", nil},
		{"move on", "Let me move on to the next point.", nil},
		{"explain the file", "Let me explain what the file contains.", nil},
		{"light verb without a search", "I'll do my best. Let me make a note of that. I'll run the numbers again.", nil},
		{"a look at nothing a tool reads", "Let me have a look. I'll take a look at your code below.", nil},
		{"get back", "I'll get back to you with more details.", nil},
		{"unregistered tool", "I'll use run_speed_test to measure it.", nil},
		{"tool name without use verb", "I'll summarize web_search output below.", nil},
		{"file content in a code block", "plan.txt holds:\n\n  ```\n  I'll search the web for cats tomorrow.\n  ```\nThat is all.", nil},
		{"unclosed code block", "The script:\n~~~sh\n# Let me read the file notes.txt\ncat notes.txt", nil},
		{"page excerpt in a quote", "The page says:\n\n> Let me search the web for you.\n> I will read that page.", nil},
		{"search result title in a link", "Found:\n1. [Let me search the web for you](https://example.com) - a page.", nil},
		{"announcement beside a link still counts", "See [the docs](https://go.dev). Let me read that page next.", []string{tools.ReadWebpage}},
		{"announcement after a code block still counts", "```\nx := 1\n```\nNow let me search the web for the rest.", []string{tools.WebSearch}},
		{"announcement before a quote still counts", "I'll read the page https://go.dev now.\n> quoted", []string{tools.ReadWebpage}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, is := range Announcements(tc.reply, tools.Names) {
				if is.Code != CodeAnnouncedNotCalled {
					t.Errorf("code = %q", is.Code)
				}
				got = append(got, is.Tool)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Announcements(%q) = %v, want %v", tc.reply, got, tc.want)
			}
		})
	}
}

func TestAnnouncementsOnlyRegisteredTools(t *testing.T) {
	if got := Announcements("Let me search the web for it.", []string{tools.ReadFile}); len(got) != 0 {
		t.Fatalf("announcement of an unregistered tool reported: %+v", got)
	}
}
