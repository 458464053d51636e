package state

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Panes of a space's workspace. Every space has a primary pane; a split
// adds the secondary pane to its right.
const (
	PanePrimary   = "primary"
	PaneSecondary = "secondary"
)

// Panes lists the valid pane names.
var Panes = []string{PanePrimary, PaneSecondary}

// Limits of a [Layout].
const (
	DefaultSplitRatio   = 0.5
	MinSplitRatio       = 0.15
	MaxSplitRatio       = 0.85
	DefaultDrawerHeight = 260
	MinDrawerHeight     = 120
	MaxDrawerHeight     = 800
)

// ErrBrowserPane is returned when a browser tab would end up in a different
// pane than the space's other browser tabs: only one pane of a space can
// hold browser tabs (the page is shown in one place).
var ErrBrowserPane = errors.New("only one pane can hold browser tabs")

// ErrTabNotFound is returned for an id that names no tab.
var ErrTabNotFound = errors.New("tab not found")

// IsBrowserPane reports whether err is [ErrBrowserPane].
func IsBrowserPane(err error) bool { return errors.Is(err, ErrBrowserPane) }

// IsTabNotFound reports whether err is [ErrTabNotFound].
func IsTabNotFound(err error) bool { return errors.Is(err, ErrTabNotFound) }

// Layout is the arrangement of a space's workspace: one pane or two side by
// side, the tab each pane shows, the pane that has the focus, and the
// bottom drawer. Tabs say which pane holds them ([WorkspaceTab.Pane],
// [BrowserTab.Pane]).
type Layout struct {
	// Split is true when the secondary pane is shown.
	Split bool `json:"split"`
	// SplitRatio is the primary pane's share of the width while split.
	SplitRatio float64 `json:"splitRatio"`
	// FocusedPane is the pane that received the last focus.
	FocusedPane string `json:"focusedPane"`
	// PrimaryTabID and SecondaryTabID are the tabs the panes show ("" for an
	// empty pane).
	PrimaryTabID   string `json:"primaryTabId"`
	SecondaryTabID string `json:"secondaryTabId"`
	// DrawerOpen and DrawerHeight (pixels) describe the bottom drawer.
	DrawerOpen   bool `json:"drawerOpen"`
	DrawerHeight int  `json:"drawerHeight"`
}

// DefaultLayout returns the layout of a new space: one pane, drawer closed.
func DefaultLayout() Layout {
	return Layout{SplitRatio: DefaultSplitRatio, FocusedPane: PanePrimary, DrawerHeight: DefaultDrawerHeight}
}

// shown returns the id of the tab pane shows.
func (l *Layout) shown(pane string) string {
	if pane == PaneSecondary {
		return l.SecondaryTabID
	}
	return l.PrimaryTabID
}

func (l *Layout) setShown(pane, id string) {
	if pane == PaneSecondary {
		l.SecondaryTabID = id
	} else {
		l.PrimaryTabID = id
	}
}

// BrowserTab returns a pointer to the browser tab with id in s, or nil.
func (s *State) BrowserTab(id string) *BrowserTab {
	for i := range s.BrowserTabs {
		if s.BrowserTabs[i].ID == id {
			return &s.BrowserTabs[i]
		}
	}
	return nil
}

// tabRef is a browser or workspace tab seen through its common fields.
type tabRef struct {
	id, space string
	pane      *string
	browser   bool
}

func (s *State) tab(id string) (tabRef, bool) {
	if t := s.WorkspaceTab(id); t != nil {
		return tabRef{id: t.ID, space: t.SpaceID, pane: &t.Pane}, true
	}
	if t := s.BrowserTab(id); t != nil {
		return tabRef{id: t.ID, space: t.SpaceID, pane: &t.Pane, browser: true}, true
	}
	return tabRef{}, false
}

// PaneTabIDs returns the ids of the tabs in a pane of a space in strip
// order: browser tabs first, then workspace tabs, each in creation order.
func (s *State) PaneTabIDs(spaceID, pane string) []string {
	var out []string
	for _, t := range s.BrowserTabs {
		if t.SpaceID == spaceID && t.Pane == pane {
			out = append(out, t.ID)
		}
	}
	for _, t := range s.WorkspaceTabs {
		if t.SpaceID == spaceID && t.Pane == pane {
			out = append(out, t.ID)
		}
	}
	return out
}

// browserPane returns the pane that holds the space's browser tabs, or ""
// when it has none (skipping the tab except).
func (s *State) browserPane(spaceID, except string) string {
	for _, t := range s.BrowserTabs {
		if t.SpaceID == spaceID && t.ID != except {
			return t.Pane
		}
	}
	return ""
}

// ShowTab shows the tab (browser or workspace) in its pane and gives that
// pane the focus. A workspace tab also becomes its space's active workspace
// tab, a browser tab its space's active browser tab.
func (s *State) ShowTab(id string) error {
	ref, ok := s.tab(id)
	if !ok {
		return fmt.Errorf("%w: %s", ErrTabNotFound, id)
	}
	sp := s.Space(ref.space)
	if sp == nil {
		return fmt.Errorf("state: tab %s is in space %q, which does not exist", id, ref.space)
	}
	sp.Layout.setShown(*ref.pane, id)
	sp.Layout.FocusedPane = *ref.pane
	if ref.browser {
		for i := range s.BrowserTabs {
			if s.BrowserTabs[i].SpaceID == ref.space {
				s.BrowserTabs[i].Active = s.BrowserTabs[i].ID == id
			}
		}
	} else {
		for i := range s.WorkspaceTabs {
			if s.WorkspaceTabs[i].SpaceID == ref.space {
				s.WorkspaceTabs[i].Active = s.WorkspaceTabs[i].ID == id
			}
		}
	}
	return nil
}

// MoveTab moves a tab to pane of its space and shows it there. Moving to
// the secondary pane splits the workspace; moving the last tab out of a
// pane of a split closes the split. A browser tab cannot join a pane when
// the other pane holds browser tabs ([ErrBrowserPane]).
func (s *State) MoveTab(id, pane string) error {
	if !slices.Contains(Panes, pane) {
		return fmt.Errorf("state: unknown pane %q", pane)
	}
	ref, ok := s.tab(id)
	if !ok {
		return fmt.Errorf("%w: %s", ErrTabNotFound, id)
	}
	sp := s.Space(ref.space)
	if sp == nil {
		return fmt.Errorf("state: tab %s is in space %q, which does not exist", id, ref.space)
	}
	if ref.browser {
		if other := s.browserPane(ref.space, id); other != "" && other != pane {
			return ErrBrowserPane
		}
	}
	from := *ref.pane
	if from != pane {
		next := s.neighbour(ref.space, from, id)
		*ref.pane = pane
		if sp.Layout.shown(from) == id {
			sp.Layout.setShown(from, next)
		}
		if pane == PaneSecondary {
			sp.Layout.Split = true
		}
	}
	if err := s.ShowTab(id); err != nil {
		return err
	}
	if from != pane {
		s.collapseEmptyPane(sp)
	}
	return nil
}

// RemoveWorkspaceTab deletes a workspace tab. The pane that showed it shows
// its neighbour (the next tab, else the previous one); a split whose pane
// became empty closes; the space's newest remaining workspace tab becomes
// active when the removed one was.
func (s *State) RemoveWorkspaceTab(id string) (WorkspaceTab, error) {
	i := slices.IndexFunc(s.WorkspaceTabs, func(t WorkspaceTab) bool { return t.ID == id })
	if i < 0 {
		return WorkspaceTab{}, fmt.Errorf("%w: %s", ErrTabNotFound, id)
	}
	closed := s.WorkspaceTabs[i]
	sp := s.Space(closed.SpaceID)
	next := s.neighbour(closed.SpaceID, closed.Pane, id)
	s.WorkspaceTabs = slices.Delete(s.WorkspaceTabs, i, i+1)
	if closed.Active {
		for j := len(s.WorkspaceTabs) - 1; j >= 0; j-- {
			if s.WorkspaceTabs[j].SpaceID == closed.SpaceID {
				s.WorkspaceTabs[j].Active = true
				break
			}
		}
	}
	if sp != nil {
		if sp.Layout.shown(closed.Pane) == id {
			sp.Layout.setShown(closed.Pane, next)
		}
		s.collapseEmptyPane(sp)
	}
	return closed, nil
}

// SetSplit opens or closes the split of a space. Opening leaves the
// secondary pane empty until a tab moves there; closing moves the
// secondary pane's tabs into the primary pane.
func (s *State) SetSplit(spaceID string, split bool) error {
	sp := s.Space(spaceID)
	if sp == nil {
		return fmt.Errorf("state: space %q does not exist", spaceID)
	}
	if split == sp.Layout.Split {
		return nil
	}
	if split {
		sp.Layout.Split = true
		return nil
	}
	s.unsplit(sp)
	return nil
}

// neighbour returns the tab a pane should show once id leaves it: the next
// tab in strip order, else the previous one, else "".
func (s *State) neighbour(spaceID, pane, id string) string {
	ids := s.PaneTabIDs(spaceID, pane)
	i := slices.Index(ids, id)
	switch {
	case i < 0:
		return ""
	case i+1 < len(ids):
		return ids[i+1]
	case i > 0:
		return ids[i-1]
	}
	return ""
}

// collapseEmptyPane closes the split of sp when one of its panes has no
// tab left (and the other has some).
func (s *State) collapseEmptyPane(sp *Space) {
	if !sp.Layout.Split {
		return
	}
	primary := len(s.PaneTabIDs(sp.ID, PanePrimary))
	secondary := len(s.PaneTabIDs(sp.ID, PaneSecondary))
	if primary == 0 || secondary == 0 {
		s.unsplit(sp)
	}
}

// unsplit moves every tab of sp into the primary pane and closes the split.
// The primary pane keeps showing what the focused pane showed.
func (s *State) unsplit(sp *Space) {
	keep := sp.Layout.shown(sp.Layout.FocusedPane)
	if keep == "" {
		keep = sp.Layout.PrimaryTabID
	}
	if keep == "" {
		keep = sp.Layout.SecondaryTabID
	}
	for i := range s.WorkspaceTabs {
		if s.WorkspaceTabs[i].SpaceID == sp.ID {
			s.WorkspaceTabs[i].Pane = PanePrimary
		}
	}
	for i := range s.BrowserTabs {
		if s.BrowserTabs[i].SpaceID == sp.ID {
			s.BrowserTabs[i].Pane = PanePrimary
		}
	}
	sp.Layout.Split = false
	sp.Layout.FocusedPane = PanePrimary
	sp.Layout.PrimaryTabID = keep
	sp.Layout.SecondaryTabID = ""
}

// NormalizeLayouts repairs what a layout can get wrong without losing
// anything: unknown panes become primary, an unsplit space holds every tab
// in its primary pane, browser tabs share one pane, shown tabs exist in
// their pane (else the pane shows its first tab), the focused pane exists,
// and the ratio and drawer height are within their limits. It runs after
// every update and load, so hand-edited or older files still make sense.
func (s *State) NormalizeLayouts() {
	for si := range s.Spaces {
		sp := &s.Spaces[si]
		l := &sp.Layout
		if l.SplitRatio == 0 || math.IsNaN(l.SplitRatio) {
			l.SplitRatio = DefaultSplitRatio
		}
		l.SplitRatio = math.Min(MaxSplitRatio, math.Max(MinSplitRatio, l.SplitRatio))
		if l.DrawerHeight == 0 {
			l.DrawerHeight = DefaultDrawerHeight
		}
		l.DrawerHeight = min(MaxDrawerHeight, max(MinDrawerHeight, l.DrawerHeight))
		if !l.Split || l.FocusedPane != PaneSecondary {
			l.FocusedPane = PanePrimary
		}
		fix := func(pane *string) {
			if !l.Split || !slices.Contains(Panes, *pane) {
				*pane = PanePrimary
			}
		}
		browser := ""
		for i := range s.BrowserTabs {
			if t := &s.BrowserTabs[i]; t.SpaceID == sp.ID {
				fix(&t.Pane)
				if browser == "" {
					browser = t.Pane
				}
				t.Pane = browser
			}
		}
		for i := range s.WorkspaceTabs {
			if t := &s.WorkspaceTabs[i]; t.SpaceID == sp.ID {
				fix(&t.Pane)
			}
		}
		if !l.Split {
			l.SecondaryTabID = ""
		}
		for _, pane := range Panes {
			ids := s.PaneTabIDs(sp.ID, pane)
			if !slices.Contains(ids, l.shown(pane)) {
				first := ""
				if len(ids) > 0 {
					first = ids[0]
					// Prefer the active workspace tab when it is in this pane.
					for _, t := range s.WorkspaceTabs {
						if t.SpaceID == sp.ID && t.Active && t.Pane == pane {
							first = t.ID
						}
					}
				}
				l.setShown(pane, first)
			}
		}
	}
}

// validateLayouts checks what [State.NormalizeLayouts] guarantees.
func (s *State) validateLayouts() error {
	for _, sp := range s.Spaces {
		l := sp.Layout
		if l.SplitRatio < MinSplitRatio || l.SplitRatio > MaxSplitRatio {
			return fmt.Errorf("space %s has split ratio %v outside [%v, %v]", sp.ID, l.SplitRatio, MinSplitRatio, MaxSplitRatio)
		}
		if l.DrawerHeight < MinDrawerHeight || l.DrawerHeight > MaxDrawerHeight {
			return fmt.Errorf("space %s has drawer height %d outside [%d, %d]", sp.ID, l.DrawerHeight, MinDrawerHeight, MaxDrawerHeight)
		}
		if !slices.Contains(Panes, l.FocusedPane) || (!l.Split && l.FocusedPane != PanePrimary) {
			return fmt.Errorf("space %s has focused pane %q", sp.ID, l.FocusedPane)
		}
		for _, pane := range Panes {
			id := l.shown(pane)
			if id == "" {
				continue
			}
			if !slices.Contains(s.PaneTabIDs(sp.ID, pane), id) {
				return fmt.Errorf("space %s shows tab %s in its %s pane, which does not hold it", sp.ID, id, pane)
			}
		}
		browser := ""
		for _, t := range s.BrowserTabs {
			if t.SpaceID != sp.ID {
				continue
			}
			if browser != "" && t.Pane != browser {
				return fmt.Errorf("space %s has browser tabs in both panes", sp.ID)
			}
			browser = t.Pane
		}
	}
	for _, t := range s.WorkspaceTabs {
		if !slices.Contains(Panes, t.Pane) {
			return fmt.Errorf("workspace tab %s has unknown pane %q", t.ID, t.Pane)
		}
		if sp := s.Space(t.SpaceID); sp != nil && !sp.Layout.Split && t.Pane != PanePrimary {
			return fmt.Errorf("workspace tab %s is in the secondary pane of an unsplit space", t.ID)
		}
	}
	for _, t := range s.BrowserTabs {
		if !slices.Contains(Panes, t.Pane) {
			return fmt.Errorf("browser tab %s has unknown pane %q", t.ID, t.Pane)
		}
	}
	return nil
}
