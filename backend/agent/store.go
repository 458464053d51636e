package agent

// This file's bodies are written by the store's owner; the signatures are
// the contract the service uses.

// ReadLimits bound a transcript read (the original's display read).
type ReadLimits struct {
	MaxBytes        int64 // of the file's tail that is read (default 5 MiB)
	MaxRecords      int   // records of that tail (default 500)
	MaxMessages     int   // newest messages kept (default 20)
	MaxMessageChars int   // per message, over its text parts (default 20,000)
	MaxTotalChars   int   // over all messages (default 50,000)
}

// Store persists sessions: the index <dir>/sessions.json (0600, written
// atomically) and one transcript <dir>/sessions/<id>.jsonl per session
// (0600, dirs 0700) of message and patch records. Safe for concurrent use.
type Store struct{ impl *store }

// OpenStore loads the index in dir (a missing file is empty; a corrupt one
// is moved aside to sessions.json.corrupt-<ms> and logged) and resets
// sessions left "running" by a crash to "idle".
func OpenStore(dir string, logf func(format string, args ...any)) (*Store, error) {
	return openStore(dir, logf)
}

// Sessions returns every session, newest UpdatedAt first.
func (s *Store) Sessions() []Session { return s.impl.sessions() }

// Session returns the session with id.
func (s *Store) Session(id string) (Session, bool) { return s.impl.session(id) }

// PutSession adds or replaces a session and writes the index.
func (s *Store) PutSession(sess Session) error { return s.impl.putSession(sess) }

// DeleteSession removes the session from the index and deletes its
// transcript. An unknown id is not an error.
func (s *Store) DeleteSession(id string) error { return s.impl.deleteSession(id) }

// AppendMessage appends a full message record to the session's transcript.
func (s *Store) AppendMessage(sessionID string, m Message) error {
	return s.impl.appendMessage(sessionID, m)
}

// AppendPatch appends a patch record.
func (s *Store) AppendPatch(sessionID string, p Patch) error { return s.impl.appendPatch(sessionID, p) }

// Transcript reads the session's messages (patches applied), bounded by
// lim (zero fields take the defaults), oldest first. Compaction happens
// here when the file exceeds 25 MiB or holds more than max(100, 3 ×
// messages) records: it is rewritten as full message records.
func (s *Store) Transcript(sessionID string, lim ReadLimits) (Transcript, error) {
	return s.impl.transcript(sessionID, lim)
}

// Close flushes and closes open transcript files.
func (s *Store) Close() error { return s.impl.close() }
