package socket

import (
	"bytes"
	"os"
	"strings"
)

// A minimal txtar reader and writer (the format of
// golang.org/x/tools/txtar): a comment, then files introduced by
// "-- name --" lines. The go-internal txtar package forwards to x/tools,
// which this module does not require, so the few lines live here.

type txtarArchive struct {
	Comment []byte
	Files   []txtarFile
}

type txtarFile struct {
	Name string
	Data []byte
}

func parseTxtar(path string) (*txtarArchive, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseTxtarData(data), nil
}

func parseTxtarData(data []byte) *txtarArchive {
	a := &txtarArchive{}
	var cur *[]byte = &a.Comment
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if name, ok := markerName(line); ok {
			a.Files = append(a.Files, txtarFile{Name: name})
			cur = &a.Files[len(a.Files)-1].Data
			continue
		}
		*cur = append(*cur, line...)
	}
	return a
}

func markerName(line []byte) (string, bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 6 {
		return "", false
	}
	name := strings.TrimSpace(s[3 : len(s)-3])
	return name, name != ""
}

func (a *txtarArchive) format() []byte {
	var buf bytes.Buffer
	buf.Write(fixNL(a.Comment))
	for _, f := range a.Files {
		buf.WriteString("-- " + f.Name + " --\n")
		buf.Write(fixNL(f.Data))
	}
	return buf.Bytes()
}

func fixNL(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	return append(b, '\n')
}
