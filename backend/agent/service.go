package agent

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/agent/acp"
	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/internal/artifact"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Change kinds of [Change].
const (
	ChangeSessions   = "sessions"   // the list or a session's metadata
	ChangeTranscript = "transcript" // a session's messages
	ChangePermission = "permission" // a permission request opened or closed
	ChangeDeleted    = "deleted"
)

// Change is a hint that something of a session changed; SessionID "" means
// the list.
type Change struct {
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
}

// DefaultIdleTTL is how long an idle session keeps its agent process and
// MCP token.
const DefaultIdleTTL = 30 * time.Minute

// Options configures a [Service].
type Options struct {
	// Dir is <userData>/agent: config.json, sessions.json, sessions/.
	Dir         string
	Registry    *registry.Registry
	Permissions *permission.Service
	Bridge      *mcpbridge.Bridge
	// Settings returns the app settings (git.checkpointBeforeAgentRun).
	Settings func() state.AppSettings
	// Surroundings are the engines the system prompt describes (space,
	// tabs, dev servers, terminals, git); unset ones are left out.
	Surroundings Surroundings
	// Env is added to the agent process's environment (MEITH_SOCKET…).
	Env []string
	// Logf logs at a level.
	Logf func(level protocol.LogLevel, format string, args ...any)
	// OnChange receives change hints (called without locks held).
	OnChange func(Change)
	// IdleTTL is how long an idle session keeps its agent process and MCP
	// token; 0 means DefaultIdleTTL.
	IdleTTL time.Duration
	// StartTimeout bounds an agent's start (0: the acp default).
	StartTimeout time.Duration
}

// Service is the AgentService. It is safe for concurrent use.
type Service struct {
	opts    Options
	store   *store
	cfgPath string
	ctx     context.Context // ends at Close
	stop    context.CancelFunc
	runs    sync.WaitGroup

	mu      sync.Mutex
	cfg     Config
	live    map[string]*liveSession
	options map[string][]acp.ConfigOption // last advertised, by agent command line
	probes  map[string]probeEntry
	closed  bool
}

// liveSession is the in-memory side of a session: its run, its agent
// process and its approvals. Guarded by Service.mu.
type liveSession struct {
	id         string
	run        *run
	proc       *acp.Session
	procKey    string
	lastUsed   time.Time
	remembered map[string]string // tool name → allow|deny
	pending    map[string]*pendingPermission
	options    []acp.ConfigOption
}

// pendingPermission is an open permission request.
type pendingPermission struct {
	req PermissionRequest
	ch  chan permissionAnswer // buffered 1
}

type permissionAnswer struct {
	allow    bool
	remember bool
}

type probeEntry struct {
	res acp.ProbeResult
	at  time.Time
}

// New opens the session store in opts.Dir and loads the config.
func New(opts Options) (*Service, error) {
	if opts.Dir == "" || opts.Registry == nil || opts.Permissions == nil || opts.Bridge == nil {
		return nil, errors.New("agent: Dir, Registry, Permissions and Bridge are required")
	}
	if opts.Logf == nil {
		opts.Logf = func(protocol.LogLevel, string, ...any) {}
	}
	if opts.Settings == nil {
		opts.Settings = state.DefaultSettings
	}
	if opts.IdleTTL <= 0 {
		opts.IdleTTL = DefaultIdleTTL
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("agent: create %s: %w", opts.Dir, err)
	}
	st, err := openStore(opts.Dir, func(format string, args ...any) { opts.Logf(protocol.LevelWarn, format, args...) })
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	s := &Service{opts: opts, store: st, cfgPath: filepath.Join(opts.Dir, "config.json"),
		live: map[string]*liveSession{}, options: map[string][]acp.ConfigOption{}, probes: map[string]probeEntry{}}
	s.cfg, err = loadConfig(s.cfgPath)
	if err != nil {
		opts.Logf(protocol.LevelWarn, "%v", err)
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	go s.idleLoop()
	return s, nil
}

// Close cancels every run, ends the agent processes, kills the MCP tokens
// and closes the store.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var procs []*acp.Session
	for _, l := range s.live {
		if l.run != nil {
			l.run.cancel()
		}
		if l.proc != nil {
			procs = append(procs, l.proc)
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.runs.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	s.stop()
	for _, p := range procs {
		_ = p.Close()
	}
	for _, id := range s.opts.Bridge.Sessions() {
		s.opts.Bridge.Unregister(id)
	}
	return s.store.close()
}

// changed sends a hint.
func (s *Service) changed(id, kind string) {
	if s.opts.OnChange != nil {
		s.opts.OnChange(Change{SessionID: id, Kind: kind})
	}
}

// liveLocked returns the session's live side, creating it.
func (s *Service) liveLocked(id string) *liveSession {
	l := s.live[id]
	if l == nil {
		l = &liveSession{id: id, remembered: map[string]string{}, pending: map[string]*pendingPermission{}}
		s.live[id] = l
	}
	return l
}

// Config returns the agent config.
func (s *Service) Config() Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cfg
	c.Args = slices.Clone(c.Args)
	return c
}

// ConfigPatch is a partial config change.
type ConfigPatch struct {
	Preset     *string   `json:"preset,omitempty"`
	Command    *string   `json:"command,omitempty"`
	Args       *[]string `json:"args,omitempty"`
	Model      *string   `json:"model,omitempty"`
	Reasoning  *string   `json:"reasoning,omitempty"`
	AutoAccept *bool     `json:"autoAccept,omitempty"`
}

// SetConfig applies a patch. Only a trusted caller (the window) may turn
// on Full access by default.
func (s *Service) SetConfig(p ConfigPatch, trusted bool) (Config, error) {
	if p.AutoAccept != nil && *p.AutoAccept && !trusted {
		return Config{}, protocol.Errorf(protocol.CodePermissionDenied, "Only the meith window can turn on Full access for agents.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cfg
	c.Args = slices.Clone(c.Args)
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = strings.TrimSpace(*v)
		}
	}
	set(&c.Preset, p.Preset)
	set(&c.Command, p.Command)
	set(&c.Model, p.Model)
	set(&c.Reasoning, p.Reasoning)
	if p.Args != nil {
		c.Args = slices.Clone(*p.Args)
	}
	if c.Args == nil {
		c.Args = []string{}
	}
	if p.AutoAccept != nil {
		c.AutoAccept = *p.AutoAccept
	}
	if err := c.Validate(); err != nil {
		return Config{}, &protocol.ToolError{Code: protocol.CodeValidation, Message: err.Error(), Err: err}
	}
	if err := saveConfig(s.cfgPath, c); err != nil {
		return Config{}, err
	}
	s.cfg = c
	clear(s.probes)
	return c, nil
}

// Options returns the config options the configured agent advertised last
// (by a probe or a session start).
func (s *Service) Options() []acp.ConfigOption {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, cmd, args, err := s.cfg.Resolve()
	if err != nil {
		return nil
	}
	return slices.Clone(s.options[commandKey(cmd, args)])
}

func commandKey(cmd string, args []string) string {
	return cmd + "\x00" + strings.Join(args, "\x00")
}

// Probe cache lifetimes (the original's).
const (
	probeOKTTL   = 5 * time.Minute
	probeFailTTL = 15 * time.Second
)

// ProbeOutput is a probe result with the command line probed.
type ProbeOutput struct {
	acp.ProbeResult
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// Probe checks that an agent can start (the configured one when preset is
// nil). Results are cached: 5 min when it works, 15 s when it does not.
func (s *Service) Probe(ctx context.Context, preset *string, command string, args []string) ProbeOutput {
	s.mu.Lock()
	p, c, a := s.cfg.Preset, s.cfg.Command, s.cfg.Args
	s.mu.Unlock()
	if preset != nil {
		p, c, a = *preset, command, args
	}
	label, cmd, argv, err := ResolvePreset(p, c, a)
	if err != nil {
		return ProbeOutput{ProbeResult: acp.ProbeResult{Message: err.Error()}, Args: []string{}}
	}
	key := commandKey(cmd, argv)
	s.mu.Lock()
	e, ok := s.probes[key]
	s.mu.Unlock()
	if ok && (e.res.OK && time.Since(e.at) < probeOKTTL || !e.res.OK && time.Since(e.at) < probeFailTTL) {
		return ProbeOutput{ProbeResult: e.res, Command: cmd, Args: argv}
	}
	home, _ := os.UserHomeDir()
	res := acp.Probe(ctx, cmd, argv, home)
	if res.OK && label != "" && res.Name == "" {
		res.Name = label
	}
	if !res.OK {
		if pr, ok := PresetByID(p); ok && pr.InstallHint != "" && !strings.Contains(res.Message, pr.InstallHint) {
			res.Message = strings.TrimSpace(res.Message + " " + pr.InstallHint)
		}
	}
	s.mu.Lock()
	s.probes[key] = probeEntry{res: res, at: time.Now()}
	if len(res.Options) > 0 {
		s.options[key] = res.Options
	}
	s.mu.Unlock()
	return ProbeOutput{ProbeResult: res, Command: cmd, Args: argv}
}

// SessionInfo is a session with its list decorations.
type SessionInfo struct {
	Session
	Unseen             bool `json:"unseen"`
	PendingPermissions int  `json:"pendingPermissions"`
}

// Sessions returns the sessions, newest first, of a space and/or a folder
// (empty filters match all).
func (s *Service) Sessions(spaceID, cwd string) []SessionInfo {
	all := s.store.sessions()
	out := make([]SessionInfo, 0, len(all))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range all {
		if spaceID != "" && (sess.SpaceID == nil || *sess.SpaceID != spaceID) {
			continue
		}
		if cwd != "" && filepath.Clean(sess.Cwd) != filepath.Clean(cwd) {
			continue
		}
		info := SessionInfo{Session: sess, Unseen: sess.Unseen()}
		if l := s.live[sess.ID]; l != nil {
			info.PendingPermissions = len(l.pending)
		}
		out = append(out, info)
	}
	return out
}

// Session returns a session or a VALIDATION_ERROR naming the id.
func (s *Service) Session(id string) (Session, error) {
	sess, ok := s.store.session(id)
	if !ok {
		return Session{}, protocol.Errorf(protocol.CodeValidation, "Unknown agent session: %s (agent_list_sessions lists them)", id)
	}
	return sess, nil
}

// CreateInput creates a session.
type CreateInput struct {
	Cwd, SpaceID, Title, Model, Reasoning string
}

// Create adds an idle session. Cwd must be an existing directory.
func (s *Service) Create(in CreateInput) (Session, error) {
	cwd, err := checkDir(in.Cwd)
	if err != nil {
		return Session{}, err
	}
	cfg := s.Config()
	now := time.Now().UnixMilli()
	sess := Session{
		ID: protocol.NewID(SessionPrefix), Title: strings.TrimSpace(in.Title), Cwd: cwd,
		Adapter: cfg.Preset, Model: cmp.Or(in.Model, cfg.Model), Reasoning: cmp.Or(in.Reasoning, cfg.Reasoning),
		AutoAccept: cfg.AutoAccept, Status: StatusIdle, CreatedAt: now, UpdatedAt: now, LastViewedAt: now,
	}
	if sess.Title == "" {
		sess.Title = DefaultTitle
	}
	if in.SpaceID != "" {
		sp := in.SpaceID
		sess.SpaceID = &sp
	}
	if err := s.store.putSession(sess); err != nil {
		return Session{}, fmt.Errorf("agent: save session: %w", err)
	}
	s.changed(sess.ID, ChangeSessions)
	return sess, nil
}

// checkDir returns the cleaned absolute folder or a VALIDATION_ERROR.
func checkDir(dir string) (string, error) {
	if dir == "" {
		return "", protocol.Errorf(protocol.CodeValidation, "An agent session needs a folder (cwd).")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", protocol.Errorf(protocol.CodeValidation, "Bad folder %q: %v", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", protocol.Errorf(protocol.CodeValidation, "The folder %s does not exist.", abs)
	}
	return abs, nil
}

// UpdateInput changes a session; nil fields stay.
type UpdateInput struct {
	Title      *string
	Model      *string
	Reasoning  *string
	AutoAccept *bool
	Viewed     bool
}

// Update changes a session's title, model, reasoning, Full access or
// viewed time. Only a trusted caller may turn Full access on.
func (s *Service) Update(ctx context.Context, id string, in UpdateInput, trusted bool) (Session, error) {
	if in.AutoAccept != nil && *in.AutoAccept && !trusted {
		return Session{}, protocol.Errorf(protocol.CodePermissionDenied, "Only the meith window can give an agent session Full access.")
	}
	sess, err := s.Session(id)
	if err != nil {
		return Session{}, err
	}
	if in.Title != nil {
		if t := strings.TrimSpace(*in.Title); t != "" {
			sess.Title = t
		}
	}
	configChanged := false
	if in.Model != nil && *in.Model != sess.Model {
		sess.Model, configChanged = strings.TrimSpace(*in.Model), true
	}
	if in.Reasoning != nil && *in.Reasoning != sess.Reasoning {
		sess.Reasoning, configChanged = strings.TrimSpace(*in.Reasoning), true
	}
	if in.AutoAccept != nil {
		sess.AutoAccept = *in.AutoAccept
	}
	now := time.Now().UnixMilli()
	if in.Viewed {
		sess.LastViewedAt = max(now, sess.UpdatedAt)
	} else {
		sess.UpdatedAt = now
	}
	if err := s.store.putSession(sess); err != nil {
		return Session{}, fmt.Errorf("agent: save session: %w", err)
	}
	if configChanged {
		// The model and reasoning are also the defaults of new sessions.
		if _, err := s.SetConfig(ConfigPatch{Model: &sess.Model, Reasoning: &sess.Reasoning}, true); err != nil {
			s.opts.Logf(protocol.LevelWarn, "save the agent's default model: %v", err)
		}
		s.mu.Lock()
		var proc *acp.Session
		if l := s.live[id]; l != nil {
			proc = l.proc
		}
		s.mu.Unlock()
		if proc != nil {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := proc.SetConfig(cctx, sess.Model, sess.Reasoning); err != nil {
				s.opts.Logf(protocol.LevelWarn, "apply model/reasoning to session %s: %v", id, err)
			}
			cancel()
		}
	}
	s.changed(id, ChangeSessions)
	return sess, nil
}

// Delete cancels the session's run, ends its agent, kills its MCP token,
// revokes its grants and deletes its data.
func (s *Service) Delete(ctx context.Context, id string) error {
	if _, err := s.Session(id); err != nil {
		return err
	}
	s.mu.Lock()
	l := s.live[id]
	var done chan struct{}
	var proc *acp.Session
	if l != nil {
		if l.run != nil {
			l.run.cancel()
			done = l.run.done
		}
		proc = l.proc
		l.proc = nil
	}
	s.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if proc != nil {
		_ = proc.Close()
	}
	s.opts.Bridge.Unregister(id)
	s.opts.Permissions.RevokeSession(protocol.CallerAgent, id)
	s.mu.Lock()
	delete(s.live, id)
	s.mu.Unlock()
	if err := s.store.deleteSession(id); err != nil {
		return fmt.Errorf("agent: delete session: %w", err)
	}
	s.changed(id, ChangeDeleted)
	return nil
}

// TranscriptView is a session's transcript as the agent tab shows it.
type TranscriptView struct {
	Session            Session             `json:"session"`
	Messages           []Message           `json:"messages"`
	Omitted            bool                `json:"omitted"`
	PendingPermissions []PermissionRequest `json:"pendingPermissions"`
	Options            []acp.ConfigOption  `json:"options"`
}

// Transcript returns the session's bounded transcript, the live message of
// a run included.
func (s *Service) Transcript(id string, maxMessages int) (TranscriptView, error) {
	sess, err := s.Session(id)
	if err != nil {
		return TranscriptView{}, err
	}
	tr, err := s.store.transcript(id, readLimits{MaxMessages: maxMessages})
	if err != nil {
		return TranscriptView{}, fmt.Errorf("agent: read transcript: %w", err)
	}
	v := TranscriptView{Session: sess, Messages: tr.Messages, Omitted: tr.Omitted, PendingPermissions: []PermissionRequest{}}
	s.mu.Lock()
	if l := s.live[id]; l != nil {
		if r := l.run; r != nil && r.msg != nil {
			m := cloneMessage(*r.msg)
			if i := slices.IndexFunc(v.Messages, func(x Message) bool { return x.ID == m.ID }); i >= 0 {
				v.Messages[i] = m
			} else {
				v.Messages = append(v.Messages, m)
			}
		}
		for _, p := range l.pending {
			v.PendingPermissions = append(v.PendingPermissions, p.req)
		}
		v.Options = slices.Clone(l.options)
	}
	s.mu.Unlock()
	if v.Messages == nil {
		v.Messages = []Message{}
	}
	slices.SortFunc(v.PendingPermissions, func(a, b PermissionRequest) int { return int(a.CreatedAt - b.CreatedAt) })
	if len(v.Options) == 0 {
		v.Options = s.Options()
	}
	if v.Options == nil {
		v.Options = []acp.ConfigOption{}
	}
	return v, nil
}

// cloneMessage copies m deeply enough to hand it out.
func cloneMessage(m Message) Message {
	m.Parts = slices.Clone(m.Parts)
	m.ToolCalls = slices.Clone(m.ToolCalls)
	m.Attachments = slices.Clone(m.Attachments)
	m.Plan = slices.Clone(m.Plan)
	return m
}

// MaxAttachmentBytes bounds one staged attachment.
const MaxAttachmentBytes = 10 << 20

// AttachmentsDir is where attachments are staged, relative to the
// session's folder.
const AttachmentsDir = ".meith/attachments"

// StageAttachment writes a file for the session's next message into
// <cwd>/.meith/attachments (0600, a unique name).
func (s *Service) StageAttachment(id, name, dataB64 string) (Attachment, error) {
	sess, err := s.Session(id)
	if err != nil {
		return Attachment{}, err
	}
	data, err := base64.StdEncoding.DecodeString(dataB64)
	if err != nil {
		return Attachment{}, protocol.Errorf(protocol.CodeValidation, "The attachment is not valid base64: %v", err)
	}
	if len(data) > MaxAttachmentBytes {
		return Attachment{}, protocol.Errorf(protocol.CodeValidation, "The attachment is %d bytes; at most %d (10 MiB) can be attached.", len(data), MaxAttachmentBytes)
	}
	base := filepath.Base(filepath.Clean("/" + strings.ReplaceAll(name, "\\", "/")))
	if base == "/" || base == "." || base == "" {
		base = "attachment"
	}
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	path, err := artifact.Write(filepath.Join(sess.Cwd, AttachmentsDir), stem, ext, data)
	if err != nil {
		return Attachment{}, fmt.Errorf("agent: stage attachment: %w", err)
	}
	return Attachment{Name: base, Path: path, Size: int64(len(data))}, nil
}
