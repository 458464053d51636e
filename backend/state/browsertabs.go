package state

import (
	"fmt"
	"slices"
)

// BrowserPane returns the pane a new browser tab of a space joins: the pane
// that holds the space's browser tabs (only one pane can), else the space's
// focused pane. It returns "" for an unknown space.
func (s *State) BrowserPane(spaceID string) string {
	if p := s.browserPane(spaceID, ""); p != "" {
		return p
	}
	if sp := s.Space(spaceID); sp != nil {
		return sp.Layout.FocusedPane
	}
	return ""
}

// AddBrowserTab appends t to its space in the pane [State.BrowserPane]
// picks (t.Pane is overwritten) and shows it there as the space's active
// browser tab.
func (s *State) AddBrowserTab(t BrowserTab) error {
	if s.Space(t.SpaceID) == nil {
		return fmt.Errorf("state: space %q does not exist", t.SpaceID)
	}
	if s.BrowserTab(t.ID) != nil || s.WorkspaceTab(t.ID) != nil {
		return fmt.Errorf("state: duplicate tab id %s", t.ID)
	}
	t.Pane = s.BrowserPane(t.SpaceID)
	if t.Pane == PaneSecondary {
		s.Space(t.SpaceID).Layout.Split = true
	}
	s.BrowserTabs = append(s.BrowserTabs, t)
	return s.ShowTab(t.ID)
}

// RemoveBrowserTab deletes a browser tab. The pane that showed it shows its
// neighbour; a split whose pane became empty closes; the space's newest
// remaining browser tab becomes active when the removed one was.
func (s *State) RemoveBrowserTab(id string) (BrowserTab, error) {
	i := slices.IndexFunc(s.BrowserTabs, func(t BrowserTab) bool { return t.ID == id })
	if i < 0 {
		return BrowserTab{}, fmt.Errorf("%w: %s", ErrTabNotFound, id)
	}
	closed := s.BrowserTabs[i]
	next := s.neighbour(closed.SpaceID, closed.Pane, id)
	s.BrowserTabs = slices.Delete(s.BrowserTabs, i, i+1)
	if closed.Active {
		for j := len(s.BrowserTabs) - 1; j >= 0; j-- {
			if s.BrowserTabs[j].SpaceID == closed.SpaceID {
				s.BrowserTabs[j].Active = true
				break
			}
		}
	}
	if sp := s.Space(closed.SpaceID); sp != nil {
		if sp.Layout.shown(closed.Pane) == id {
			sp.Layout.setShown(closed.Pane, next)
		}
		s.collapseEmptyPane(sp)
	}
	return closed, nil
}

// ActiveBrowserTab returns a pointer to the active browser tab of a space,
// or nil.
func (s *State) ActiveBrowserTab(spaceID string) *BrowserTab {
	for i := range s.BrowserTabs {
		if t := &s.BrowserTabs[i]; t.SpaceID == spaceID && t.Active {
			return t
		}
	}
	return nil
}

// ReleaseBrowserTabs clears the owner of every browser tab whose owner
// matches and returns their ids (a session that ended, say, releases its
// claims).
func (s *State) ReleaseBrowserTabs(match func(ownerID string) bool) []string {
	var ids []string
	for i := range s.BrowserTabs {
		if t := &s.BrowserTabs[i]; t.OwnerID != nil && match(*t.OwnerID) {
			t.OwnerID = nil
			ids = append(ids, t.ID)
		}
	}
	return ids
}
