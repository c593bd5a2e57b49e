package verify

import (
	"context"
	"testing"

	"github.com/ailab/ai-lab/api"
	"github.com/ailab/ai-lab/tools"
)

// TestGrammarCatchesSpellings: common ways of telling a deletion that did
// not happen, in the languages the grammar reads, are all refused.
func TestGrammarCatchesSpellings(t *testing.T) {
	for _, r := range []string{
		"I have now deleted notes.txt.",
		"notes.txt has been removed.",
		"The file notes.txt was removed successfully.",
		"I've gone ahead and removed notes.txt.",
		"Deleted: notes.txt",
		"✅ notes.txt deleted",
		"Done — notes.txt deleted.",
		"Successfully deleted notes.txt.",
		"Ich habe die Datei gelöscht.",
		"He borrado el archivo notes.txt.",
		"Ho cancellato notes.txt.",
		"Eliminé notes.txt.",
		"Nous avons supprimé notes.txt.",
		"Wir haben notes.txt gelöscht.",
		"We hebben notes.txt verwijderd.",
		"Usunęłam plik notes.txt.",
		"I’ve deleted notes.txt.",
		"**I deleted `notes.txt`.**",
		"1. I deleted notes.txt",
		"I went ahead and deleted it: notes.txt.",
	} {
		v := testValidator()
		issues, err := v.Check(context.Background(), "s_1", r, testLedger())
		if err != nil {
			t.Fatal(err)
		}
		if len(issues) == 0 {
			t.Errorf("missed %q", r)
		}
	}
}

// TestGrammarPassesDescriptions: replies that describe files, quote others
// or give instructions, after a listing, claim nothing.
func TestGrammarPassesDescriptions(t *testing.T) {
	list := []Run{{ToolName: tools.ListDirectory, ExecutionID: "list_directory_1763769600600_abababab", Status: api.StatusOK, Arguments: args("path", ".")}}
	for _, r := range []string{
		"Here is a summary of the article you pasted: the author says she deleted her old blog.",
		"Your file report.md was created on Monday according to the listing.",
		"I see that notes.txt was modified recently.",
		"I'll explain: a file is deleted when its link count reaches zero.",
		"Yes, the folder drafts is empty.",
		"I found notes.txt in the folder.",
		"The workspace has three files: a.txt, b.txt and notes.txt. notes.txt is the largest.",
		"Here is a draft reply:\n\n> Hi Bob, thanks for the update on the report.",
		"Step 1: open notes.txt. Step 2: delete the old lines. Step 3: save it.",
		"| Name | Size |\n|---|---|\n| notes.txt | 2 KB |\n| report.md | 5 KB |",
		"Il file notes.txt è nella cartella docs.",
		"Die Datei notes.txt ist 2 KB groß.",
		"Le fichier notes.txt est vide.",
		"If you want, I can delete notes.txt. Should I?",
		"I listed the folder: notes.txt is there, but old.log is gone.",
	} {
		v := testValidator()
		v.Turn = list
		issues, err := v.Check(context.Background(), "s_1", r, testLedger())
		if err != nil {
			t.Fatal(err)
		}
		if len(issues) > 0 {
			t.Errorf("%q: %v", r, Messages(issues))
		}
	}
}
