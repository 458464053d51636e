package audit

// Subscribe calls fn with the entries of every batch written to the file
// from now on (and with the first entry [Log.Clear] writes), in the order
// they were written. fn runs on the writer goroutine: it must return
// quickly and must not call back into the log (Flush, Query, Clear,
// Close); a subscriber that needs time hands the entries to a goroutine
// of its own. The slice is fn's to keep. cancel ends the subscription.
func (l *Log) Subscribe(fn func([]Entry)) (cancel func()) {
	l.subMu.Lock()
	defer l.subMu.Unlock()
	if l.subs == nil {
		l.subs = map[int]func([]Entry){}
	}
	id := l.nextSub
	l.nextSub++
	l.subs[id] = fn
	return func() {
		l.subMu.Lock()
		delete(l.subs, id)
		l.subMu.Unlock()
	}
}

// watched reports whether anyone subscribed.
func (l *Log) watched() bool {
	l.subMu.Lock()
	defer l.subMu.Unlock()
	return len(l.subs) > 0
}

// publish hands the written entries to the subscribers, each its own copy.
func (l *Log) publish(entries []Entry) {
	if len(entries) == 0 {
		return
	}
	l.subMu.Lock()
	fns := make([]func([]Entry), 0, len(l.subs))
	for _, fn := range l.subs {
		fns = append(fns, fn)
	}
	l.subMu.Unlock()
	for i, fn := range fns {
		if i == len(fns)-1 {
			fn(entries)
			continue
		}
		fn(append([]Entry(nil), entries...))
	}
}
