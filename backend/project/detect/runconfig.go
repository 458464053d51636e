package detect

import "strings"

// packageManagers are the package managers a run configuration can use.
var packageManagers = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true}

// DefaultRunConfig is the run configuration a project has until someone
// edits it: d's commands, the default the first dev-server command (else the
// first command, else ""), and an empty env. When d found no Node lockfile,
// the package.json scripts run through defaultPM (the setting
// defaultPackageManager); "unknown", "" or anything else means npm.
func DefaultRunConfig(d Detection, defaultPM string) RunConfig {
	rc := RunConfig{Commands: make([]RunCommand, 0, len(d.Commands)), Env: map[string]string{}}
	pm := d.PackageManager
	if d.HasPackageJSON && !d.Lockfile {
		pm = "npm"
		if packageManagers[defaultPM] {
			pm = defaultPM
		}
	}
	for _, c := range d.Commands {
		if name, ok := strings.CutPrefix(c.ID, "script-"); ok && d.HasPackageJSON && hasScript(d.Scripts, name) {
			c.Command = scriptCommand(pm, name)
		}
		rc.Commands = append(rc.Commands, c)
	}
	for _, c := range rc.Commands {
		if c.IsDevServer {
			rc.DefaultCommandID = c.ID
			return rc
		}
	}
	if len(rc.Commands) > 0 {
		rc.DefaultCommandID = rc.Commands[0].ID
	}
	return rc
}

func hasScript(scripts []Script, name string) bool {
	for _, s := range scripts {
		if s.Name == name {
			return true
		}
	}
	return false
}
