package agent

import "github.com/meith-dev/meith/backend/protocol"

// This file's bodies are written by the prompt's owner; the signatures are
// the contract the service uses.

// PromptContext is what the system prompt tells the agent about where it
// works. Every list is already bounded by the service.
type PromptContext struct {
	Cwd       string
	SpaceName string
	// RepoRoot is the git repository root that holds Cwd, "" outside one.
	RepoRoot    string
	BrowserTabs []PromptTab
	DevServers  []PromptDevServer
	Terminals   []PromptTerminal
	Git         *PromptGit
	// Instructions are AGENTS.md, CLAUDE.md, .cursorrules and
	// .github/copilot-instructions.md files from the repo root down to Cwd.
	Instructions []InstructionFile
	AutoAccept   bool
}

// PromptTab is an open browser tab of the space.
type PromptTab struct {
	ID, Title, URL string
	Active         bool
	// ConsoleErrors are the tab's last (up to 3) console errors.
	ConsoleErrors []string
}

// PromptDevServer is a running dev server for the session's folder.
type PromptDevServer struct {
	ID, Name, Command, Status, URL string
}

// PromptTerminal is a terminal of the session's folder.
type PromptTerminal struct {
	ID, Cwd, Status string
}

// PromptGit is the git summary: branch, clean or not, and up to 12
// `status --short` lines.
type PromptGit struct {
	Branch string
	Clean  bool
	Lines  []string
}

// InstructionFile is one instruction file, its content capped at 24,000
// bytes.
type InstructionFile struct {
	Path    string // relative to the repo root (or cwd outside a repo)
	Content string
}

// BuildSystemPrompt returns the system prompt: the static "How you act"
// rules, the live tool catalog (sorted, "- `name` — description _[caps]_")
// before "## Tool call contract", then the context and "Safety &
// permissions" sections, and the precedence section.
func BuildSystemPrompt(tools []protocol.ToolDescriptor, pc PromptContext) string {
	return buildSystemPrompt(tools, pc)
}

// FormatPrompt is the text sent as the ACP prompt: "Host system instructions
// from Meith…", the system prompt, "Conversation so far:" with
// "ROLE: content [tool calls: name (status)]" lines for history (bounded to
// the last 20 messages and 20,000 characters), then "Current user request:"
// and request.
func FormatPrompt(system string, history []Message, request string) string {
	return formatPrompt(system, history, request)
}

// FindInstructionFiles returns the instruction files found from repoRoot
// down to cwd (both included; cwd alone when repoRoot is ""), outermost
// first, each capped at 24,000 bytes.
func FindInstructionFiles(repoRoot, cwd string) []InstructionFile {
	return findInstructionFiles(repoRoot, cwd)
}

// AutoTitle derives a session title from the first prompt: at most 3 words
// and 28 characters, stop-words dropped, title-cased ("Fix login crash" →
// "Login Crash"); DefaultTitle when nothing is left.
func AutoTitle(prompt string) string { return autoTitle(prompt) }
