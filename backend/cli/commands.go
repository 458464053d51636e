package cli

// Command maps a kebab-case CLI command onto a runtime tool. The table is
// data: adding a command is adding a row, and a command whose tool the
// runtime does not register yet answers with the runtime's UNKNOWN_TOOL.
type Command struct {
	// Name is the kebab-case command ("open-project").
	Name string
	// Tool is the snake_case runtime tool it calls ("project_open").
	Tool string
	// Slots name the positional parameters, in order.
	Slots []string
	// Summary is the one-line help.
	Summary string
	// Group is the help section.
	Group string
	// ArrayKeys are parameters that are always sent as arrays.
	ArrayKeys []string
	// PrintPath prints only content.path on success (screenshots, reports).
	PrintPath bool
	// PrintContent prints only content.content, as it is (a file's text),
	// and a note on stderr when it was truncated.
	PrintContent bool
	// StdinText is the parameter --stdin fills with standard input as raw
	// text (a file's content) instead of a JSON object of parameters.
	StdinText string
	// Confirm is the boolean parameter of a destructive command that is sent
	// true only with --yes; without it the command says what it would do,
	// and how to confirm, and calls nothing.
	Confirm string
}

// The help sections, in display order.
const (
	groupBrowser  = "Browser"
	groupApp      = "App"
	groupSpaces   = "Spaces and workspace tabs"
	groupProjects = "Projects"
	groupFiles    = "Files and git"
	groupProcess  = "Terminals, processes and dev servers"
	groupSettings = "Settings, storage and plugins"
)

var groupOrder = []string{groupBrowser, groupApp, groupSpaces, groupProjects, groupFiles, groupProcess, groupSettings}

// commandTable is the original's src/commands.ts (reference §5.4), in its order.
var commandTable = []Command{
	// Browser: tabs and navigation.
	{Name: "tabs", Tool: "get_tabs", Summary: "List browser and workspace tabs", Group: groupBrowser},
	{Name: "open", Tool: "open_browser_tab", Slots: []string{"url"}, Summary: "Open a new browser tab at <url>", Group: groupBrowser},
	{Name: "active-tab", Tool: "get_active_tab", Summary: "Show the active browser tab", Group: groupBrowser},
	{Name: "navigate", Tool: "navigate", Slots: []string{"tabId", "url"}, Summary: "Navigate <tabId> to <url>", Group: groupBrowser},
	{Name: "back", Tool: "go_back", Slots: []string{"tabId"}, Summary: "Go back in <tabId>'s history", Group: groupBrowser},
	{Name: "forward", Tool: "go_forward", Slots: []string{"tabId"}, Summary: "Go forward in <tabId>'s history", Group: groupBrowser},
	{Name: "refresh", Tool: "refresh", Slots: []string{"tabId"}, Summary: "Reload <tabId>", Group: groupBrowser},
	{Name: "focus", Tool: "focus_browser_tab", Slots: []string{"tabId"}, Summary: "Focus <tabId>", Group: groupBrowser},
	{Name: "close", Tool: "close_browser_tab", Slots: []string{"tabId"}, Summary: "Close <tabId>", Group: groupBrowser},
	// Browser: automation.
	{Name: "browser-claim", Tool: "browser_use_start", Slots: []string{"tabId"}, Summary: "Claim automation control of <tabId>", Group: groupBrowser},
	{Name: "browser-release", Tool: "browser_use_end", Slots: []string{"tabId"}, Summary: "Release automation control of <tabId>", Group: groupBrowser},
	{Name: "browser-state", Tool: "get_browser_state", Slots: []string{"tabId"}, Summary: "List the interactable elements of <tabId>", Group: groupBrowser},
	{Name: "click", Tool: "click_element", Slots: []string{"tabId", "elementId"}, Summary: "Click an element of <tabId> by browser-state id", Group: groupBrowser},
	{Name: "type", Tool: "type_text", Slots: []string{"tabId", "elementId", "text"}, Summary: "Type text into an element of <tabId>", Group: groupBrowser},
	{Name: "scroll", Tool: "scroll_page", Slots: []string{"tabId"}, Summary: "Scroll <tabId> (--deltaY/--deltaX or --toY/--toX)", Group: groupBrowser},
	{Name: "keys", Tool: "send_keys", Slots: []string{"tabId", "keys"}, Summary: "Send keyboard input to <tabId>", Group: groupBrowser},
	{Name: "cdp", Tool: "cdp_command", Slots: []string{"tabId", "method"}, Summary: "Run a DevTools Protocol command (--params-json)", Group: groupBrowser},
	// Browser: diagnostics.
	{Name: "console", Tool: "get_console_logs", Slots: []string{"tabId"}, Summary: "Print the console logs of <tabId>", Group: groupBrowser},
	{Name: "network", Tool: "get_network_logs", Slots: []string{"tabId"}, Summary: "Print the network log of <tabId>", Group: groupBrowser},
	{Name: "screenshot", Tool: "take_screenshot", Slots: []string{"tabId"}, Summary: "Screenshot <tabId> (prints the PNG path)", Group: groupBrowser, PrintPath: true},

	// App.
	{Name: "state", Tool: "app_get_state", Summary: "Print the persistent app state", Group: groupApp},
	{Name: "logs", Tool: "app_get_logs", Summary: "Print recent app log entries (--limit N --level L --search S)", Group: groupApp},
	{Name: "health", Tool: "app_health", Summary: "Print runtime health", Group: groupApp},
	{Name: "instances", Tool: "app_list_instances", Summary: "List runtime instances, as the runtime sees them", Group: groupApp},
	{Name: "bug-report", Tool: "app_export_bug_report", Summary: "Export a bug report (prints its path)", Group: groupApp, PrintPath: true},
	{Name: "app-screenshot", Tool: "app_screenshot", Summary: "Screenshot the app window (prints the PNG path)", Group: groupApp, PrintPath: true},
	{Name: "debug-mode", Tool: "app_set_debug_mode", Slots: []string{"enabled"}, Summary: "Turn runtime debug mode on or off", Group: groupApp},

	// Spaces.
	{Name: "spaces", Tool: "list_spaces", Summary: "List spaces and the active space", Group: groupSpaces},
	{Name: "create-space", Tool: "create_space", Slots: []string{"name"}, Summary: "Create a space and switch to it", Group: groupSpaces},
	{Name: "update-space", Tool: "update_space", Slots: []string{"spaceId"}, Summary: "Rename or recolor a space (--name/--color)", Group: groupSpaces},
	{Name: "switch-space", Tool: "switch_space", Slots: []string{"spaceId"}, Summary: "Switch the active space", Group: groupSpaces},
	{Name: "close-space", Tool: "close_space", Slots: []string{"spaceId"}, Summary: "Close a space and its tabs", Group: groupSpaces},
	// Workspace tabs.
	{Name: "open-workspace-tab", Tool: "open_workspace_tab", Slots: []string{"title", "cwd"}, Summary: "Open an editor, terminal, agent, preview or git tab", Group: groupSpaces},
	{Name: "set-tab-terminal", Tool: "set_workspace_tab_terminal", Slots: []string{"tabId", "terminalId"}, Summary: "Attach a terminal session to a workspace tab", Group: groupSpaces},
	{Name: "set-tab-file", Tool: "set_workspace_tab_file", Slots: []string{"tabId"}, Summary: "Set an editor tab's files (--openFilePaths, repeatable)", Group: groupSpaces, ArrayKeys: []string{"openFilePaths"}},
	{Name: "focus-workspace-tab", Tool: "focus_workspace_tab", Slots: []string{"tabId"}, Summary: "Focus a workspace tab", Group: groupSpaces},
	{Name: "close-workspace-tab", Tool: "close_workspace_tab", Slots: []string{"tabId"}, Summary: "Close a workspace tab", Group: groupSpaces},

	// Projects: inspect and open.
	{Name: "projects", Tool: "project_list", Summary: "List known projects", Group: groupProjects},
	{Name: "detect-project", Tool: "project_detect", Slots: []string{"cwd"}, Summary: "Detect the project in a directory", Group: groupProjects},
	{Name: "open-project", Tool: "project_open", Slots: []string{"cwd"}, Summary: "Open a project folder in its own space", Group: groupProjects},
	{Name: "setup-detect", Tool: "project_setup_detect", Slots: []string{"cwd"}, Summary: "Detect a project and what setting it up needs (env files, workspaces, notes)", Group: groupProjects},
	// Projects: run.
	{Name: "start-project", Tool: "project_start_dev_server", Slots: []string{"projectId"}, Summary: "Start a project's dev server", Group: groupProjects},
	{Name: "stop-project", Tool: "project_stop_dev_server", Slots: []string{"projectId"}, Summary: "Stop a project's dev servers", Group: groupProjects},
	{Name: "run-project", Tool: "project_run", Slots: []string{"projectId"}, Summary: "Run a project's run command", Group: groupProjects},
	{Name: "set-run-config", Tool: "project_set_run_config", Slots: []string{"projectId"}, Summary: "Replace a project's run config (--runConfig-json)", Group: groupProjects},
	{Name: "retry-project", Tool: "project_retry_dev_server", Slots: []string{"projectId"}, Summary: "Restart a project's failed dev server and show its last log lines", Group: groupProjects},
	// Projects: generate.
	{Name: "templates", Tool: "project_list_templates", Summary: "List project templates", Group: groupProjects},
	{Name: "create-project", Tool: "project_create", Slots: []string{"template"}, Summary: "Create a project from a template", Group: groupProjects},
	{Name: "create-plugin-project", Tool: "project_create_plugin", Slots: []string{"name"}, Summary: "Create a plugin project", Group: groupProjects},
	{Name: "prewarm", Tool: "project_prewarm", Summary: "Prewarm generated app projects (--count N)", Group: groupProjects},
	{Name: "prewarm-status", Tool: "project_prewarm_status", Summary: "Show the prewarmed project buffer", Group: groupProjects},
	{Name: "allocate", Tool: "project_allocate", Slots: []string{"name"}, Summary: "Take a ready generated project and open it", Group: groupProjects},

	// Files and git.
	{Name: "read", Tool: "workspace_read_file", Slots: []string{"cwd", "path"}, Summary: "Print a workspace text file (--json: with its size, mtime and mode)", Group: groupFiles, PrintContent: true},
	{Name: "write", Tool: "workspace_write_file", Slots: []string{"cwd", "path", "content"}, Summary: "Write a workspace text file (--stdin: the content from standard input)", Group: groupFiles, StdinText: "content"},
	{Name: "patch", Tool: "workspace_apply_patch", Slots: []string{"cwd", "path"}, Summary: "Apply range edits to a file (--edits-json)", Group: groupFiles},
	{Name: "undo", Tool: "workspace_undo", Slots: []string{"cwd", "path"}, Summary: "Undo the last write, patch, mv or rm of a path", Group: groupFiles},
	{Name: "files", Tool: "workspace_list_files", Slots: []string{"cwd"}, Summary: "List workspace files", Group: groupFiles},
	{Name: "search", Tool: "workspace_search", Slots: []string{"cwd", "query"}, Summary: "Search workspace file contents", Group: groupFiles},
	{Name: "diagnostics", Tool: "get_diagnostics", Slots: []string{"cwd", "path"}, Summary: "Diagnostics for a file or workspace", Group: groupFiles},
	{Name: "mv", Tool: "workspace_rename_path", Slots: []string{"cwd", "path", "newPath"}, Summary: "Rename or move a workspace file or folder (--overwrite replaces newPath)", Group: groupFiles},
	{Name: "rm", Tool: "workspace_delete_path", Slots: []string{"cwd", "path"}, Summary: "Move a workspace file or folder to meith's trash (--yes to confirm; undo restores it)", Group: groupFiles, Confirm: "confirm"},
	{Name: "mkdir", Tool: "workspace_make_dir", Slots: []string{"cwd", "path"}, Summary: "Create a workspace folder and its parents", Group: groupFiles},
	{Name: "diff", Tool: "git_diff", Slots: []string{"cwd"}, Summary: "Summarize the git working-tree diff", Group: groupFiles},
	// Git (beyond the original's map; cwd defaults to the current directory).
	{Name: "status", Tool: "git_status", Slots: []string{"cwd"}, Summary: "Show the git status: branch, ahead/behind, staged, unstaged, untracked", Group: groupFiles},
	{Name: "stage", Tool: "git_stage", Slots: []string{"paths..."}, Summary: "Stage files (or --patch-json / --stdin with a patch)", Group: groupFiles, ArrayKeys: []string{"paths"}},
	{Name: "unstage", Tool: "git_unstage", Slots: []string{"paths..."}, Summary: "Unstage files (or a patch)", Group: groupFiles, ArrayKeys: []string{"paths"}},
	{Name: "restore", Tool: "git_restore", Slots: []string{"paths..."}, Summary: "Discard changes of files (--target worktree|staged|both --confirm)", Group: groupFiles, ArrayKeys: []string{"paths"}},
	{Name: "commit", Tool: "git_commit", Slots: []string{"message"}, Summary: "Commit the staged changes with <message>", Group: groupFiles},
	{Name: "branch", Tool: "git_branch", Slots: []string{"action", "name"}, Summary: "List, create or switch branches: branch [list|create|switch] [name]", Group: groupFiles},
	{Name: "worktree", Tool: "git_worktree", Slots: []string{"action", "path"}, Summary: "List, create or remove worktrees: worktree [list|create|remove] [path]", Group: groupFiles},
	{Name: "log", Tool: "git_log", Slots: []string{"path"}, Summary: "Show recent commits (--limit N --skip N --ref REV --grep TEXT --author TEXT), optionally of one path", Group: groupFiles},
	{Name: "show", Tool: "git_show", Slots: []string{"rev", "path"}, Summary: "Show a commit: message, author, files with counts and its patch (as git show --diff-merges=first-parent), optionally of one path", Group: groupFiles},
	{Name: "blame", Tool: "git_blame", Slots: []string{"path"}, Summary: "Show who last changed each line of <path> (--startLine/--endLine)", Group: groupFiles},
	{Name: "checkpoint create", Tool: "git_checkpoint_create", Slots: []string{"label"}, Summary: "Snapshot the working tree and index as a checkpoint", Group: groupFiles},
	{Name: "checkpoint list", Tool: "git_checkpoint_list", Summary: "List checkpoints, newest first", Group: groupFiles},
	{Name: "checkpoint compare", Tool: "git_checkpoint_compare", Slots: []string{"left", "right"}, Summary: "Compare a checkpoint with another, HEAD or the working tree", Group: groupFiles},
	{Name: "checkpoint restore", Tool: "git_checkpoint_restore", Slots: []string{"id"}, Summary: "Restore a checkpoint's files and index (--confirm)", Group: groupFiles},

	// Terminals.
	{Name: "create-terminal", Tool: "create_terminal", Summary: "Start an interactive terminal session", Group: groupProcess},
	{Name: "terminals", Tool: "list_terminals", Summary: "List terminal sessions", Group: groupProcess},
	{Name: "write-terminal", Tool: "write_terminal", Slots: []string{"terminalId", "data"}, Summary: "Write input to a terminal session", Group: groupProcess},
	{Name: "resize-terminal", Tool: "resize_terminal", Slots: []string{"terminalId", "cols", "rows"}, Summary: "Resize a terminal", Group: groupProcess},
	{Name: "kill-terminal", Tool: "kill_terminal", Slots: []string{"terminalId"}, Summary: "Signal a terminal session", Group: groupProcess},
	{Name: "close-terminal", Tool: "close_terminal", Slots: []string{"terminalId"}, Summary: "Kill and forget a terminal session", Group: groupProcess},
	{Name: "terminal-snapshot", Tool: "get_terminal_snapshot", Slots: []string{"terminalId"}, Summary: "Print a terminal's metadata and scrollback", Group: groupProcess},
	// Processes.
	{Name: "processes", Tool: "get_process_tree", Summary: "List managed processes with ports and children", Group: groupProcess},
	{Name: "process-logs", Tool: "get_process_logs", Slots: []string{"processId"}, Summary: "Print a managed process's logs (--limit N)", Group: groupProcess},
	// Dev servers.
	{Name: "dev-servers", Tool: "list_dev_servers", Summary: "List dev servers with status and port", Group: groupProcess},
	{Name: "start-dev", Tool: "start_dev_server", Slots: []string{"cwd", "command"}, Summary: "Start a dev server: start-dev <cwd> <command> [-- args...]", Group: groupProcess, ArrayKeys: []string{"args"}},
	{Name: "stop-dev", Tool: "stop_dev_server", Slots: []string{"devServerId"}, Summary: "Stop a dev server", Group: groupProcess},

	// Settings.
	{Name: "settings", Tool: "get_app_settings", Summary: "Print the app settings", Group: groupSettings},
	{Name: "set-settings", Tool: "set_app_settings", Summary: "Patch the app settings (--settings-json)", Group: groupSettings},
	// Storage.
	{Name: "storage", Tool: "storage_list_collections", Summary: "List storage collections", Group: groupSettings},
	{Name: "storage-read", Tool: "storage_read_collection", Slots: []string{"name"}, Summary: "Read a storage collection", Group: groupSettings},
	{Name: "storage-export", Tool: "storage_export_state", Summary: "Export persisted state and storage metadata", Group: groupSettings},
	{Name: "storage-bundle", Tool: "storage_export_support_bundle", Summary: "Export a redacted support bundle to the artifacts (--logsLimit N)", Group: groupSettings, PrintPath: true},
	{Name: "storage-clear", Tool: "storage_clear_collection", Slots: []string{"name"}, Summary: "Clear a storage collection: logs, audit or artifacts (--yes to confirm)", Group: groupSettings, Confirm: "confirm"},
	{Name: "storage-screenshots", Tool: "storage_delete_old_screenshots", Slots: []string{"olderThanDays"}, Summary: "Delete screenshots older than N days (default 30; --yes to confirm)", Group: groupSettings, Confirm: "confirm"},
	{Name: "storage-prune", Tool: "storage_prune_stale_agent_sessions", Slots: []string{"olderThanDays"}, Summary: "Delete idle agent sessions older than N days (default 30; --yes to confirm)", Group: groupSettings, Confirm: "confirm"},
	// Plugins.
	{Name: "plugins", Tool: "list_plugins", Summary: "List installed plugins and their grants", Group: groupSettings},
	{Name: "install-plugin", Tool: "install_plugin", Summary: "Install a plugin (--directory, --archive or --devUrl)", Group: groupSettings},
	{Name: "approve-plugin", Tool: "approve_plugin_grants", Slots: []string{"pluginId"}, Summary: "Approve plugin grants (--capabilities, --apis; repeatable)", Group: groupSettings, ArrayKeys: []string{"capabilities", "apis"}},
	{Name: "enable-plugin", Tool: "set_plugin_enabled", Slots: []string{"pluginId", "enabled"}, Summary: "Enable or disable a plugin", Group: groupSettings},
	{Name: "uninstall-plugin", Tool: "uninstall_plugin", Slots: []string{"pluginId"}, Summary: "Uninstall a plugin", Group: groupSettings},
	{Name: "open-plugin", Tool: "open_plugin_tab", Slots: []string{"pluginId"}, Summary: "Open a plugin in a plugin tab", Group: groupSettings},
}

// Commands returns a copy of the mapped-command table, in help order.
func Commands() []Command {
	out := make([]Command, len(commandTable))
	copy(out, commandTable)
	return out
}

// lookupCommand finds a mapped command by name.
func lookupCommand(name string) (Command, bool) {
	for _, c := range commandTable {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// commandForTool finds the first mapped command that calls tool.
func commandForTool(tool string) (Command, bool) {
	for _, c := range commandTable {
		if c.Tool == tool {
			return c, true
		}
	}
	return Command{}, false
}

// builtins are the commands the CLI handles itself, with their help lines.
var builtins = []struct{ Name, Usage, Summary string }{
	{"tools", "tools [filter]", "List the tools the runtime exposes (--json: descriptors)"},
	{"call", "call <toolName> [--key value ...]", "Call any tool by its exact name"},
	{"ping", "ping [--count N] [--delay-ms N]", "Time round trips to the runtime (app_ping)"},
	{"app", "app <subcommand>", "Instances: list, health, logs, kill, bug-report, screenshot"},
	{"devlogs", "devlogs [--id ID | --cwd DIR] [--no-replay]", "Follow a dev server's logs until Ctrl+C"},
	{"audit", "audit [--denied] [--tool X] [--since 1h] [--follow] [--json]", "Show the audit log of tool calls (--follow: new ones until Ctrl+C)"},
	{"agent", "agent [--space S] [--cwd DIR] [--session ID] <prompt> | agent list", "Run an agent on a prompt and follow it; list sessions"},
	{".", ". | <folder>", "Open a folder as a project in the app (project_open), starting meith if needed"},
	{"new", "new [name]", "Create an app from the app-basic template and open it running (project_create)"},
	{"setup", "setup [--write]", "Print (--write: add once to your shell rc) the line that puts meith on PATH"},
	{"help", "help [command]", "Show help for meith or one command"},
}
