package sanitize

// WrapToolOutput wraps the result of an outside tool (an MCP server's) in
// <tool_output source="SOURCE">...</tool_output>, with the same guarantees as
// WrapWebpage: the source is attribute-escaped and any wrapper tag inside content
// (tool_output, webpage_content or search_results, in any spelling) is neutralized,
// so the result is safe even when content was not sanitized.
func WrapToolOutput(source, content string) string {
	return `<` + toolOutputTag + ` source="` + escapeAttr(source) + `">` +
		neutralizeWrapperTags(content) + `</` + toolOutputTag + `>`
}
