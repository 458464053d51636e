package protocol

import (
	"bytes"
	"encoding/json"
)

// The runtime writes a tool_result (and often tool_events) per call, so
// these frames are written by hand instead of by reflection; the bytes are
// the same as encoding/json's (without HTML escaping, as [Encode] writes),
// which TestFastEncodingMatchesEncodingJSON checks. Parts that are rare or
// free-form (meta, error details) still go through encoding/json.

// appendFrame appends msg as one NDJSON line when it is a frame with a fast
// encoder; ok is false otherwise and buf is left as it was.
func appendFrame(buf *bytes.Buffer, msg Message) (ok bool, err error) {
	switch m := msg.(type) {
	case *ToolResultFrame:
		if m.Protocol != nil && *m.Protocol != ProtocolVersion {
			return false, nil
		}
		n := buf.Len()
		buf.WriteString(`{"type":"tool_result","protocol":1,"requestId":`)
		appendString(buf, m.RequestID)
		buf.WriteString(`,"result":`)
		if err := appendResult(buf, &m.Result); err != nil {
			buf.Truncate(n)
			return false, err
		}
		buf.WriteString("}\n")
		return true, nil
	case *ToolEvent:
		if m.Protocol != nil && *m.Protocol != ProtocolVersion || m.Event.Fraction != nil {
			return false, nil
		}
		buf.WriteString(`{"type":"tool_event","protocol":1,"requestId":`)
		appendString(buf, m.RequestID)
		buf.WriteString(`,"event":{"kind":`)
		appendString(buf, string(m.Event.Kind))
		ev := &m.Event
		for _, f := range [...]struct{ key, val string }{
			{`,"message":`, ev.Message}, {`,"level":`, string(ev.Level)}, {`,"text":`, ev.Text},
			{`,"mimeType":`, ev.MimeType}, {`,"name":`, ev.Name}, {`,"dataBase64":`, ev.DataBase64},
			{`,"path":`, ev.Path},
		} {
			if f.val != "" {
				buf.WriteString(f.key)
				appendString(buf, f.val)
			}
		}
		buf.WriteString("}}\n")
		return true, nil
	}
	return false, nil
}

// appendResult appends a ToolResult as encoding/json does.
func appendResult(buf *bytes.Buffer, r *ToolResult) error {
	if r.OK {
		buf.WriteString(`{"ok":true`)
	} else {
		buf.WriteString(`{"ok":false`)
	}
	if len(r.Content) > 0 {
		buf.WriteString(`,"content":`)
		if c, m := r.Content, r.marshalled; len(c) == len(m) && &c[0] == &m[0] {
			buf.Write(c) // json.Marshal's own output: valid and compact
		} else if err := json.Compact(buf, c); err != nil {
			return err
		}
	}
	if len(r.Meta) > 0 {
		buf.WriteString(`,"meta":`)
		if err := appendJSON(buf, r.Meta); err != nil {
			return err
		}
	}
	if len(r.Diagnostics) > 0 {
		buf.WriteString(`,"diagnostics":[`)
		for i, d := range r.Diagnostics {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(`{"level":`)
			appendString(buf, d.Level)
			buf.WriteString(`,"message":`)
			appendString(buf, d.Message)
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	}
	if e := r.Error; e != nil {
		buf.WriteString(`,"error":{"code":`)
		appendString(buf, string(e.Code))
		buf.WriteString(`,"message":`)
		appendString(buf, e.Message)
		if e.Details != nil {
			buf.WriteString(`,"details":`)
			if err := appendJSON(buf, e.Details); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	}
	buf.WriteByte('}')
	return nil
}

// appendJSON appends v as encoding/json encodes it without HTML escaping,
// without the encoder's newline.
func appendJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}

// appendString appends s as a JSON string, as encoding/json does without
// HTML escaping. Printable ASCII without quotes or backslashes is copied as
// it is; anything else goes through encoding/json.
func appendString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			_ = appendJSON(buf, s) // a string always encodes
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}
