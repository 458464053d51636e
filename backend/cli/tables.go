package cli

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// table writes rows under a header as columns two spaces apart, the last
// column unpadded and trailing spaces trimmed; the header is bold when c is
// on.
func table(header []string, rows [][]string, c palette) string {
	widths := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	line := func(row []string) string {
		var b strings.Builder
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2))
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	var b strings.Builder
	b.WriteString(c.paint(sgrBold, line(header)) + "\n")
	for _, row := range rows {
		b.WriteString(line(row) + "\n")
	}
	return b.String()
}

// activeMark is the first column of a table row: "*" for the active one.
func activeMark(active bool) string {
	if active {
		return "*"
	}
	return ""
}

// renderSpaces writes list_spaces's result as a table; the active space
// is marked "*".
func renderSpaces(content json.RawMessage, c palette) (string, bool) {
	var r struct {
		Spaces []struct {
			ID    string `json:"id"`
			Name  string `json:"name"`
			Color string `json:"color"`
			Cwd   string `json:"cwd"`
		} `json:"spaces"`
		ActiveSpaceID string `json:"activeSpaceId"`
	}
	if json.Unmarshal(content, &r) != nil || r.Spaces == nil {
		return "", false
	}
	if len(r.Spaces) == 0 {
		return "No spaces.\n", true
	}
	rows := make([][]string, 0, len(r.Spaces))
	for _, s := range r.Spaces {
		rows = append(rows, []string{activeMark(s.ID == r.ActiveSpaceID), s.ID, s.Name, s.Color, s.Cwd})
	}
	return table([]string{"", "ID", "NAME", "COLOR", "FOLDER"}, rows, c), true
}

// renderTabs writes get_tabs's result as two tables, browser tabs and
// workspace tabs; the active tab of each space is marked "*".
func renderTabs(content json.RawMessage, c palette) (string, bool) {
	var r struct {
		BrowserTabs []struct {
			ID        string `json:"id"`
			SpaceID   string `json:"spaceId"`
			URL       string `json:"url"`
			Title     string `json:"title"`
			LoadState string `json:"loadState"`
			Active    bool   `json:"active"`
		} `json:"browserTabs"`
		WorkspaceTabs []struct {
			ID      string `json:"id"`
			SpaceID string `json:"spaceId"`
			Kind    string `json:"kind"`
			Title   string `json:"title"`
			Cwd     string `json:"cwd"`
			Active  bool   `json:"active"`
		} `json:"workspaceTabs"`
	}
	if json.Unmarshal(content, &r) != nil || r.BrowserTabs == nil || r.WorkspaceTabs == nil {
		return "", false
	}
	if len(r.BrowserTabs) == 0 && len(r.WorkspaceTabs) == 0 {
		return "No tabs.\n", true
	}
	var parts []string
	if len(r.BrowserTabs) > 0 {
		rows := make([][]string, 0, len(r.BrowserTabs))
		for _, t := range r.BrowserTabs {
			rows = append(rows, []string{activeMark(t.Active), t.ID, t.SpaceID, t.LoadState, t.Title, t.URL})
		}
		parts = append(parts, "Browser tabs:\n"+table([]string{"", "ID", "SPACE", "STATE", "TITLE", "URL"}, rows, c))
	}
	if len(r.WorkspaceTabs) > 0 {
		rows := make([][]string, 0, len(r.WorkspaceTabs))
		for _, t := range r.WorkspaceTabs {
			rows = append(rows, []string{activeMark(t.Active), t.ID, t.SpaceID, t.Kind, t.Title, t.Cwd})
		}
		parts = append(parts, "Workspace tabs:\n"+table([]string{"", "ID", "SPACE", "KIND", "TITLE", "FOLDER"}, rows, c))
	}
	return strings.Join(parts, "\n"), true
}
