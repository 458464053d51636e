package browser

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/input"
)

// Modifier bits of [InputEvent.Modifiers] (CDP's).
const (
	ModAlt   = 1
	ModCtrl  = 2
	ModMeta  = 4
	ModShift = 8
)

// namedKey is a key without text of its own (or with a fixed one).
type namedKey struct {
	code    string
	keyCode int
	text    string
}

// namedKeys are the keys send_keys knows by name (DOM KeyboardEvent.key).
var namedKeys = map[string]namedKey{
	"Enter": {"Enter", 13, "\r"}, "Tab": {"Tab", 9, ""}, "Backspace": {"Backspace", 8, ""},
	"Delete": {"Delete", 46, ""}, "Escape": {"Escape", 27, ""}, "Space": {"Space", 32, " "},
	"ArrowUp": {"ArrowUp", 38, ""}, "ArrowDown": {"ArrowDown", 40, ""}, "ArrowLeft": {"ArrowLeft", 37, ""},
	"ArrowRight": {"ArrowRight", 39, ""}, "Home": {"Home", 36, ""}, "End": {"End", 35, ""},
	"PageUp": {"PageUp", 33, ""}, "PageDown": {"PageDown", 34, ""}, "Insert": {"Insert", 45, ""},
	"F1": {"F1", 112, ""}, "F2": {"F2", 113, ""}, "F3": {"F3", 114, ""}, "F4": {"F4", 115, ""},
	"F5": {"F5", 116, ""}, "F6": {"F6", 117, ""}, "F7": {"F7", 118, ""}, "F8": {"F8", 119, ""},
	"F9": {"F9", 120, ""}, "F10": {"F10", 121, ""}, "F11": {"F11", 122, ""}, "F12": {"F12", 123, ""},
}

// keyAliases maps other spellings onto namedKeys' names.
var keyAliases = map[string]string{
	"return": "Enter", "esc": "Escape", "del": "Delete", "up": "ArrowUp", "down": "ArrowDown",
	"left": "ArrowLeft", "right": "ArrowRight", "pgup": "PageUp", "pgdn": "PageDown", " ": "Space",
}

// modifierNames maps the prefixes of a chord ("Control+a") onto bits.
var modifierNames = map[string]int{
	"control": ModCtrl, "ctrl": ModCtrl, "shift": ModShift, "alt": ModAlt, "option": ModAlt,
	"meta": ModMeta, "cmd": ModMeta, "command": ModMeta, "super": ModMeta,
}

// editCommands are the editing commands Chrome runs for the usual
// shortcuts (a headless page does not map them itself).
var editCommands = map[string]string{
	"a": "selectAll", "c": "copy", "x": "cut", "v": "paste", "z": "undo", "y": "redo",
}

// keyStroke is one key press (down and up) to dispatch.
type keyStroke struct {
	key, code, text string
	keyCode         int
	modifiers       int
	commands        []string
}

// parseKeys reads send_keys' argument: a named key or a chord of modifiers
// and one key ("Enter", "Control+A", "Shift+Tab") is one stroke; anything
// else is literal text, one stroke per character.
func parseKeys(keys string) ([]keyStroke, error) {
	if keys == "" {
		return nil, fmt.Errorf("browser: keys: nothing to send")
	}
	if s, ok := parseChord(keys); ok {
		return []keyStroke{s}, nil
	}
	var out []keyStroke
	for _, r := range keys {
		out = append(out, charStroke(r, 0))
	}
	return out, nil
}

// parseChord reads "Mod+Mod+Key"; ok is false when keys is not one.
func parseChord(keys string) (keyStroke, bool) {
	parts := strings.Split(keys, "+")
	if keys == "+" {
		parts = []string{"+"}
	} else if strings.HasSuffix(keys, "++") { // "Control++"
		parts = append(strings.Split(strings.TrimSuffix(keys, "++"), "+"), "+")
	}
	mods := 0
	for _, p := range parts[:len(parts)-1] {
		bit, ok := modifierNames[strings.ToLower(p)]
		if !ok {
			return keyStroke{}, false
		}
		mods |= bit
	}
	last := parts[len(parts)-1]
	name := last
	if alias, ok := keyAliases[strings.ToLower(last)]; ok {
		name = alias
	}
	for n := range namedKeys {
		if strings.EqualFold(n, name) {
			name = n
		}
	}
	if k, ok := namedKeys[name]; ok {
		s := keyStroke{key: name, code: k.code, keyCode: k.keyCode, text: k.text, modifiers: mods}
		if name == "Space" {
			s.key = " "
		}
		if mods&(ModCtrl|ModAlt|ModMeta) != 0 {
			s.text = ""
		}
		return s, true
	}
	if utf8.RuneCountInString(last) == 1 && (mods != 0 || len(parts) == 1) {
		r, _ := utf8.DecodeRuneInString(last)
		if len(parts) == 1 {
			return keyStroke{}, false // one plain character: literal text
		}
		return charStroke(r, mods), true
	}
	return keyStroke{}, false
}

// charStroke is the stroke that types r (with modifiers: a shortcut).
func charStroke(r rune, mods int) keyStroke {
	s := keyStroke{key: string(r), text: string(r), modifiers: mods}
	switch {
	case r >= 'a' && r <= 'z':
		s.code, s.keyCode = "Key"+strings.ToUpper(string(r)), int(r-'a'+'A')
	case r >= 'A' && r <= 'Z':
		s.code, s.keyCode = "Key"+string(r), int(r)
		s.modifiers |= ModShift
	case r >= '0' && r <= '9':
		s.code, s.keyCode = "Digit"+string(r), int(r)
	case r == ' ':
		s.code, s.keyCode = "Space", 32
	case r == '\n':
		s.key, s.code, s.keyCode, s.text = "Enter", "Enter", 13, "\r"
	case r == '\t':
		s.key, s.code, s.keyCode, s.text = "Tab", "Tab", 9, ""
	}
	if mods&(ModCtrl|ModMeta) != 0 {
		s.text = ""
		lower := strings.ToLower(string(r))
		if cmd, ok := editCommands[lower]; ok {
			if lower == "z" && mods&ModShift != 0 {
				cmd = "redo"
			}
			s.commands = []string{cmd}
		}
		s.key = strings.ToLower(string(r))
	}
	return s
}

// dispatchStroke sends one key's down and up.
func (t *Tab) dispatchStroke(ctx context.Context, s keyStroke) error {
	down := input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeRawKeyDown, Key: s.key, Code: s.code,
		WindowsVirtualKeyCode: int64(s.keyCode), NativeVirtualKeyCode: int64(s.keyCode),
		Modifiers: int64(s.modifiers), Commands: s.commands,
	}
	if s.text != "" {
		down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, s.text, s.text
	}
	if _, err := callPage(ctx, t, input.DispatchKeyEvent, down); err != nil {
		return err
	}
	up := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyUp, Key: s.key, Code: s.code,
		WindowsVirtualKeyCode: int64(s.keyCode), NativeVirtualKeyCode: int64(s.keyCode), Modifiers: int64(s.modifiers)}
	_, err := callPage(ctx, t, input.DispatchKeyEvent, up)
	return err
}

// SendKeys types a named key or chord (Enter, Tab, ArrowDown, Control+A,
// Shift+Tab, …) or literal characters into the focused element.
func (t *Tab) SendKeys(ctx context.Context, keys string) error {
	strokes, err := parseKeys(keys)
	if err != nil {
		return err
	}
	t.op.Lock()
	defer t.op.Unlock()
	for _, s := range strokes {
		if err := t.dispatchStroke(ctx, s); err != nil {
			return t.fail("keys", err)
		}
	}
	return nil
}
