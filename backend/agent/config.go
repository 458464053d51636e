package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
)

// Preset ids.
const (
	PresetNone   = ""
	PresetClaude = "claude"
	PresetCodex  = "codex"
	PresetGemini = "gemini"
	PresetCustom = "custom"
)

// Preset is a built-in way to run an ACP agent.
type Preset struct {
	ID      string   `json:"id"`
	Label   string   `json:"label"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// InstallHint says how to make the command available.
	InstallHint string `json:"installHint"`
}

// Presets are the agents meith knows how to start (the custom preset's
// command comes from the config).
var Presets = []Preset{
	{ID: PresetClaude, Label: "Claude Code", Command: "npx", Args: []string{"-y", "@agentclientprotocol/claude-agent-acp"},
		InstallHint: "Needs Node.js with npx (apt-get install nodejs npm) and a Claude login (run `claude` once, or set ANTHROPIC_API_KEY)."},
	{ID: PresetCodex, Label: "Codex", Command: "npx", Args: []string{"-y", "@agentclientprotocol/codex-acp"},
		InstallHint: "Needs Node.js with npx (apt-get install nodejs npm) and a Codex login (run `codex login`, or set OPENAI_API_KEY)."},
	{ID: PresetGemini, Label: "Gemini CLI", Command: "npx", Args: []string{"-y", "@google/gemini-cli", "--experimental-acp"},
		InstallHint: "Needs Node.js with npx (apt-get install nodejs npm) and a Gemini login (run `gemini` once, or set GEMINI_API_KEY)."},
	{ID: PresetCustom, Label: "Custom", InstallHint: "Any command that speaks the Agent Client Protocol on stdio and supports HTTP MCP servers."},
}

// PresetByID returns the preset with id.
func PresetByID(id string) (Preset, bool) {
	i := slices.IndexFunc(Presets, func(p Preset) bool { return p.ID == id })
	if i < 0 {
		return Preset{}, false
	}
	p := Presets[i]
	p.Args = slices.Clone(p.Args)
	return p, true
}

// Config is the agent configuration, <userData>/agent/config.json.
type Config struct {
	// Preset is the agent to run; "" means none is configured.
	Preset string `json:"preset"`
	// Command and Args are the custom preset's command line.
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Model and Reasoning are the defaults of new sessions.
	Model     string `json:"model"`
	Reasoning string `json:"reasoning"`
	// AutoAccept is the default of new sessions' Full access.
	AutoAccept bool `json:"autoAccept"`
}

// ErrNoAgent is returned when no agent is configured.
var ErrNoAgent = errors.New("No ACP agent configured. Pick a built-in agent (Claude Code, Codex, Gemini CLI) or set a custom command in Settings → Agent.")

// Validate checks the config's fields.
func (c Config) Validate() error {
	if _, ok := PresetByID(c.Preset); !ok && c.Preset != PresetNone {
		ids := make([]string, 0, len(Presets))
		for _, p := range Presets {
			ids = append(ids, p.ID)
		}
		return fmt.Errorf("unknown agent preset: use one of %s, or \"\" for none", strings.Join(ids, ", "))
	}
	if strings.ContainsRune(c.Command, 0) || slices.ContainsFunc(c.Args, func(a string) bool { return strings.ContainsRune(a, 0) }) {
		return errors.New("the agent command contains a NUL byte")
	}
	return nil
}

// Resolve returns the command line of the configured agent, or ErrNoAgent
// (also for a custom preset without a command).
func (c Config) Resolve() (label, command string, args []string, err error) {
	return ResolvePreset(c.Preset, c.Command, c.Args)
}

// ResolvePreset returns the command line of a preset; for custom, command
// and args are the user's.
func ResolvePreset(preset, command string, args []string) (label, cmd string, argv []string, err error) {
	p, ok := PresetByID(preset)
	switch {
	case preset == PresetNone:
		return "", "", nil, ErrNoAgent
	case !ok:
		return "", "", nil, fmt.Errorf("unknown agent preset %q", preset)
	case preset == PresetCustom:
		command = strings.TrimSpace(command)
		if command == "" {
			return "", "", nil, errors.New("The custom agent has no command: set one in Settings → Agent.")
		}
		return filepath.Base(command), command, slices.Clone(args), nil
	default:
		return p.Label, p.Command, p.Args, nil
	}
}

// loadConfig reads the config file; a missing file is the zero config, a
// corrupt one is reported and replaced by the zero config.
func loadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Config{Args: []string{}}, nil
	}
	if err != nil {
		return Config{Args: []string{}}, fmt.Errorf("agent: read config: %w", err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{Args: []string{}}, fmt.Errorf("agent: config %s is not valid JSON (using defaults): %w", path, err)
	}
	if c.Args == nil {
		c.Args = []string{}
	}
	if err := c.Validate(); err != nil {
		return Config{Args: []string{}}, fmt.Errorf("agent: config %s: %w (using defaults)", path, err)
	}
	return c, nil
}

// saveConfig writes the config file atomically (0600).
func saveConfig(path string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("agent: encode config: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("agent: write config: %w", err)
	}
	return nil
}
