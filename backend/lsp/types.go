package lsp

import "encoding/json"

// The few Language Server Protocol 3.17 messages the client speaks, written
// by hand (see docs/decisions/2026-12-01-lsp-client-library.md): no
// maintained Go module has the protocol types for the JSON-RPC library
// used here. Field names and shapes follow the specification; fields the
// client never reads or sends are left out.

// LSP methods.
const (
	methodInitialize          = "initialize"
	methodInitialized         = "initialized"
	methodShutdown            = "shutdown"
	methodExit                = "exit"
	methodDidOpen             = "textDocument/didOpen"
	methodDidClose            = "textDocument/didClose"
	methodPublishDiagnostics  = "textDocument/publishDiagnostics"
	methodDocumentDiagnostic  = "textDocument/diagnostic"
	methodProgress            = "$/progress"
	methodLogMessage          = "window/logMessage"
	methodShowMessage         = "window/showMessage"
	methodShowMessageRequest  = "window/showMessageRequest"
	methodWorkDoneCreate      = "window/workDoneProgress/create"
	methodConfiguration       = "workspace/configuration"
	methodWorkspaceFolders    = "workspace/workspaceFolders"
	methodRegisterCapability  = "client/registerCapability"
	methodUnregisterCapabilty = "client/unregisterCapability"
	methodApplyEdit           = "workspace/applyEdit"
)

// codeServerCancelled is the LSP error a server answers a pull request with
// when it wants it asked again later (data.retriggerRequest).
const codeServerCancelled = -32802

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	ProcessID        int               `json:"processId"`
	ClientInfo       clientInfo        `json:"clientInfo"`
	Locale           string            `json:"locale,omitempty"`
	RootPath         string            `json:"rootPath"`
	RootURI          string            `json:"rootUri"`
	Capabilities     clientCaps        `json:"capabilities"`
	WorkspaceFolders []workspaceFolder `json:"workspaceFolders"`
}

type clientCaps struct {
	Workspace    workspaceCaps    `json:"workspace"`
	TextDocument textDocumentCaps `json:"textDocument"`
	Window       windowCaps       `json:"window"`
	General      generalCaps      `json:"general"`
}

type workspaceCaps struct {
	WorkspaceFolders bool `json:"workspaceFolders"`
	Configuration    bool `json:"configuration"`
}

type textDocumentCaps struct {
	Synchronization    syncCaps               `json:"synchronization"`
	PublishDiagnostics publishDiagnosticsCaps `json:"publishDiagnostics"`
	Diagnostic         diagnosticCaps         `json:"diagnostic"`
}

type syncCaps struct {
	DynamicRegistration bool `json:"dynamicRegistration"`
	DidSave             bool `json:"didSave"`
}

type publishDiagnosticsCaps struct {
	RelatedInformation     bool `json:"relatedInformation"`
	VersionSupport         bool `json:"versionSupport"`
	CodeDescriptionSupport bool `json:"codeDescriptionSupport"`
	DataSupport            bool `json:"dataSupport"`
}

type diagnosticCaps struct {
	DynamicRegistration    bool `json:"dynamicRegistration"`
	RelatedDocumentSupport bool `json:"relatedDocumentSupport"`
}

type windowCaps struct {
	WorkDoneProgress bool `json:"workDoneProgress"`
}

type generalCaps struct {
	PositionEncodings []string `json:"positionEncodings"`
}

type initializeResult struct {
	Capabilities serverCaps `json:"capabilities"`
	ServerInfo   *struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	} `json:"serverInfo,omitempty"`
}

type serverCaps struct {
	PositionEncoding string `json:"positionEncoding,omitempty"`
	// DiagnosticProvider is set (an object) when the server answers
	// textDocument/diagnostic (pull diagnostics).
	DiagnosticProvider json.RawMessage `json:"diagnosticProvider,omitempty"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type documentDiagnosticParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

// documentDiagnosticReport is a full report (kind "full" with items) or an
// unchanged one (kind "unchanged", never asked for: no previousResultId is
// sent).
type documentDiagnosticReport struct {
	Kind  string       `json:"kind"`
	Items []diagnostic `json:"items"`
}

type position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type diagnostic struct {
	Range    lspRange        `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"` // integer | string
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type progressParams struct {
	Token json.RawMessage `json:"token"` // integer | string
	Value struct {
		Kind       string `json:"kind"` // begin | report | end
		Title      string `json:"title,omitempty"`
		Message    string `json:"message,omitempty"`
		Percentage *int   `json:"percentage,omitempty"`
	} `json:"value"`
}

type messageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

type configurationParams struct {
	Items []json.RawMessage `json:"items"`
}

type applyEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}
