package main

// llmDocs reads the documentation of two tools that run or use language models,
// code blocks dropped: Ollama's (MIT), on running models, their parameters and
// their API, and Continue's (Apache-2.0), an AI coding assistant's guides to its
// chat, rules, prompts, models and MCP servers. It is prose about models, system
// prompts, instructions, context windows and assistants, the words of attacks:
// before it, 2 to 4% of such pages were flagged (Ollama's 2 of 61, Continue's 5
// of 137). Neither has a page that quotes an injection.
func llmDocs() []record {
	all := func(string) bool { return true }
	var recs []record
	recs = append(recs, docPages("ollama/ollama", "ollama-docs", "docs", all, 150)...)
	recs = append(recs, docPages("continuedev/continue", "continue-docs", "docs", all, 200)...)
	return recs
}
