package state

import (
	"errors"
	"fmt"
)

// migration moves a decoded state.json document one version forward, in
// place: migrations[v] turns version v into version v+1. Steps work on the
// generic JSON form because an old file need not fit today's Go types.
type migration func(doc map[string]any, now int64) error

// migrations is the chain; len(migrations) must equal CurrentVersion. A
// later layout change appends one step and bumps CurrentVersion.
var migrations = []migration{
	0: migrateV0toV1,
	1: migrateV1toV2,
	2: migrateV2toV3,
	3: migrateV3toV4,
}

// migrate brings doc from its version to CurrentVersion. A document without
// a version field is version 0.
func migrate(doc map[string]any, now int64) (from int, err error) {
	from, err = docVersion(doc)
	if err != nil {
		return 0, err
	}
	if from > CurrentVersion {
		return from, &NewerVersionError{Found: from, Supported: CurrentVersion}
	}
	for v := from; v < CurrentVersion; v++ {
		if err := migrations[v](doc, now); err != nil {
			return from, fmt.Errorf("migrate v%d to v%d: %w", v, v+1, err)
		}
		doc["version"] = float64(v + 1)
	}
	return from, nil
}

// docVersion reads the version field: absent means 0; anything but a
// non-negative integer is an invalid shape.
func docVersion(doc map[string]any) (int, error) {
	raw, ok := doc["version"]
	if !ok || raw == nil {
		return 0, nil
	}
	f, ok := raw.(float64)
	if !ok || f < 0 || f != float64(int(f)) {
		return 0, fmt.Errorf("version %v is not a non-negative integer", raw)
	}
	return int(f), nil
}

// migrateV0toV1 gives a version-less document its base arrays, default
// settings, at least one space and a valid active space.
func migrateV0toV1(doc map[string]any, now int64) error {
	for _, key := range []string{"spaces", "browserTabs", "workspaceTabs"} {
		if doc[key] == nil {
			doc[key] = []any{}
		}
	}
	spaces, ok := doc["spaces"].([]any)
	if !ok {
		return errors.New("spaces is not a list")
	}
	if len(spaces) == 0 {
		sp := NewSpace(DefaultSpaceName, Palette[defaultSpaceColorIx], now)
		spaces = []any{map[string]any{"id": sp.ID, "name": sp.Name, "color": sp.Color,
			"projectId": nil, "createdAt": float64(now), "updatedAt": float64(now)}}
		doc["spaces"] = spaces
	}
	active, _ := doc["activeSpaceId"].(string)
	found := false
	for _, s := range spaces {
		if m, ok := s.(map[string]any); ok && m["id"] == active && active != "" {
			found = true
		}
	}
	if !found {
		first, ok := spaces[0].(map[string]any)
		if !ok {
			return errors.New("spaces[0] is not an object")
		}
		doc["activeSpaceId"] = first["id"]
	}
	if doc["settings"] == nil {
		doc["settings"] = map[string]any{}
	}
	return nil
}

// migrateV1toV2 adds the workspace layout: every space gets the default
// layout (one pane, drawer closed) and every tab the primary pane.
func migrateV1toV2(doc map[string]any, now int64) error {
	def := DefaultLayout()
	for _, key := range []string{"spaces", "browserTabs", "workspaceTabs"} {
		list, ok := doc[key].([]any)
		if !ok {
			if doc[key] == nil {
				continue
			}
			return fmt.Errorf("%s is not a list", key)
		}
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return fmt.Errorf("%s[%d] is not an object", key, i)
			}
			if key == "spaces" {
				if m["layout"] == nil {
					m["layout"] = map[string]any{"split": def.Split, "splitRatio": def.SplitRatio, "focusedPane": def.FocusedPane,
						"primaryTabId": "", "secondaryTabId": "", "drawerOpen": def.DrawerOpen, "drawerHeight": float64(def.DrawerHeight)}
				}
			} else if m["pane"] == nil {
				m["pane"] = PanePrimary
			}
		}
	}
	return nil
}

// migrateV2toV3 adds the project records: an empty list (spaces keep a
// null projectId).
func migrateV2toV3(doc map[string]any, now int64) error {
	if doc["projects"] == nil {
		doc["projects"] = []any{}
	}
	return nil
}

// migrateV3toV4 adds the plugin records: an empty list.
func migrateV3toV4(doc map[string]any, now int64) error {
	if doc["plugins"] == nil {
		doc["plugins"] = []any{}
	}
	return nil
}
